/*
 * The per-CPU access checker's this_cpu rules: a this_cpu read and a
 * dependent write are one update only inside one protected section; the
 * __this_cpu_* tier needs a caller that keeps the CPU; forming a pointer
 * to a per-CPU lock is no data access (lockdep_percpu.h describes the
 * suite).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_percpu.h"

/* ======================= two this_cpu operations ======================= */

/* A read, then a write that depends on it, preemptible: another task on
 * this CPU can update the variable in between, and that update is lost.
 * Reported once, with both sites. */
static DEFINE_PER_CPU(long, pc_lost);

KTEST(lockdep_percpu, this_cpu_read_then_write_lost_update)
{
	for (int i = 0; i < 2; i++) {
		long v = this_cpu_read(pc_lost);

		this_cpu_write(pc_lost, v + 1);
	}
	this_cpu_xchg(pc_lost, this_cpu_read(pc_lost) + 1);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* Two preempt-off sections are two: a preemption can come between. */
static DEFINE_PER_CPU(long, pc_lost_sections);

KTEST(lockdep_percpu, this_cpu_read_write_in_two_sections_lost_update)
{
	long v;

	preempt_disable();
	v = this_cpu_read(pc_lost_sections);
	preempt_enable();
	preempt_disable();
	this_cpu_write(pc_lost_sections, v + 1);
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
}

/* One section, or a lock held across both: silent. */
static DEFINE_PER_CPU(long, pc_one_section);
static DEFINE_MUTEX(pc_one_section_lock);

KTEST(lockdep_percpu, this_cpu_read_write_one_section_silent)
{
	unsigned long flags;
	long v;

	preempt_disable();
	v = this_cpu_read(pc_one_section);
	this_cpu_write(pc_one_section, v + 1);
	preempt_enable();
	local_irq_save(flags);
	v = this_cpu_read(pc_one_section);
	preempt_disable(); /* a section inside the IRQs-off one */
	preempt_enable();
	this_cpu_write(pc_one_section, v + 1);
	local_irq_restore(flags);
	migrate_disable();
	mutex_lock(&pc_one_section_lock);
	v = this_cpu_read(pc_one_section);
	this_cpu_write(pc_one_section, v + 1);
	mutex_unlock(&pc_one_section_lock);
	migrate_enable();
	KEXPECT_LOCKDEP_NONE();
}

/* __this_cpu_*: for callers that keep the CPU. Preemptible and migratable
 * is reported, as smp_processor_id() is; with preemption off it is
 * silent. */
static DEFINE_PER_CPU(long, pc_raw_tier);

KTEST(lockdep_percpu, __this_cpu_preemptible_reported)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
	__this_cpu_inc(pc_raw_tier);
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
	preempt_disable();
	__this_cpu_inc(pc_raw_tier);
	__this_cpu_write(pc_raw_tier, __this_cpu_read(pc_raw_tier) + 1);
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PREEMPTIBLE_CPU_ID,
			     num_online_cpus() > 1 ? 1 : 0);
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
