/*
 * What a holder of a sleeping spinlock_t or local_lock_t may and may not
 * do on RT=1 (kernel/locking/spinlock.h, local_lock.h): it inherits the
 * priority of a task that blocks on it; several tasks on one CPU
 * preempting each other inside the lock keep that CPU's local_lock data
 * consistent; it never leaves its CPU (not by sleeping, preemption, RT
 * push/pull or an affinity change) until it unlocks; and every form
 * leaves it preemptible with migration off. Helper tasks only record;
 * the test task checks after joining them.
 */
#ifdef CONFIG_PREEMPT_RT

#include <stdbool.h>
#include <stdint.h>

#include "asm/processor.h"
#include "cpumask.h"
#include "delay.h"
#include "guarded.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "percpu.h"
#include "preempt.h"
#include "rwonce.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

struct pcp_counter {
	local_lock_t lock;
	struct guarded data;
};

static DEFINE_PER_CPU(struct pcp_counter, pcpc) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(pre_lock);

static void spin_ns(uint64_t ns)
{
	uint64_t t0 = ktime_get_ns();

	while (ns_since(t0) < ns)
		cpu_relax();
}

/* ---- spinlock_t inherits priority ---- */

static struct {
	struct task_struct *high;
	volatile int held, done;
	int boosted, after, high_prio, high_md, high_pc;
} inh;

static int inh_low(void *arg)
{
	spin_lock(&pre_lock);
	store_int(&inh.held, 1);
	wake_up_process(inh.high);
	ktest_poll_until(__atomic_load_n(&inh.high->pi_blocked_on,
					 __ATOMIC_ACQUIRE),
			 KTEST_WAIT_MS, POLL_SPIN);
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
	struct task_struct *low;
	int cpu = last_cpu();

	inh = (typeof(inh)){.boosted = -1, .after = -1, .high_prio = -1};
	spin_lock_init(&pre_lock);
	inh.high = ktest_spawn(inh_high, 0, "high", cpu, SCHED_FIFO, 50, false);
	KASSERT_TRUE(inh.high);
	low = ktest_spawn(inh_low, 0, "low", cpu, SCHED_FIFO, 10, true);
	KEXPECT_TRUE(ktest_poll_int(&inh.done, 1, KTEST_WAIT_MS));
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
#define PRE_MIN_SECTIONS 6       /* by each task, before the test ends */

static struct {
	int cpu;
	volatile int stop;
	long count[PRE_TASKS];           /* each written by its task only */
	long found_held[PRE_TASKS];
	long preempted_inside[PRE_TASKS];
} lp;

static void lp_section(int me)
{
	struct pcp_counter *p;
	unsigned long sw;

	if (spin_is_locked(this_cpu_ptr(&pcpc.lock))) /* holder preempted */
		WRITE_ONCE(lp.found_held[me], lp.found_held[me] + 1);
	local_lock(&pcpc.lock);
	p = this_cpu_ptr(&pcpc);
	sw = per_cpu(nr_switches, lp.cpu);
	guarded_enter(&p->data);
	guarded_update(&p->data, 0, me == 0 ? 200 : 20);
	guarded_leave(&p->data);
	if (per_cpu(nr_switches, lp.cpu) != sw)
		WRITE_ONCE(lp.preempted_inside[me],
			   lp.preempted_inside[me] + 1);
	local_unlock(&pcpc.lock);
	WRITE_ONCE(lp.count[me], lp.count[me] + 1);
}

/* 0: NORMAL, back to back; 1: FIFO 20, every ms; 2: FIFO 40, every
 * 700 us. */
static int lp_worker(void *arg)
{
	int me = (int)(long)arg;
	unsigned long test = ktest_number();

	while (!load_int(&lp.stop) && !ktest_ended(test)) {
		lp_section(me);
		if (me == 1)
			msleep(1);
		else if (me == 2)
			usleep(700);
	}
	return 0;
}

/* What the test waits for (the events, not a time): each task made its
 * sections, one found the lock held by a preempted holder, and one was
 * switched out inside. */
static bool lp_seen_enough(void)
{
	long found = 0, inside = 0;

	for (int i = 0; i < PRE_TASKS; i++) {
		if (READ_ONCE(lp.count[i]) < PRE_MIN_SECTIONS)
			return false;
		found += READ_ONCE(lp.found_held[i]);
		inside += READ_ONCE(lp.preempted_inside[i]);
	}
	return found && inside;
}

/* Three tasks of different priorities on one CPU increment its copy of a
 * per-CPU counter under local_lock(), preempting each other inside the
 * lock (seen as context switches inside it) and blocking on it: the copy
 * stays exact and nobody finds another inside. */
KTEST(locks_rt, local_lock_data_consistent_under_preemption)
{
	static const int prio[PRE_TASKS] = {0, 20, 40};
	struct task_struct *t[PRE_TASKS];
	struct pcp_counter *p;
	long total = 0, found = 0, inside = 0;

	lp = (typeof(lp)){.cpu = last_cpu()};
	p = raw_per_cpu_ptr(&pcpc, lp.cpu); /* no worker runs yet */
	guarded_reset(&p->data);
	for (int i = 0; i < PRE_TASKS; i++)
		t[i] = ktest_spawn(lp_worker, (void *)(long)i, "lp", lp.cpu,
				   prio[i] ? SCHED_FIFO : SCHED_NORMAL, prio[i],
				   true);
	ktest_poll_until(lp_seen_enough(), KTEST_WAIT_MS, POLL_SLEEP);
	store_int(&lp.stop, 1);
	for (int i = 0; i < PRE_TASKS; i++)
		ktest_join(t[i]);
	for (int i = 0; i < PRE_TASKS; i++) {
		total += lp.count[i];
		found += lp.found_held[i];
		inside += lp.preempted_inside[i];
		KEXPECT_GE(lp.count[i], PRE_MIN_SECTIONS);
	}
	ktest_log("CPU %d: %ld, %ld, %ld sections (NORMAL, FIFO 20, FIFO 40); "
		  "%ld found it held, %ld switches inside", lp.cpu, lp.count[0],
		  lp.count[1], lp.count[2], found, inside);
	KEXPECT_GUARDED(&p->data, total);
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
	WRITE_ONCE(st.checks, st.checks + 1); /* the test waits for them */
}

static int st_holder(void *arg)
{
	unsigned long test = ktest_number();
	int i = 0;

	spin_lock(&pre_lock);
	st.cpu0 = raw_smp_processor_id();
	st.target = (st.cpu0 + 1) % (int)num_online_cpus();
	st.warnings_before = atomic_long_read(&smp_processor_id_warnings);
	store_int(&st.held, 1);
	while (!load_int(&st.release) && !ktest_ended(test)) {
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
	st.warnings_after = atomic_long_read(&smp_processor_id_warnings);
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
	struct task_struct *holder, *preempter = 0;
	bool held;

	st = (typeof(st)){.cpu0 = -1, .after_cpu = -1};
	pr = (typeof(pr)){0};
	spin_lock_init(&pre_lock);
	holder = ktest_spawn(st_holder, 0, "holder", -1, SCHED_FIFO, 10, true);
	KASSERT_TRUE(holder);
	held = ktest_poll_int(&st.held, 1, KTEST_WAIT_MS);
	KEXPECT_TRUE(held);
	if (held) {
		preempter = ktest_spawn(st_preempter, 0, "preempter", st.cpu0,
					SCHED_FIFO, 50, true);
		KEXPECT_TRUE(ktest_poll_int(&st.moved_self, 1, KTEST_WAIT_MS));
		KEXPECT_TRUE(ktest_poll_int(&pr.rounds, 10, KTEST_WAIT_MS));
		KEXPECT_TRUE(ktest_poll_until(READ_ONCE(st.checks) > 10,
					      KTEST_WAIT_MS, POLL_SLEEP));
		/* Remote affinity change to the same target, while held. */
		KEXPECT_EQ(set_cpus_allowed(holder, cpumask_of(st.target)), 0);
		msleep(5);
		KEXPECT_EQ(task_cpu(holder), st.cpu0);
	}
	store_int(&st.release, 1);
	KEXPECT_TRUE(ktest_poll_int(&st.done, 1, KTEST_WAIT_MS));
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

/* Every form of spinlock_t and local_lock_t, and spin_trylock(), leave
 * preemption and IRQs on and migration off while held (what the
 * lock-kind table says), and everything as it was after. */
KTEST(locks_rt, held_context_preemptible_migration_disabled)
{
	struct any_lock locks[] = {ANY_LOCK(LOCK_SPIN, &pre_lock),
				   ANY_LOCK(LOCK_LOCAL, &pcpc.lock)};
	struct lock_ctx c0 = lock_ctx_now(), c, none = {0};
	bool tried;

	spin_lock_init(&pre_lock);
	for (unsigned int i = 0; i < ARRAY_SIZE(locks); i++) {
		for (locks[i].form = 0; locks[i].form < NR_LOCK_FORMS;
		     locks[i].form++) {
			any_lock_acquire(&locks[i]);
			c = lock_ctx_now();
			any_lock_release(&locks[i]);
			KEXPECT_EQ(c.preempt, 0);
			KEXPECT_FALSE(c.irqs_off);
			KEXPECT_GT(c.migrate, c0.migrate);
			KEXPECT_HELD_CTX(c, c0, any_lock_held_ctx(&locks[i]));
		}
		ktest_log("%s: migration disabled %d while held",
			  any_lock_ops(&locks[i])->name, c.migrate);
	}
	tried = spin_trylock(&pre_lock);
	c = lock_ctx_now();
	if (tried)
		spin_unlock(&pre_lock);
	KEXPECT_TRUE(tried);
	KEXPECT_HELD_CTX(c, c0, &lock_kinds[LOCK_SPIN].held[LOCK_PLAIN]);
	c = lock_ctx_now();
	KEXPECT_HELD_CTX(c, c0, &none);
	KEXPECT_FALSE(spin_is_locked(&pre_lock));
	KEXPECT_FALSE(spin_is_locked(this_cpu_ptr(&pcpc.lock)));
}

#endif /* CONFIG_PREEMPT_RT */
