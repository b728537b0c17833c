/*
 * The per-CPU access checker's LOCKDEP_PERCPU_UNPROTECTED scenarios: a
 * copy reached by two contexts, one of them without a protection that
 * covers it; and the suite's set-up and rivals (lockdep_percpu.h
 * describes the suite).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_percpu.h"

KTEST_SUITE(lockdep_percpu, .init = lockdep_reset, .exit = lockdep_reset);

static volatile int rival_done;

void rival_made_access(void)
{
	lockdep_percpu_flush(); /* a held-back access is counted first */
	store_int(&rival_done, 1);
}

void touch(struct touch_job *j)
{
	unsigned long flags = 0;

	if (j->guard == GUARD_PREEMPT)
		preempt_disable();
	else if (j->guard == GUARD_IRQS)
		local_irq_save(flags);
	else if (j->guard == GUARD_MIGRATE)
		migrate_disable();
	else if (j->guard == GUARD_LOCK)
		any_lock_acquire(&j->lock);
	TOUCH(this_cpu_ptr(j->var));
	if (j->guard == GUARD_PREEMPT)
		preempt_enable();
	else if (j->guard == GUARD_IRQS)
		local_irq_restore(flags);
	else if (j->guard == GUARD_MIGRATE)
		migrate_enable();
	else if (j->guard == GUARD_LOCK)
		any_lock_release(&j->lock);
}

int touch_fn(void *arg)
{
	touch(arg);
	rival_made_access();
	return 0;
}

void touch_against(struct touch_job rival, struct touch_job mine)
{
	struct task_struct *t = rival_start(0, touch_fn, &rival);

	touch(&mine);
	ktest_join(t);
}

struct task_struct *rival_start(int cpu, int (*fn)(void *), void *arg)
{
	struct task_struct *t;

	store_int(&rival_done, 0);
	t = ktest_spawn(fn, arg, "ld-rival", cpu, SCHED_FIFO, 10, true);
	if (t && !ktest_poll_until(load_int(&rival_done), KTEST_WAIT_MS,
				   POLL_SPIN))
		ktest_fail_msg(__FILE__, __LINE__, "the rival made no access");
	return t;
}

int rival_run_path(void *path)
{
	((struct rival_path *)path)->path();
	rival_made_access();
	return 0;
}

/* ======================= LOCKDEP_PERCPU_UNPROTECTED ======================= */

/* Preemptible, no lock: another task on this CPU may preempt the update
 * and make its own. */
static DEFINE_PER_CPU(long, pc_unprot);

KTEST(lockdep_percpu, unprotected_preemptible)
{
	struct task_struct *t = rival_start(0, touch_fn, &BARE_JOB(&pc_unprot));

	TOUCH(this_cpu_ptr(&pc_unprot));
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* One report per variable, however often it is accessed. */
static DEFINE_PER_CPU(long, pc_unprot_once);

KTEST(lockdep_percpu, unprotected_reported_once)
{
	struct task_struct *t = rival_start(0, touch_fn, &BARE_JOB(&pc_unprot_once));

	for (int i = 0; i < 3; i++)
		TOUCH(this_cpu_ptr(&pc_unprot_once));
	per_cpu(pc_unprot_once, raw_smp_processor_id())++;
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* per_cpu() of the running CPU's own copy is checked like this_cpu_ptr. */
static DEFINE_PER_CPU(long, pc_unprot_own);

KTEST(lockdep_percpu, unprotected_per_cpu_own_copy)
{
	struct task_struct *t = rival_start(0, touch_fn, &BARE_JOB(&pc_unprot_own));

	per_cpu(pc_unprot_own, raw_smp_processor_id())++;
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A copy only one task ever reaches needs no protection, and neither
 * does one handed on through the kernel's own orderings: set up before
 * the workers start, used by each, read after each is joined. */
static DEFINE_PER_CPU(long, pc_handoff);

static int handoff_worker(void *arg)
{
	TOUCH(this_cpu_ptr(&pc_handoff));
	return 0;
}

KTEST(lockdep_percpu, owned_and_handed_on_silent)
{
	static struct task_struct *t[NR_CPUS];
	long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		per_cpu(pc_handoff, cpu) = 0;
	for_each_online_cpu(cpu)
		t[cpu] = ktest_spawn_on(cpu, handoff_worker, 0, "ld-handoff");
	for_each_online_cpu(cpu)
		ktest_join(t[cpu]);
	for_each_online_cpu(cpu)
		sum += per_cpu(pc_handoff, cpu);
	KEXPECT_EQ(sum, (long)num_online_cpus());
	KEXPECT_LOCKDEP_NONE();
}

/* migrate_disable() keeps the task on the CPU, but another task on the
 * same CPU can still preempt it: no protection. */
static DEFINE_PER_CPU(long, pc_migr);

KTEST(lockdep_percpu, unprotected_migrate_disable_only)
{
	struct task_struct *t = rival_start(0, touch_fn, &MIGRATE_OFF_JOB(&pc_migr));

	migrate_disable();
	TOUCH(this_cpu_ptr(&pc_migr));
	migrate_enable();
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* smp_processor_id() is fine with migration disabled; the data access
 * that follows is still unprotected. */
static DEFINE_PER_CPU(long, pc_migr_id);

KTEST_CPUS(lockdep_percpu, unprotected_after_cpu_id_migrate_disabled, 2)
{
	struct task_struct *t;
	int cpu;

	KEXPECT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
	migrate_disable();
	cpu = smp_processor_id();
	t = rival_start(cpu, touch_fn, &BARE_JOB(&pc_migr_id));
	per_cpu(pc_migr_id, cpu)++;
	migrate_enable();
	ktest_join(t);
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_PREEMPTIBLE_CPU_ID), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* Another CPU's copy: preemption and IRQs off here protect nothing there. */
static DEFINE_PER_CPU(long, pc_remote);

/* The owner of each copy below uses it with preemption off, which is
 * enough on its CPU and nothing against another CPU. */
KTEST_CPUS(lockdep_percpu, unprotected_remote, 2)
{
	struct task_struct *t = rival_start(last_cpu(), touch_fn,
				     &PREEMPT_OFF_JOB(&pc_remote));

	per_cpu(pc_remote, last_cpu())++;
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

static DEFINE_PER_CPU(long, pc_remote_preempt);

KTEST_CPUS(lockdep_percpu, unprotected_remote_preempt_disabled, 2)
{
	struct task_struct *t = rival_start(last_cpu(), touch_fn,
				     &PREEMPT_OFF_JOB(&pc_remote_preempt));

	preempt_disable();
	per_cpu(pc_remote_preempt, last_cpu())++;
	preempt_enable();
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

static DEFINE_PER_CPU(long, pc_remote_irqs);

KTEST_CPUS(lockdep_percpu, unprotected_remote_irqs_disabled, 2)
{
	struct task_struct *t = rival_start(last_cpu(), touch_fn,
				     &PREEMPT_OFF_JOB(&pc_remote_irqs));
	unsigned long flags;

	local_irq_save(flags);
	per_cpu(pc_remote_irqs, last_cpu())++;
	local_irq_restore(flags);
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A per-CPU lock protects its own CPU's copy only. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_wrong) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_wrong.lock)};

/* The owner of CPU d's copy, under the lock inside it. */
static int sl_wrong_owner(void *arg)
{
	spin_lock(this_cpu_ptr(&pc_sl_wrong.lock));
	this_cpu_ptr(&pc_sl_wrong)->n++;
	spin_unlock(this_cpu_ptr(&pc_sl_wrong.lock));
	rival_made_access();
	return 0;
}

KTEST_CPUS(lockdep_percpu, unprotected_remote_other_cpus_lock, 2)
{
	int c = 0, d = last_cpu();
	struct task_struct *t = rival_start(d, sl_wrong_owner, 0);

	spin_lock(per_cpu_ptr(&pc_sl_wrong.lock, c));
	per_cpu(pc_sl_wrong, d).n++;
	spin_unlock(per_cpu_ptr(&pc_sl_wrong.lock, c));
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* This CPU's local_lock does not protect another CPU's copy. */
static DEFINE_PER_CPU(struct ll_counter, pc_ll_remote) = {
	.lock = INIT_LOCAL_LOCK(lock)};

/* The owner of the last CPU's copy, under that CPU's local_lock. */
static int ll_remote_owner(void *arg)
{
	local_lock(&pc_ll_remote.lock);
	this_cpu_ptr(&pc_ll_remote)->n++;
	local_unlock(&pc_ll_remote.lock);
	rival_made_access();
	return 0;
}

KTEST_CPUS(lockdep_percpu, unprotected_remote_under_local_lock, 2)
{
	struct task_struct *t = rival_start(last_cpu(), ll_remote_owner, 0);

	local_lock(&pc_ll_remote.lock);
	per_cpu(pc_ll_remote, last_cpu()).n++;
	local_unlock(&pc_ll_remote.lock);
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* But a lock that is not inside the variable does not excuse it: the
 * unprotected access is reported when the other lock is taken. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_held_back);
static DEFINE_SPINLOCK(pc_sl_unrelated);

static int held_back_owner(void *arg)
{
	preempt_disable();
	this_cpu_ptr(&pc_sl_held_back)->n++;
	preempt_enable();
	rival_made_access();
	return 0;
}

KTEST_CPUS(lockdep_percpu, unprotected_then_unrelated_lock, 2)
{
	struct task_struct *t = rival_start(last_cpu(), held_back_owner, 0);
	struct sl_counter *p;

	p = &per_cpu(pc_sl_held_back, last_cpu());
	spin_lock(&pc_sl_unrelated);
	KEXPECT_EQ(lockdep_reports_total(), 1);
	spin_unlock(&pc_sl_unrelated);
	(void)p;
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A lock inside another CPU's copy does not excuse an access of this
 * CPU's copy (whose rival, on this CPU, used it unprotected). */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_wrong_copy) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_wrong_copy.lock)};

static int wrong_copy_rival(void *arg)
{
	this_cpu_ptr(&pc_sl_wrong_copy)->n++;
	rival_made_access();
	return 0;
}

KTEST_CPUS(lockdep_percpu, lock_of_another_copy_reported, 2)
{
	spinlock_t *other = per_cpu_ptr(&pc_sl_wrong_copy.lock, last_cpu());
	struct task_struct *t = rival_start(0, wrong_copy_rival, 0);
	struct sl_counter *mine;

	migrate_disable();
	mine = this_cpu_ptr(&pc_sl_wrong_copy);
	spin_lock(other);
	spin_unlock(other);
	migrate_enable();
	(void)mine;
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A helper's unprotected access, then complete(): counted by the time the
 * test is woken, before the helper has exited. A rival on the helper's
 * CPU, started after the helper was made and before it runs, uses the
 * same copy: nothing orders the two. */
static DEFINE_PER_CPU(long, pc_before_complete);
static struct completion pc_done, pc_release;

static int unprotected_then_complete_fn(void *arg)
{
	TOUCH(this_cpu_ptr(&pc_before_complete));
	complete(&pc_done);
	wait_for_completion(&pc_release);
	return 0;
}

KTEST_CPUS(lockdep_percpu, unprotected_counted_at_wakeup, 2)
{
	struct task_struct *t, *r;

	init_completion(&pc_done);
	init_completion(&pc_release);
	t = ktest_spawn(unprotected_then_complete_fn, 0, "ld-complete",
			last_cpu(), SCHED_NORMAL, 0, false);
	r = rival_start(last_cpu(), touch_fn, &BARE_JOB(&pc_before_complete));
	if (t)
		wake_up_process(t);
	KASSERT_TRUE(t);
	wait_for_completion(&pc_done);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
	complete(&pc_release);
	kthread_join(t);
	ktest_join(r);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

#endif /* CONFIG_LOCKDEP */
