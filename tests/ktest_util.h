/*
 * Small helpers the test files share: atomic loads and stores of the flags
 * tests and their helper tasks signal each other with, elapsed time, the
 * one poll helper, the CPU tests put their helpers on, starting and
 * joining helper tasks (ktest_util.c), and the lockdep suites' counter
 * checks. The framework itself (registration, runner, KEXPECT/KASSERT)
 * is kernel/debug/ktest.h.
 *
 * A test that includes this header has what nearly every test uses: the
 * framework, sched.h (tasks, preemption, interrupts, per-CPU data, CPU
 * masks, delays), smp.h and time.h; it includes the rest it tests itself.
 */
#ifndef KTEST_UTIL_H
#define KTEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include "asm/processor.h"
#include "ktest.h"
#include "sched.h"
#include "smp.h"
#include "time.h"

#define NS_PER_US 1000ul
#define NS_PER_MS 1000000ul

/*
 * Time in a test. Under QEMU's TCG on a shared host a vCPU may not run for
 * hundreds of milliseconds, and 8 vCPUs share 2 host cores even when
 * nothing else runs, so no check depends on how the host schedules
 * QEMU's threads:
 *  - how much work is done is a count the test chose, never "as much as
 *    fits in T ms";
 *  - that something happens is waited for, not expected within T: the
 *    test task waits with ktest_poll_until(..., KTEST_WAIT_MS, ...), a
 *    helper until its test tells it or has ended (ktest_helper_wait());
 *  - "lasted at least T" is measured with ktime_get_ns() (ns_since()),
 *    the TSC, host time, which a descheduled vCPU only makes longer;
 *  - "lasted at most T" is counted in the CPU's ticks (cpu_ticks), which
 *    a descheduled vCPU only makes fewer: a tick that falls due while the
 *    host runs something else is merged with the next
 *    (kernel/time/timekeeping.c), so a CPU takes at most T * HZ + 2 ticks
 *    in T seconds, however busy the host.
 */
static inline uint64_t ns_since(uint64_t t0)
{
	return ktime_get_ns() - t0;
}

/* How long the test task waits for an event a correct kernel always
 * brings about (a helper reached a point, a CPU took an IPI, a task
 * moved): only a stuck kernel takes this long, however busy the host.
 * Far below the runner's bound on a whole test (300 s), so that the wait
 * that got stuck reports it, with its own message. */
#define KTEST_WAIT_MS 30000ul

static inline int load_int(volatile int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline long load_long(volatile long *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_int(volatile int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * Wait until cond holds: true, or false once timeout_ms has passed. The
 * time bound only keeps a broken test from hanging, so it never decides
 * a pass: what the test checks is cond. Where false fails the test the
 * bound is KTEST_WAIT_MS; a shorter one only paces a wait whose end
 * either way is right (the test then checks what it counted). Between two
 * looks the caller sleeps (POLL_SLEEP: msleep(1), its CPU goes to the
 * tasks it waits for) or, where it may not sleep (holding a spinning
 * lock, preemption or IRQs off), spins with cpu_relax() (POLL_SPIN).
 * A macro: cond is an expression evaluated at each look.
 */
enum poll_wait { POLL_SLEEP, POLL_SPIN };

static inline void poll_pause(enum poll_wait how)
{
	if (how == POLL_SLEEP)
		msleep(1);
	else
		cpu_relax();
}

#define ktest_poll_until(cond, timeout_ms, how)                               \
	({                                                                    \
		uint64_t poll_t0_ = ktime_get_ns();                           \
		uint64_t poll_max_ = (uint64_t)(timeout_ms) * NS_PER_MS;      \
		bool poll_ok_;                                                \
		while (!(poll_ok_ = (cond)) && ns_since(poll_t0_) < poll_max_) \
			poll_pause(how);                                      \
		poll_ok_;                                                     \
	})

/* Like ktest_poll_until(cond, KTEST_WAIT_MS, how), and also gives up once
 * every CPU has taken ticks ticks: for an event a correct kernel brings
 * about within a few ticks of each CPU (a grace period ends, its
 * callbacks run), so that a kernel that never does (a lab's starter)
 * fails in that much of its CPUs' own time, which a busy host stretches
 * and never cuts short, instead of KTEST_WAIT_MS. For the test task only:
 * one watch, ktest_tick_watch. */
extern struct tick_watch ktest_tick_watch;
#define ktest_poll_ticks(cond, ticks, how)                                    \
	({                                                                    \
		tick_watch_start(&ktest_tick_watch);                          \
		ktest_poll_until((cond) || tick_watch_passed(&ktest_tick_watch, \
							     ticks),          \
				 KTEST_WAIT_MS, how) &&                       \
			(cond);                                               \
	})
/* Ticks of each CPU a grace period and its callbacks get before a wait
 * for them gives up: a correct kernel needs a few dozen. */
#define KTEST_GP_TICKS 1000

/* Wait, with no deadline, until cond holds: for a wait whose cond says
 * itself when to give up, in the kernel's own counts ("or the CPU has
 * taken N ticks"), so that a slow host only makes it longer. A kernel
 * that never gets there is caught by the runner's bound on the test. */
#define ktest_wait_until(cond, how)                                           \
	do {                                                                  \
		while (!(cond))                                               \
			poll_pause(how);                                      \
	} while (0)

/* For a helper task: wait until cond holds or the test it works for has
 * ended (the test then no longer makes it hold), without a deadline of
 * its own, which a slow host could make a correct test outlive. Whether
 * cond held is the result. */
#define ktest_helper_wait(cond, how)                                          \
	({                                                                    \
		unsigned long wait_test_ = ktest_number();                    \
		bool wait_ok_;                                                \
		while (!(wait_ok_ = (cond)) && !ktest_ended(wait_test_))      \
			poll_pause(how);                                      \
		wait_ok_;                                                     \
	})

/*
 * For a loop that goes on until a count is reached: whether the count has
 * stood still for KTEST_WAIT_MS. A slow host only slows the count, a
 * stuck kernel stops it, so that is the loop's one reason to give up, and
 * never a time it has run. Start from {0} and ask with the count each
 * round.
 */
struct ktest_progress {
	long last;
	uint64_t since;              /* ktime_get_ns() when it moved; 0: new */
};

static inline bool ktest_stalled(struct ktest_progress *p, long now)
{
	uint64_t t = ktime_get_ns();

	if (!p->since || now != p->last) {
		p->last = now;
		p->since = t;
		return false;
	}
	return t - p->since >= KTEST_WAIT_MS * NS_PER_MS;
}

/* Sleep-poll until *v >= want, or false after timeout_ms. */
static inline bool ktest_poll_int(volatile int *v, int want,
				  uint64_t timeout_ms)
{
	return ktest_poll_until(load_int(v) >= want, timeout_ms, POLL_SLEEP);
}

static inline bool ktest_poll_long(volatile long *v, long want,
				   uint64_t timeout_ms)
{
	return ktest_poll_until(load_long(v) >= want, timeout_ms, POLL_SLEEP);
}

/* An opaque copy of x (arrays decay to pointers): the compiler no longer
 * knows its value, so a call on it cannot be evaluated at compile time
 * and the real implementation runs. Not for void pointers. */
#define HIDE(x)                                                               \
	({                                                                    \
		__typeof__((x) + 0) hide_ = (x);                              \
		__asm__ volatile("" : "+r"(hide_));                           \
		hide_;                                                        \
	})

/* The highest-numbered CPU: away from the test task on CPU 0 when there
 * are two or more. */
static inline int last_cpu(void)
{
	return (int)num_online_cpus() - 1;
}

/* Every online CPU but self, the caller's (the test task is bound). The
 * if-else form, as Linux's for_each_pci_bridge(), keeps a trailing else
 * from binding to it. */
#define for_each_other_online_cpu(cpu, self)                                  \
	for_each_online_cpu(cpu)                                              \
		if ((cpu) == (self)) {                                        \
		} else

/* Where and in what context a function ran: record_context(r) is an
 * smp_call_func_t (for a call to another CPU, or ktest_in_hardirq()),
 * which only records; the test checks the record afterwards. */
struct call_record {
	int ran;                         /* times it ran */
	int cpu;
	bool irqs_off;
	bool in_hardirq;
};

void record_context(void *r);
/* The function ran once, on cpu, in hard-IRQ context, interrupts off. */
void expect_hardirq_record(const struct call_record *r, int cpu);

/* For the validator's suites: exactly n reports of kind since the last
 * lockdep_reset(), and none of any other kind. */
#define KEXPECT_LOCKDEP_ONLY(kind, n)                                         \
	do {                                                                  \
		KEXPECT_EQ(lockdep_reports(kind), (n));                       \
		KEXPECT_EQ(lockdep_reports_total(), (n));                     \
	} while (0)
#define KEXPECT_LOCKDEP_NONE() KEXPECT_EQ(lockdep_reports_total(), 0)

/*
 * Tests that raise their own priority drop back to SCHED_NORMAL before
 * joining: kthread_join() busy-waits for the joined task's last switch,
 * which a joiner of higher priority on that task's CPU would keep from
 * ever happening.
 */
static inline void become_normal(void)
{
	KEXPECT_EQ(sched_setscheduler(current, SCHED_NORMAL, 0), 0);
}

/* Helper tasks. ktest_spawn(): fn(arg) as a task named name, bound to cpu
 * (-1: not bound), with policy and RT priority (SCHED_NORMAL: prio 0),
 * woken if wake; a failure is recorded and gives NULL, which
 * ktest_join() (-1) and the callers' clean-up paths accept. */
struct task_struct *ktest_spawn(int (*fn)(void *), void *arg, const char *name,
			 int cpu, int policy, int prio, bool wake);
int ktest_join(struct task_struct *t);
/* Wake, or join, the n tasks of t[] (NULLs are passed over). */
void ktest_wake_all(struct task_struct *const *t, int n);
void ktest_join_all(struct task_struct *const *t, int n);

/* A helper task's body: load on its CPU, spinning until the int at stop
 * is set (or its test has ended). */
int ktest_spin_until_stopped(void *stop);

/* fn(arg) in a task of its own, bound to cpu and started; NULL (and the
 * test fails) when no task could be made. */
static inline struct task_struct *ktest_spawn_on(int cpu, int (*fn)(void *),
					  void *arg, const char *name)
{
	return ktest_spawn(fn, arg, name, cpu, SCHED_NORMAL, 0, true);
}

/* The same, waited for: fn's result, or -1 when it could not start. */
static inline int ktest_run_on(int cpu, int (*fn)(void *), void *arg,
			       const char *name)
{
	return ktest_join(ktest_spawn_on(cpu, fn, arg, name));
}

/* Memory exhaustion: take every block kmalloc gives this CPU, largest
 * first down to its smallest class, until kmalloc(16) here returns NULL;
 * the blocks, chained through their first word, are the result (NULL if
 * there was nothing at all). ktest_kmalloc_release() frees them all. Keep
 * the window short: the whole kernel is out of memory meanwhile. */
void *ktest_kmalloc_exhaust(void);
void ktest_kmalloc_release(void *blocks);

/* Have n kernel stacks (at most 256) exist at once, then free them: the
 * kernel page tables that map their slots stay, so a test that counts
 * free pages around up to n tasks alive (freed stacks wait for a batched
 * TLB flush, so count those too) takes them beforehand. */
void ktest_warm_kstacks(int n);

#endif
