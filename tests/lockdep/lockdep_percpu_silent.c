/*
 * The per-CPU access checker's silent cases: accesses protected by
 * preemption or IRQs off, a raw spinlock, a local_lock, one global lock,
 * or the lock inside the copy itself, and what it does not check at all
 * (lockdep_percpu.h describes the suite).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_percpu.h"

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
	static struct task_struct *t[NR_CPUS];
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
	struct touch_job j =
		LOCKED_JOB(&pc_global, ANY_LOCK(LOCK_SPIN, &pc_global_lock));
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
	struct touch_job j =
		LOCKED_JOB(&pc_mutex, ANY_LOCK(LOCK_MUTEX, &pc_mutex_lock));
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

/* One-instruction operations and raw_cpu_ptr() are not checked, and
 * neither is a read followed by an operation that cannot lose an update
 * (add changes the value in place; cmpxchg fails if it changed). */
static DEFINE_PER_CPU(long, pc_ops);

KTEST(lockdep_percpu, this_cpu_ops_unchecked)
{
	long v;

	this_cpu_inc(pc_ops);
	this_cpu_add(pc_ops, 2);
	this_cpu_dec(pc_ops);
	v = this_cpu_read(pc_ops);
	this_cpu_add(pc_ops, v);
	do {
		v = this_cpu_read(pc_ops);
	} while (this_cpu_cmpxchg(pc_ops, v, v + 1) != v);
	TOUCH(raw_cpu_ptr(&pc_ops));
	TOUCH(raw_per_cpu_ptr(&pc_ops, 0));
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
