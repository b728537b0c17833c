/*
 * Whether a lock's holder can be preempted, by a higher-priority task
 * woken on its CPU (kernel/locking/spinlock.h, local_lock.h; the RT
 * switch: docs/locks.md). RT=1: spinlock_t and local_lock_t sleep, so that
 * task runs while the lock is held. RT=0: they disable preemption, so it
 * waits for the unlock, and no tick arrives under local_lock_irqsave().
 * A raw spinlock taken with raw_spin_lock_irq() keeps it off in both
 * worlds. What a sleeping holder may and may not do on RT=1 is in
 * locks_rt_sleeping.c. Helper tasks only record; the test task checks
 * after joining them.
 */
#include <stdbool.h>
#include <stdint.h>

#include "asm/processor.h"
#include "irqflags.h"
#include "delay.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

/* ---- a holder, and a higher-priority task woken on its CPU ---- */

struct pcp_lock {
	local_lock_t lock;
};

static DEFINE_PER_CPU(struct pcp_lock, pcpc) = {.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(pre_lock);

static struct {
	struct any_lock lock;
	int cpu;
	uint64_t hold_ns;            /* how long low waits for high, at most */
	struct task_struct *low, *high;
	volatile int held, high_ran, low_unlocked;
	volatile int low_inside;     /* set after the lock, cleared before
				      * the unlock */
	bool saw_high_while_holding;
	bool high_ran_right_after_unlock;
	bool high_saw_locked;
	bool high_saw_inside;        /* low between lock and unlock */
	bool high_saw_owner_low;
	int low_pc, low_md, low_cpu, high_cpu;
	bool low_irqs_off;
	uint64_t waited_ns;
} pre;

static int pre_low(void *arg)
{
	uint64_t t0;

	if (any_lock_held_ctx(&pre.lock)->irqs_off) {
		/* Start right after a tick: none falls due while we hold. */
		unsigned long tick = this_cpu_read(cpu_ticks);

		t0 = ktime_get_ns();
		while (this_cpu_read(cpu_ticks) == tick &&
		       ns_since(t0) < 10 * NS_PER_MS)
			cpu_relax();
	}
	any_lock_acquire(&pre.lock);
	pre.low_pc = preempt_count();
	pre.low_md = current->migration_disabled;
	pre.low_irqs_off = irqs_disabled();
	pre.low_cpu = raw_smp_processor_id();
	store_int(&pre.low_inside, 1);
	store_int(&pre.held, 1);
	wake_up_process(pre.high); /* same CPU, higher priority */
	t0 = ktime_get_ns();
	while (!load_int(&pre.high_ran) && ns_since(t0) < pre.hold_ns)
		cpu_relax();
	pre.waited_ns = ns_since(t0);
	pre.saw_high_while_holding = load_int(&pre.high_ran);
	store_int(&pre.low_inside, 0);
	any_lock_release(&pre.lock);
	pre.high_ran_right_after_unlock = load_int(&pre.high_ran);
	store_int(&pre.low_unlocked, 1);
	return 0;
}

/* On low's CPU, so this CPU's copy of a local_lock_t is low's. */
static int pre_high(void *arg)
{
	struct rt_mutex *m = any_lock_rtmutex(&pre.lock);

	pre.high_cpu = raw_smp_processor_id();
	pre.high_saw_inside = load_int(&pre.low_inside);
	/* An RT=0 local_lock_t has no state: being inside is being held. */
	pre.high_saw_locked = any_lock_ops(&pre.lock)->is_locked
				      ? any_lock_is_locked(&pre.lock)
				      : pre.high_saw_inside;
	pre.high_saw_owner_low = m && rt_mutex_owner(m) == pre.low;
	store_int(&pre.high_ran, 1);
	return 0;
}

/* low (FIFO 10) takes lock on the last CPU and wakes high (FIFO 50)
 * there, then waits up to hold_us for high to have run. */
static void run_holder_and_waker(struct any_lock lock, uint64_t hold_us)
{
	pre = (typeof(pre)){.lock = lock, .cpu = last_cpu(),
			    .hold_ns = hold_us * 1000, .low_cpu = -1,
			    .high_cpu = -1};
	pre.high = ktest_spawn(pre_high, 0, "high", pre.cpu, SCHED_FIFO, 50,
			       false);
	pre.low =
		ktest_spawn(pre_low, 0, "low", pre.cpu, SCHED_FIFO, 10, false);
	if (pre.low && pre.high)
		wake_up_process(pre.low);
	else if (pre.high)
		wake_up_process(pre.high);
	KEXPECT_TRUE(ktest_poll_int(&pre.low_unlocked, 1,
				    KTEST_WAIT_MS + hold_us / 1000));
	KEXPECT_TRUE(ktest_poll_int(&pre.high_ran, 1, KTEST_WAIT_MS));
	ktest_join(pre.high);
	ktest_join(pre.low);
	KEXPECT_EQ(pre.low_cpu, pre.cpu);
	KEXPECT_EQ(pre.high_cpu, pre.cpu);
}

/* The same for spinlock_t or local_lock_t, logged. */
static void run_holder_and_waker_logged(enum lock_kind kind, void *lock,
					uint64_t hold_us)
{
	run_holder_and_waker(ANY_LOCK(kind, lock), hold_us);
	ktest_log("%s held by low (preempt count %d, migration disabled %d, "
		  "IRQs %s): high ran %s, after %lu us", lock_kinds[kind].name,
		  pre.low_pc, pre.low_md, pre.low_irqs_off ? "off" : "on",
		  pre.saw_high_while_holding ? "while it held the lock"
					     : "only after the unlock",
		  (unsigned long)(pre.waited_ns / 1000));
}

/*
 * Both worlds: a raw spinlock taken with raw_spin_lock_irq() keeps a FIFO
 * 50 task woken on the holder's CPU off it while held (preemption and IRQs
 * off; 200 us, less than a tick), and the unlock lets it run at once, as
 * Linux's raw_spin_unlock_irq() does by enabling IRQs before preemption.
 * (If preemption is enabled first, with IRQs still off, the pending switch
 * waits for the next interrupt: a tick, up to 1 ms later.)
 */
#define RAW_IRQ_ROUNDS 8

KTEST(locks_rt, raw_spin_unlock_irq_runs_woken_task_at_once)
{
	static DEFINE_RAW_SPINLOCK(pre_raw);
	int at_once = 0, seen_inside = 0, irqs_off = 0, preempt_off = 0;

	/* An interrupt pending at the unlock (a late tick, a vCPU stalled by
	 * the host) would hide a missed switch: repeat it. */
	for (int i = 0; i < RAW_IRQ_ROUNDS; i++) {
		run_holder_and_waker(
			ANY_LOCK_FORM(LOCK_RAW, &pre_raw, LOCK_IRQ), 200);
		at_once += pre.high_ran_right_after_unlock;
		seen_inside += pre.saw_high_while_holding ||
			       pre.high_saw_inside || pre.high_saw_locked;
		irqs_off += pre.low_irqs_off;
		preempt_off += pre.low_pc > 0;
	}
	ktest_log("raw_spin_lock_irq: woken task ran at the unlock %d of %d "
		  "times, inside the lock %d times", at_once, RAW_IRQ_ROUNDS,
		  seen_inside);
	KEXPECT_EQ(at_once, RAW_IRQ_ROUNDS);
	KEXPECT_EQ(seen_inside, 0);
	KEXPECT_EQ(irqs_off, RAW_IRQ_ROUNDS);
	KEXPECT_EQ(preempt_off, RAW_IRQ_ROUNDS);
}

#ifdef CONFIG_PREEMPT_RT

/* What run_holder_and_waker() saw when the lock is a sleeping one: high
 * ran on low's CPU while low held the lock, found it locked by low, and
 * low was preemptible (preempt count 0, IRQs on) with migration off. */
static void expect_preempted_while_holding(void)
{
	KEXPECT_TRUE(pre.saw_high_while_holding);
	KEXPECT_TRUE(pre.high_saw_inside);
	KEXPECT_TRUE(pre.high_saw_locked);
	KEXPECT_TRUE(pre.high_saw_owner_low);
	KEXPECT_EQ(pre.low_pc, 0);
	KEXPECT_FALSE(pre.low_irqs_off);
	KEXPECT_GT(pre.low_md, 0);
}

/* A FIFO 50 task woken on the CPU of a FIFO 10 task that holds a
 * spinlock_t runs at once, while the lock is held: the holder is
 * preemptible (preempt count 0, IRQs on, migration off). */
KTEST(locks_rt, spinlock_holder_preempted_by_higher_prio)
{
	run_holder_and_waker_logged(LOCK_SPIN, &pre_lock, 2000000);
	expect_preempted_while_holding();
}

/* The same for local_lock(): this CPU's lock is held (by low) while high
 * runs on that CPU. */
KTEST(locks_rt, local_lock_holder_preempted_by_higher_prio)
{
	run_holder_and_waker_logged(LOCK_LOCAL, &pcpc.lock, 2000000);
	expect_preempted_while_holding();
}

#else /* !CONFIG_PREEMPT_RT */

/* What run_holder_and_waker() saw when the lock disables preemption: high
 * did not run during 20 ms of low spinning inside, and ran right at the
 * unlock; low had preemption off and IRQs on. */
static void expect_not_preempted_while_holding(void)
{
	KEXPECT_FALSE(pre.saw_high_while_holding);
	KEXPECT_FALSE(pre.high_saw_inside);
	KEXPECT_FALSE(pre.high_saw_locked);
	KEXPECT_TRUE(pre.high_ran_right_after_unlock);
	KEXPECT_GT(pre.low_pc, 0);
	KEXPECT_FALSE(pre.low_irqs_off);
}

/* Holding a spinlock_t disables preemption: a FIFO 50 task woken on the
 * holder's CPU waits for the unlock. */
KTEST(locks_rt, spinlock_holder_not_preempted)
{
	run_holder_and_waker_logged(LOCK_SPIN, &pre_lock, 20000);
	expect_not_preempted_while_holding();
}

/* local_lock() disables preemption the same way. */
KTEST(locks_rt, local_lock_holder_not_preempted)
{
	run_holder_and_waker_logged(LOCK_LOCAL, &pcpc.lock, 20000);
	expect_not_preempted_while_holding();
}

/* local_lock_irqsave() disables IRQs: no tick arrives during 3 ms inside,
 * and the pending one does after the restore (waited for as an event: a
 * vCPU the host descheduled may take longer than 3 ms to see it).
 * spin_lock() leaves them on but counts a preemption disable. */
KTEST(locks_rt, local_lock_irqsave_disables_irqs)
{
	unsigned long flags, t0, t1, t2;
	int pc0 = preempt_count();
	bool off;
	int pc_spin, pc_local;
	bool spin_irqs_off;

	local_lock_irqsave(&pcpc.lock, flags);
	off = irqs_disabled();
	t0 = this_cpu_read(cpu_ticks);
	udelay(3000);
	t1 = this_cpu_read(cpu_ticks);
	local_unlock_irqrestore(&pcpc.lock, flags);
	ktest_poll_until(this_cpu_read(cpu_ticks) != t1, KTEST_WAIT_MS,
			 POLL_SPIN);
	t2 = this_cpu_read(cpu_ticks);

	spin_lock(&pre_lock);
	pc_spin = preempt_count();
	spin_irqs_off = irqs_disabled();
	spin_unlock(&pre_lock);
	local_lock(&pcpc.lock);
	pc_local = preempt_count();
	local_unlock(&pcpc.lock);

	ktest_log("ticks: %lu inside 3 ms with IRQs off, %lu after",
		  t1 - t0, t2 - t1);
	KEXPECT_TRUE(off);
	KEXPECT_EQ(t1, t0);
	KEXPECT_GT(t2, t1);
	KEXPECT_FALSE(irqs_disabled());
	KEXPECT_EQ(pc_spin, pc0 + 1);
	KEXPECT_FALSE(spin_irqs_off);
	KEXPECT_EQ(pc_local, pc0 + 1);
	KEXPECT_EQ(preempt_count(), pc0);
}

#endif /* CONFIG_PREEMPT_RT */
