/*
 * What the scheduler tests share: a CPU's ticks as a clock, busy tasks
 * that count where they ran, the preemptor (a FIFO task that preempts
 * whatever runs on its CPU) and the pin watch (a task that holds
 * migrate_disable() and counts its preemptions and any run elsewhere).
 *
 * Under TCG on a shared host a vCPU can be descheduled for hundreds of
 * milliseconds, so these tests check orders, counts and invariants, never
 * durations (tests/ktest_util.h), and a wait gives up only when the
 * kernel is stuck. Helper tasks only record (KEXPECT_* at most), stop on
 * a shared flag or when their test ends, and are always joined: the test
 * task checks the record and logs the counts it checked.
 */
#ifndef SCHED_UTIL_H
#define SCHED_UTIL_H

#include "completion.h"
#include "ktest_util.h"
#include "rt_bandwidth.h"
#include "uapi.h" /* error numbers */

static inline void inc_long(volatile long *p)
{
	__atomic_store_n(p, *p + 1, __ATOMIC_RELEASE);
}

/* Reports of smp_processor_id() called preemptible and migratable. */
static inline unsigned long smp_id_warnings(void)
{
	return atomic_long_read(&smp_processor_id_warnings);
}

/* Busy until this CPU has taken ticks more ticks (time slices are counted
 * in ticks, and under TCG a descheduled vCPU takes fewer ticks than the
 * clock says), or for at most max_ms of the clock. The caller must not
 * migrate (it is bound). */
static inline void spin_ticks(unsigned long ticks, uint64_t max_ms)
{
	int cpu = raw_smp_processor_id();
	unsigned long t0 = per_cpu(cpu_ticks, cpu);

	ktest_poll_until(per_cpu(cpu_ticks, cpu) - t0 >= ticks, max_ms,
			 POLL_SPIN);
}

/* Busy NORMAL tasks: task i counts its iterations in busy.count[i] and
 * the CPUs it ran on, until busy.stop is set. */
#define MAX_BUSY_TASKS 48

extern struct busy_tasks {
	volatile int stop;
	cpumask_t seen;                  /* CPUs that ran any of them */
	volatile long count[MAX_BUSY_TASKS];
	cpumask_t seen_by[MAX_BUSY_TASKS];
} busy;

/* n of them (at most MAX_BUSY_TASKS: returns how many), bound to cpu or,
 * with -1, free to go anywhere. */
int busy_start(struct task_struct **t, int n, const char *name, int cpu);
/* Whether each of the n has counted at least once. */
bool busy_all_counted(int n);

/*
 * A FIFO 50 task bound to a CPU to preempt whatever runs there: it sleeps
 * on a completion for at most 1 ms, so it wakes every ms by itself (a
 * timer) and at once when kicked from another CPU (a wakeup by IPI), and
 * counts its runs. Timer wakeups alone are few under TCG on a loaded host
 * (a vCPU that is not running takes no interrupt), so the tests that need
 * thousands of preemptions kick it from another CPU as fast as it runs.
 */
struct preemptor {
	struct completion kick;
	volatile int stop;
	volatile long runs;
	volatile long runs_while;        /* ... while *watch was non-zero */
	volatile int *watch;
	int cpu;
	struct task_struct *task;               /* NULL: it could not start */
};

/* Wake k and wait (spinning, at most 20 ms) until it has run. */
void kick(struct preemptor *k);

/* Preempt k's CPU, by kicks from here when this is another CPU, else by
 * k's own timer wakeups, until *count reaches want, however long a busy
 * host makes that take. It gives up only when *count stops moving
 * (ktest_stalled(): a stuck kernel), and logs it; the caller's check of
 * *count then fails. */
void preempt_for(struct preemptor *k, volatile long *count, long want);

/*
 * A pin watch: its task takes migrate_disable() on the CPU it was started
 * on, then, until the test sets stop, looks at every iteration whether it
 * still runs there (moved), whether its CPU switched meanwhile
 * (preempted) and whether the preemptor ran (seen). The test widens its
 * affinity to every CPU once it is pinned, so that only migrate_disable()
 * keeps it where it is. A test starts it with {.cpu = -1}.
 */
struct pin_watch {
	volatile int cpu;                /* where it is pinned; -1 before */
	volatile int disabled;           /* it holds migrate_disable() */
	volatile int stop;
	bool checked_id;                 /* look with smp_processor_id() */
	volatile long iters, moved, preempted, seen;
	int bad_cpu;                     /* the last other CPU it saw */
	int depth;                       /* migration_disabled at the end */
	unsigned long new_warnings;      /* smp_processor_id() reports */
	unsigned long switches;          /* its CPU's, at the last look */
	long runs;                       /* the preemptor's, at the last look */
	struct preemptor k;
	struct task_struct *task;
};

/* For a pin watch task's body: pin and look until told to stop. It
 * returns with migration still disabled; pin_watch_release() ends that. */
void pin_watch_loop(struct pin_watch *w);
void pin_watch_release(struct pin_watch *w);
/* The plain body: loop, then release. */
int pin_watch_fn(void *w);

/* fn(w), a body around pin_watch_loop(w), in a task bound to cpu with
 * policy and prio; once pinned it may go anywhere, and a preemptor
 * watching w->disabled runs on its CPU. False when it did not start. */
bool pin_watch_start(struct pin_watch *w, int (*fn)(void *),
		     const char *name, int cpu, int policy, int prio);
/* Stop the watch and its preemptor, and join both. */
void pin_watch_finish(struct pin_watch *w);

/* RT throttling's 5% on a 200 ms period, for tests that watch several
 * periods (a 1 s period is 1000 ticks, and a loaded host's vCPU may take
 * 30 ticks a second); and the defaults back. Throttling counts its
 * periods in the CPU's ticks, RT_TEST_PERIOD_TICKS each. */
#define RT_TEST_PERIOD_US 200000
#define RT_TEST_PERIOD_TICKS (RT_TEST_PERIOD_US / (1000000 / HZ))

static inline int rt_throttle_test_bandwidth(void)
{
	return sched_rt_set_bandwidth(RT_TEST_PERIOD_US * 95 / 100,
				      RT_TEST_PERIOD_US);
}

static inline int rt_throttle_default_bandwidth(void)
{
	return sched_rt_set_bandwidth(950000, 1000000);
}

#endif
