/*
 * The per-CPU access checker's LOCKDEP_PERCPU_UNPROTECTED scenarios, and
 * the suite's set-up (lockdep_percpu.h describes the suite).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_percpu.h"

KTEST_SUITE(lockdep_percpu, .init = lockdep_reset, .exit = lockdep_reset);

int touch_fn(void *arg)
{
	struct touch_job *j = arg;

	any_lock_acquire(&j->lock);
	TOUCH(this_cpu_ptr(j->var));
	any_lock_release(&j->lock);
	return 0;
}

struct sl_counter {
	spinlock_t lock;
	long n;
};

/* ======================= LOCKDEP_PERCPU_UNPROTECTED ======================= */

/* Preemptible, no lock: another task on this CPU may preempt the update
 * and make its own. */
static DEFINE_PER_CPU(long, pc_unprot);

KTEST(lockdep_percpu, unprotected_preemptible)
{
	TOUCH(this_cpu_ptr(&pc_unprot));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* One report per variable, however often it is accessed. */
static DEFINE_PER_CPU(long, pc_unprot_once);

KTEST(lockdep_percpu, unprotected_reported_once)
{
	for (int i = 0; i < 3; i++)
		TOUCH(this_cpu_ptr(&pc_unprot_once));
	TOUCH(per_cpu_ptr(&pc_unprot_once, raw_smp_processor_id()));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* per_cpu() of the running CPU's own copy is checked like this_cpu_ptr. */
static DEFINE_PER_CPU(long, pc_unprot_own);

KTEST(lockdep_percpu, unprotected_per_cpu_own_copy)
{
	per_cpu(pc_unprot_own, raw_smp_processor_id())++;
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* migrate_disable() keeps the task on the CPU, but another task on the
 * same CPU can still preempt it: no protection. */
static DEFINE_PER_CPU(long, pc_migr);

KTEST(lockdep_percpu, unprotected_migrate_disable_only)
{
	migrate_disable();
	TOUCH(this_cpu_ptr(&pc_migr));
	migrate_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* smp_processor_id() is fine with migration disabled; the data access
 * that follows is still unprotected. */
static DEFINE_PER_CPU(long, pc_migr_id);

KTEST_CPUS(lockdep_percpu, unprotected_after_cpu_id_migrate_disabled, 2)
{
	int cpu;

	KEXPECT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
	migrate_disable();
	cpu = smp_processor_id();
	per_cpu(pc_migr_id, cpu)++;
	migrate_enable();
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_PREEMPTIBLE_CPU_ID), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* Another CPU's copy: preemption and IRQs off here protect nothing there. */
static DEFINE_PER_CPU(long, pc_remote);

KTEST_CPUS(lockdep_percpu, unprotected_remote, 2)
{
	per_cpu(pc_remote, last_cpu())++;
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

static DEFINE_PER_CPU(long, pc_remote_preempt);

KTEST_CPUS(lockdep_percpu, unprotected_remote_preempt_disabled, 2)
{
	preempt_disable();
	TOUCH(per_cpu_ptr(&pc_remote_preempt, last_cpu()));
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

static DEFINE_PER_CPU(long, pc_remote_irqs);

KTEST_CPUS(lockdep_percpu, unprotected_remote_irqs_disabled, 2)
{
	unsigned long flags;

	local_irq_save(flags);
	per_cpu(pc_remote_irqs, last_cpu())++;
	local_irq_restore(flags);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A per-CPU lock protects its own CPU's copy only. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_wrong) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_wrong.lock)};

KTEST_CPUS(lockdep_percpu, unprotected_remote_other_cpus_lock, 2)
{
	int c = 0, d = last_cpu();

	spin_lock(per_cpu_ptr(&pc_sl_wrong.lock, c));
	per_cpu(pc_sl_wrong, d).n++;
	spin_unlock(per_cpu_ptr(&pc_sl_wrong.lock, c));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* This CPU's local_lock does not protect another CPU's copy. */
static DEFINE_PER_CPU(struct ll_counter, pc_ll_remote) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST_CPUS(lockdep_percpu, unprotected_remote_under_local_lock, 2)
{
	local_lock(&pc_ll_remote.lock);
	per_cpu(pc_ll_remote, last_cpu()).n++;
	local_unlock(&pc_ll_remote.lock);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* --- protected: silent --- */

static DEFINE_PER_CPU(long, pc_get_cpu_var);

KTEST(lockdep_percpu, get_cpu_var_silent)
{
	for (int i = 0; i < 2; i++) {
		get_cpu_var(pc_get_cpu_var)++;
		put_cpu_var(pc_get_cpu_var);
	}
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_preempt);

KTEST(lockdep_percpu, preempt_disable_silent)
{
	preempt_disable();
	TOUCH(this_cpu_ptr(&pc_preempt));
	preempt_enable();
	preempt_disable();
	per_cpu(pc_preempt, raw_smp_processor_id())++;
	preempt_enable();
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_irqs_off);

KTEST(lockdep_percpu, irqs_disabled_silent)
{
	unsigned long flags;

	local_irq_save(flags);
	TOUCH(this_cpu_ptr(&pc_irqs_off));
	local_irq_restore(flags);
	local_irq_disable();
	TOUCH(this_cpu_ptr(&pc_irqs_off));
	local_irq_enable();
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_raw);
static DEFINE_RAW_SPINLOCK(pc_raw_lock);

KTEST(lockdep_percpu, raw_spinlock_silent)
{
	for (int i = 0; i < 2; i++) {
		raw_spin_lock(&pc_raw_lock);
		TOUCH(this_cpu_ptr(&pc_raw));
		raw_spin_unlock(&pc_raw_lock);
	}
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(struct ll_counter, pc_ll) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep_percpu, local_lock_silent)
{
	unsigned long flags;

	local_lock(&pc_ll.lock);
	this_cpu_ptr(&pc_ll)->n++;
	local_unlock(&pc_ll.lock);
	local_lock_irqsave(&pc_ll.lock, flags);
	this_cpu_ptr(&pc_ll)->n++;
	local_unlock_irqrestore(&pc_ll.lock, flags);
	KEXPECT_LOCKDEP_NONE();
}

/* Every CPU's task under its own CPU's local_lock: one class, each copy
 * under its own lock. */
static DEFINE_PER_CPU(struct ll_counter, pc_ll_all) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static int ll_all_fn(void *arg)
{
	for (int i = 0; i < 2; i++) {
		local_lock(&pc_ll_all.lock);
		this_cpu_ptr(&pc_ll_all)->n++;
		local_unlock(&pc_ll_all.lock);
	}
	return 0;
}

KTEST_CPUS(lockdep_percpu, local_lock_all_cpus_silent, 2)
{
	static struct task *t[NR_CPUS];
	int cpu;

	for_each_online_cpu(cpu)
		t[cpu] = ktest_spawn_on(cpu, ll_all_fn, 0, "ld-ll");
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_join(t[cpu]);
	KEXPECT_LOCKDEP_NONE();
}

/* One global spinlock_t for every access, from every CPU. */
static DEFINE_PER_CPU(long, pc_global);
static DEFINE_SPINLOCK(pc_global_lock);

KTEST_CPUS(lockdep_percpu, global_spinlock_all_cpus_silent, 2)
{
	struct touch_job j = {&pc_global, ANY_LOCK(LOCK_SPIN, &pc_global_lock)};
	int cpu;

	touch_fn(&j);
	for_each_online_cpu(cpu)
		ktest_run_on(cpu, touch_fn, &j, "ld-touch");
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_mutex);
static DEFINE_MUTEX(pc_mutex_lock);

KTEST_CPUS(lockdep_percpu, global_mutex_all_cpus_silent, 2)
{
	struct touch_job j = {&pc_mutex, ANY_LOCK(LOCK_MUTEX, &pc_mutex_lock)};
	int cpu;

	for_each_online_cpu(cpu)
		ktest_run_on(cpu, touch_fn, &j, "ld-touch");
	touch_fn(&j);
	KEXPECT_LOCKDEP_NONE();
}

/* Another CPU's copy under that CPU's lock (the lock in the same per-CPU
 * struct), and under a global lock: both protected. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_right) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_right.lock)};

KTEST_CPUS(lockdep_percpu, remote_under_its_own_lock_silent, 2)
{
	int cpu;

	for_each_online_cpu(cpu) {
		spin_lock(per_cpu_ptr(&pc_sl_right.lock, cpu));
		per_cpu(pc_sl_right, cpu).n++;
		spin_unlock(per_cpu_ptr(&pc_sl_right.lock, cpu));
	}
	KEXPECT_LOCKDEP_NONE();
}

/* The same lock reached through the variable, as Linux code often does:
 * spin_lock(&per_cpu(v, cpu).lock). Forming that address is not an
 * unprotected access of v: the lock inside it is taken next. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_via) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_via.lock)};

KTEST_CPUS(lockdep_percpu, lock_reached_through_variable_silent, 2)
{
	int cpu;

	for_each_online_cpu(cpu) {
		spin_lock(&per_cpu(pc_sl_via, cpu).lock);
		per_cpu(pc_sl_via, cpu).n++;
		spin_unlock(&per_cpu(pc_sl_via, cpu).lock);
		spin_lock(&per_cpu_ptr(&pc_sl_via, cpu)->lock);
		per_cpu_ptr(&pc_sl_via, cpu)->n++;
		spin_unlock(&per_cpu_ptr(&pc_sl_via, cpu)->lock);
	}
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock of the lock inside the variable excuses forming its address
 * too, even when it fails (here: held already). */
struct raw_counter {
	raw_spinlock_t lock;
	long n;
};
static DEFINE_PER_CPU(struct raw_counter, pc_try_via) = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(pc_try_via.lock)};

KTEST_CPUS(lockdep_percpu, failed_trylock_through_variable_silent, 2)
{
	int c = last_cpu();

	raw_spin_lock(&per_cpu(pc_try_via, c).lock);
	KEXPECT_FALSE(raw_spin_trylock(&per_cpu(pc_try_via, c).lock));
	per_cpu(pc_try_via, c).n++;
	raw_spin_unlock(&per_cpu(pc_try_via, c).lock);
	KEXPECT_LOCKDEP_NONE();
}

/* But a lock that is not inside the variable does not excuse it: the
 * unprotected access is reported when the other lock is taken. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_held_back);
static DEFINE_SPINLOCK(pc_sl_unrelated);

KTEST_CPUS(lockdep_percpu, unprotected_then_unrelated_lock, 2)
{
	struct sl_counter *p;

	p = per_cpu_ptr(&pc_sl_held_back, last_cpu());
	spin_lock(&pc_sl_unrelated);
	KEXPECT_EQ(lockdep_reports_total(), 1);
	spin_unlock(&pc_sl_unrelated);
	(void)p;
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A lock inside another CPU's copy does not excuse an access of this
 * CPU's copy. */
static DEFINE_PER_CPU(struct sl_counter, pc_sl_wrong_copy) = {
	.lock = __SPIN_LOCK_UNLOCKED(pc_sl_wrong_copy.lock)};

KTEST_CPUS(lockdep_percpu, lock_of_another_copy_reported, 2)
{
	spinlock_t *other = per_cpu_ptr(&pc_sl_wrong_copy.lock, last_cpu());
	struct sl_counter *mine;

	migrate_disable();
	mine = this_cpu_ptr(&pc_sl_wrong_copy);
	spin_lock(other);
	spin_unlock(other);
	migrate_enable();
	(void)mine;
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* A helper's unprotected access, then complete(): counted by the time the
 * test is woken, before the helper has exited. */
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
	struct task *t;

	init_completion(&pc_done);
	init_completion(&pc_release);
	t = ktest_spawn_on(last_cpu(), unprotected_then_complete_fn, 0,
			   "ld-complete");
	KASSERT_TRUE(t);
	wait_for_completion(&pc_done);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
	complete(&pc_release);
	kthread_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

static DEFINE_PER_CPU(long, pc_remote_global);
static DEFINE_SPINLOCK(pc_remote_global_lock);

KTEST_CPUS(lockdep_percpu, remote_under_global_lock_silent, 2)
{
	spin_lock(&pc_remote_global_lock);
	per_cpu(pc_remote_global, last_cpu())++;
	TOUCH(this_cpu_ptr(&pc_remote_global));
	spin_unlock(&pc_remote_global_lock);
	KEXPECT_LOCKDEP_NONE();
}

/* --- not checked at all --- */

/* DEFINE_PER_CPU_STAT: statistics where a lost update is acceptable. */
static DEFINE_PER_CPU_STAT(long, pc_stat);

KTEST(lockdep_percpu, stat_variable_unchecked)
{
	TOUCH(this_cpu_ptr(&pc_stat));
	per_cpu(pc_stat, last_cpu())++;
	TOUCH(per_cpu_ptr(&pc_stat, 0));
	KEXPECT_LOCKDEP_NONE();
}

/* One-instruction operations and raw_cpu_ptr() are not checked. */
static DEFINE_PER_CPU(long, pc_ops);

KTEST(lockdep_percpu, this_cpu_ops_unchecked)
{
	long v;

	this_cpu_inc(pc_ops);
	this_cpu_add(pc_ops, 2);
	this_cpu_dec(pc_ops);
	__this_cpu_inc(pc_ops);
	v = this_cpu_read(pc_ops);
	this_cpu_write(pc_ops, v + 1);
	TOUCH(raw_cpu_ptr(&pc_ops));
	TOUCH(raw_per_cpu_ptr(&pc_ops, 0));
	KEXPECT_LOCKDEP_NONE();
}

/* Forming a pointer to a per-CPU lock is not a data access. */
struct pc_locks {
	raw_spinlock_t raw;
	spinlock_t spin;
	struct mutex mutex;
	long n;
};
static DEFINE_PER_CPU(struct pc_locks, pc_locks) = {
	.raw = __RAW_SPIN_LOCK_UNLOCKED(pc_locks.raw),
	.spin = __SPIN_LOCK_UNLOCKED(pc_locks.spin),
	.mutex = __MUTEX_INITIALIZER(pc_locks.mutex)};
static DEFINE_PER_CPU(struct ll_counter, pc_ll_ptr) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep_percpu, lock_pointer_unchecked)
{
	int cpu, locked = 0;

	for_each_online_cpu(cpu) {
		locked += raw_spin_is_locked(per_cpu_ptr(&pc_locks.raw, cpu));
		locked += spin_is_locked(per_cpu_ptr(&pc_locks.spin, cpu));
		locked += mutex_is_locked(per_cpu_ptr(&pc_locks.mutex, cpu));
		(void)per_cpu_ptr(&pc_ll_ptr.lock, cpu);
	}
	(void)this_cpu_ptr(&pc_locks.spin);
	(void)this_cpu_ptr(&pc_ll_ptr.lock);
	KEXPECT_EQ(locked, 0);
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
