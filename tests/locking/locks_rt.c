/*
 * What the RT switch changes about spinlock_t and local_lock_t
 * (kernel/locking/spinlock.h, local_lock.h; DESIGN.md "Build switches").
 *
 * RT=1 (CONFIG_PREEMPT_RT): both are sleeping locks on rt_mutex, taken
 * with migration disabled and preemption and interrupts left on. So a
 * higher-priority task on the holder's CPU runs while it holds the lock;
 * the holder inherits the priority of a task that blocks on it; several
 * tasks on one CPU preempting each other still keep that CPU's local_lock
 * data consistent; and the holder never leaves its CPU (not by sleeping,
 * preemption, RT push/pull or an affinity change) until it unlocks.
 *
 * RT=0: both disable preemption (local_lock_irqsave() interrupts), so a
 * higher-priority task woken on the holder's CPU waits for the unlock, and
 * no tick arrives under local_lock_irqsave().
 *
 * Each world's tests exist only in that world's build; one test, about
 * raw_spinlock_t (the same in both), exists in both. Helper tasks only
 * record; the test task checks after joining them.
 */
#include <stdbool.h>
#include <stdint.h>

#include "asm/processor.h"
#include "cpumask.h"
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

static __attribute__((unused)) void spin_ns(uint64_t ns)
{
	uint64_t t0 = ktime_get_ns();

	while (ns_since(t0) < ns)
		cpu_relax();
}

/* ---- a holder, and a higher-priority task woken on its CPU ---- */

struct pcp_counter {
	local_lock_t lock;
	volatile long counter;
	volatile long a, b;
	volatile int inside;
	volatile long violations;
};

static DEFINE_PER_CPU(struct pcp_counter, pcpc) = {.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(pre_lock);
static DEFINE_RAW_SPINLOCK(pre_raw);

/* The lock low holds, by kind (a raw_spinlock_t in its _irq form). */
static void *const pre_locks[NR_LOCK_KINDS] = {
	[LOCK_SPIN] = &pre_lock, [LOCK_LOCAL] = &pcpc.lock,
	[LOCK_RAW] = &pre_raw};

static struct {
	struct any_lock lock;
	int cpu;
	uint64_t hold_ns;            /* how long low waits for high, at most */
	struct task *low, *high;
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

	if (pre.lock.kind == LOCK_RAW) {
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

/* low (FIFO 10) takes the lock on the last CPU and wakes high (FIFO 50)
 * there, then waits up to hold_us for high to have run. */
static void run_holder_and_waker(enum lock_kind kind, uint64_t hold_us)
{
	pre = (typeof(pre)){.lock = {kind, pre_locks[kind],
				     kind == LOCK_RAW ? LOCK_IRQ : LOCK_PLAIN},
			    .cpu = last_cpu(),
			    .hold_ns = hold_us * 1000, .low_cpu = -1,
			    .high_cpu = -1};
	spin_lock_init(&pre_lock);
	raw_spin_lock_init(&pre_raw);
	pre.high = ktest_spawn(pre_high, 0, "high", pre.cpu, SCHED_FIFO, 50,
			       false);
	pre.low =
		ktest_spawn(pre_low, 0, "low", pre.cpu, SCHED_FIFO, 10, false);
	if (pre.low && pre.high)
		wake_up_process(pre.low);
	else if (pre.high)
		wake_up_process(pre.high);
	KEXPECT_TRUE(
		ktest_poll_int(&pre.low_unlocked, 1, 5000 + hold_us / 1000));
	KEXPECT_TRUE(ktest_poll_int(&pre.high_ran, 1, 5000));
	ktest_join(pre.high);
	ktest_join(pre.low);
	KEXPECT_EQ(pre.low_cpu, pre.cpu);
	KEXPECT_EQ(pre.high_cpu, pre.cpu);
	if (kind == LOCK_RAW)
		return; /* the caller repeats it and sums up */
	ktest_log("%s held by low (preempt count %d, migration disabled %d, "
		  "IRQs %s): high ran %s, after %lu us",
		  lock_kinds[kind].name, pre.low_pc,
		  pre.low_md, pre.low_irqs_off ? "off" : "on",
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
	int at_once = 0, seen_inside = 0, irqs_off = 0, preempt_off = 0;

	/* An interrupt pending at the unlock (a late tick, a vCPU stalled by
	 * the host) would hide a missed switch: repeat it. */
	for (int i = 0; i < RAW_IRQ_ROUNDS; i++) {
		run_holder_and_waker(LOCK_RAW, 200);
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
	run_holder_and_waker(LOCK_SPIN, 2000000);
	expect_preempted_while_holding();
}

/* The same for local_lock(): this CPU's lock is held (by low) while high
 * runs on that CPU. */
KTEST(locks_rt, local_lock_holder_preempted_by_higher_prio)
{
	run_holder_and_waker(LOCK_LOCAL, 2000000);
	expect_preempted_while_holding();
}

/* ---- spinlock_t inherits priority ---- */

static struct {
	struct task *high;
	volatile int held, done;
	int boosted, after, high_prio, high_md, high_pc;
} inh;

static int inh_low(void *arg)
{
	spin_lock(&pre_lock);
	store_int(&inh.held, 1);
	wake_up_process(inh.high);
	ktest_poll_until(__atomic_load_n(&inh.high->pi_blocked_on,
					 __ATOMIC_ACQUIRE), 2000, POLL_SPIN);
	inh.boosted = task_prio(current);
	spin_unlock(&pre_lock);
	inh.after = task_prio(current);
	return 0;
}

static int inh_high(void *arg)
{
	spin_lock(&pre_lock);
	inh.high_prio = task_prio(current);
	inh.high_md = current->migration_disabled;
	inh.high_pc = preempt_count();
	spin_unlock(&pre_lock);
	store_int(&inh.done, 1);
	return 0;
}

/* low (10) holds a spinlock_t and high (50) on its CPU blocks on it: low
 * runs at 50 until it unlocks (spinlock_t is an rt_mutex on RT). */
KTEST(locks_rt, spinlock_holder_inherits_priority)
{
	struct task *low;
	int cpu = last_cpu();

	inh = (typeof(inh)){.boosted = -1, .after = -1, .high_prio = -1};
	spin_lock_init(&pre_lock);
	inh.high = ktest_spawn(inh_high, 0, "high", cpu, SCHED_FIFO, 50, false);
	KASSERT_TRUE(inh.high);
	low = ktest_spawn(inh_low, 0, "low", cpu, SCHED_FIFO, 10, true);
	KEXPECT_TRUE(ktest_poll_int(&inh.done, 1, 5000));
	ktest_join(low);
	ktest_join(inh.high);
	ktest_log("low at %d while high waits, %d after the unlock; high got "
		  "it at %d", inh.boosted, inh.after, inh.high_prio);
	KEXPECT_EQ(inh.boosted, 50);
	KEXPECT_EQ(inh.after, 10);
	KEXPECT_EQ(inh.high_prio, 50);
	KEXPECT_EQ(inh.high_md, 1);
	KEXPECT_EQ(inh.high_pc, 0);
}

/* ---- local_lock data under preemption on one CPU ---- */

#define PRE_TASKS 3

static struct {
	int cpu;
	volatile int stop;
	long count[PRE_TASKS];
	long found_held[PRE_TASKS];
	long preempted_inside[PRE_TASKS];
} lp;

static void lp_section(int me)
{
	struct pcp_counter *p;
	unsigned long sw;
	long v;

	if (spin_is_locked(this_cpu_ptr(&pcpc.lock)))
		lp.found_held[me]++; /* a holder here was preempted */
	local_lock(&pcpc.lock);
	p = this_cpu_ptr(&pcpc);
	sw = per_cpu(nr_switches, lp.cpu);
	if (p->inside)
		p->violations++;
	p->inside = 1;
	if (p->a != p->b)
		p->violations++;
	p->a = p->a + 1;
	v = p->counter;
	udelay(me == 0 ? 200 : 20);
	p->counter = v + 1;
	p->b = p->b + 1;
	p->inside = 0;
	if (per_cpu(nr_switches, lp.cpu) != sw)
		lp.preempted_inside[me]++;
	local_unlock(&pcpc.lock);
	lp.count[me]++;
}

/* 0: NORMAL, back to back; 1: FIFO 20, every ms; 2: FIFO 40, every
 * 700 us. */
static int lp_worker(void *arg)
{
	int me = (int)(long)arg;
	uint64_t t0 = ktime_get_ns();

	while (!load_int(&lp.stop) && ns_since(t0) < 10000 * NS_PER_MS) {
		lp_section(me);
		if (me == 1)
			msleep(1);
		else if (me == 2)
			usleep(700);
	}
	return 0;
}

/* Three tasks of different priorities on one CPU increment its copy of a
 * per-CPU counter under local_lock(), preempting each other inside the
 * lock (seen as context switches inside it) and blocking on it: the copy
 * stays exact and nobody finds another inside. */
KTEST(locks_rt, local_lock_data_consistent_under_preemption)
{
	static const int prio[PRE_TASKS] = {0, 20, 40};
	struct task *t[PRE_TASKS];
	struct pcp_counter *p;
	long total = 0, found = 0, inside = 0;

	lp = (typeof(lp)){.cpu = last_cpu()};
	p = raw_per_cpu_ptr(&pcpc, lp.cpu); /* no worker runs yet */
	p->counter = p->a = p->b = p->violations = 0;
	p->inside = 0;
	for (int i = 0; i < PRE_TASKS; i++)
		t[i] = ktest_spawn(lp_worker, (void *)(long)i, "lp", lp.cpu,
				   prio[i] ? SCHED_FIFO : SCHED_NORMAL, prio[i],
				   true);
	msleep(200);
	store_int(&lp.stop, 1);
	for (int i = 0; i < PRE_TASKS; i++)
		ktest_join(t[i]);
	for (int i = 0; i < PRE_TASKS; i++) {
		total += lp.count[i];
		found += lp.found_held[i];
		inside += lp.preempted_inside[i];
		KEXPECT_GT(lp.count[i], 5);
	}
	ktest_log("CPU %d: %ld, %ld, %ld sections (NORMAL, FIFO 20, FIFO 40); "
		  "%ld found it held, %ld switches inside", lp.cpu, lp.count[0],
		  lp.count[1], lp.count[2], found, inside);
	KEXPECT_EQ(p->counter, total);
	KEXPECT_EQ(p->a, total);
	KEXPECT_EQ(p->b, total);
	KEXPECT_EQ(p->violations, 0);
	KEXPECT_EQ(p->inside, 0);
	KEXPECT_GT(found, 0);
	KEXPECT_GT(inside, 0);
}

/* ---- the holder stays on its CPU ---- */

static struct {
	volatile int held, release, moved_self, done;
	int cpu0, target, after_cpu;
	long checks, wrong_cpu;
	unsigned long warnings_before, warnings_after;
} st;

static void st_check(void)
{
	if (raw_smp_processor_id() != st.cpu0 || smp_processor_id() != st.cpu0)
		st.wrong_cpu++;
	st.checks++;
}

static int st_holder(void *arg)
{
	uint64_t t0;
	int i = 0;

	spin_lock(&pre_lock);
	st.cpu0 = raw_smp_processor_id();
	st.target = (st.cpu0 + 1) % (int)num_online_cpus();
	st.warnings_before = smp_processor_id_warnings;
	store_int(&st.held, 1);
	t0 = ktime_get_ns();
	while (!load_int(&st.release) && ns_since(t0) < 10000 * NS_PER_MS) {
		msleep(1);
		st_check();
		spin_ns(NS_PER_MS);
		st_check();
		if (++i == 3) {
			/* Our own affinity, away from this CPU: pending. */
			set_cpus_allowed(current, cpumask_of(st.target));
			st_check();
			store_int(&st.moved_self, 1);
		}
	}
	st.warnings_after = smp_processor_id_warnings;
	spin_unlock(&pre_lock);
	st.after_cpu = raw_smp_processor_id();
	store_int(&st.done, 1);
	return 0;
}

static struct {
	int cpu;
	volatile int rounds;
} pr;

/* Preempts the holder on its CPU again and again. */
static int st_preempter(void *arg)
{
	for (int i = 0; i < 10; i++) {
		spin_ns(2 * NS_PER_MS);
		__atomic_fetch_add(&pr.rounds, 1, __ATOMIC_RELEASE);
		msleep(2);
	}
	return 0;
}

/* A FIFO 10 task holding a spinlock_t sleeps, is preempted by a FIFO 50
 * task on its CPU (with other CPUs idle: push/pull would move a
 * migratable task), changes its own affinity away and has it changed by
 * another task: it stays on its CPU (smp_processor_id() does not
 * complain) until the unlock, and leaves for its new CPU right there. */
KTEST_CPUS(locks_rt, spinlock_holder_never_changes_cpu, 2)
{
	struct task *holder, *preempter = 0;
	bool held;

	st = (typeof(st)){.cpu0 = -1, .after_cpu = -1};
	pr = (typeof(pr)){0};
	spin_lock_init(&pre_lock);
	holder = ktest_spawn(st_holder, 0, "holder", -1, SCHED_FIFO, 10, true);
	KASSERT_TRUE(holder);
	held = ktest_poll_int(&st.held, 1, 5000);
	KEXPECT_TRUE(held);
	if (held) {
		preempter = ktest_spawn(st_preempter, 0, "preempter", st.cpu0,
					SCHED_FIFO, 50, true);
		KEXPECT_TRUE(ktest_poll_int(&st.moved_self, 1, 5000));
		KEXPECT_TRUE(ktest_poll_int(&pr.rounds, 10, 5000));
		/* Remote affinity change to the same target, while held. */
		KEXPECT_EQ(set_cpus_allowed(holder, cpumask_of(st.target)), 0);
		msleep(5);
		KEXPECT_EQ(task_cpu(holder), st.cpu0);
	}
	store_int(&st.release, 1);
	KEXPECT_TRUE(ktest_poll_int(&st.done, 1, 5000));
	ktest_join(preempter);
	ktest_join(holder);
	ktest_log("holder on CPU %d for %ld checks (%ld elsewhere), preempted "
		  "%d times; after the unlock on CPU %d (target %d)", st.cpu0,
		  st.checks, st.wrong_cpu, pr.rounds, st.after_cpu, st.target);
	KEXPECT_GT(st.checks, 10);
	KEXPECT_EQ(st.wrong_cpu, 0);
	KEXPECT_EQ(st.warnings_after, st.warnings_before);
	KEXPECT_NE(st.after_cpu, st.cpu0);
	KEXPECT_EQ(st.after_cpu, st.target);
}

/* ---- the context a spinlock_t/local_lock_t holder runs in ---- */

struct ctx {
	int pc, md;
	bool irqs_off;
};

static struct ctx ctx_now(void)
{
	return (struct ctx){preempt_count(), current->migration_disabled,
			    irqs_disabled()};
}

/* Every form leaves preemption and IRQs on and migration off while held,
 * and everything as it was after. */
KTEST(locks_rt, held_context_preemptible_migration_disabled)
{
	struct ctx c0 = ctx_now(), c[6];
	unsigned long flags;
	bool tried;

	spin_lock_init(&pre_lock);
	spin_lock(&pre_lock);
	c[0] = ctx_now();
	spin_unlock(&pre_lock);
	spin_lock_irq(&pre_lock);
	c[1] = ctx_now();
	spin_unlock_irq(&pre_lock);
	spin_lock_irqsave(&pre_lock, flags);
	c[2] = ctx_now();
	spin_unlock_irqrestore(&pre_lock, flags);
	tried = spin_trylock(&pre_lock);
	c[3] = ctx_now();
	if (tried)
		spin_unlock(&pre_lock);
	local_lock(&pcpc.lock);
	c[4] = ctx_now();
	local_unlock(&pcpc.lock);
	local_lock_irqsave(&pcpc.lock, flags);
	c[5] = ctx_now();
	local_unlock_irqrestore(&pcpc.lock, flags);

	KEXPECT_TRUE(tried);
	for (int i = 0; i < 6; i++) {
		KEXPECT_EQ(c[i].pc, 0);
		KEXPECT_FALSE(c[i].irqs_off);
		KEXPECT_GT(c[i].md, c0.md);
	}
	ktest_log("migration disabled while held: spin_lock %d, local_lock %d",
		  c[0].md, c[4].md);
	KEXPECT_EQ(preempt_count(), c0.pc);
	KEXPECT_EQ(current->migration_disabled, c0.md);
	KEXPECT_FALSE(irqs_disabled());
	KEXPECT_FALSE(spin_is_locked(&pre_lock));
	KEXPECT_FALSE(spin_is_locked(this_cpu_ptr(&pcpc.lock)));
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
	run_holder_and_waker(LOCK_SPIN, 20000);
	expect_not_preempted_while_holding();
}

/* local_lock() disables preemption the same way. */
KTEST(locks_rt, local_lock_holder_not_preempted)
{
	run_holder_and_waker(LOCK_LOCAL, 20000);
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
	ktest_poll_until(this_cpu_read(cpu_ticks) != t1, 1000, POLL_SPIN);
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
