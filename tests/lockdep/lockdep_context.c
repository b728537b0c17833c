/*
 * What the validator checks of the calling context:
 * LOCKDEP_SLEEP_IN_ATOMIC (might_sleep() or schedule() in atomic
 * context) and LOCKDEP_PREEMPTIBLE_CPU_ID (smp_processor_id() while
 * preemptible and migratable) (lockdep_suite.h has the rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* ======================= LOCKDEP_SLEEP_IN_ATOMIC ======================= */

KTEST(lockdep, sleep_might_sleep_preempt_disabled)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

KTEST(lockdep, sleep_might_sleep_irqs_disabled)
{
	unsigned long flags;

	local_irq_save(flags);
	might_sleep();
	local_irq_restore(flags);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static DEFINE_RAW_SPINLOCK(sleep_raw);

KTEST(lockdep, sleep_might_sleep_raw_spinlock)
{
	raw_spin_lock(&sleep_raw);
	might_sleep();
	raw_spin_unlock(&sleep_raw);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static void sleep_irq_fn(void *arg)
{
	might_sleep();
}

KTEST(lockdep, sleep_might_sleep_hardirq)
{
	ktest_in_hardirq(sleep_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* msleep() checks with might_sleep() and then schedules: one report for
 * the one bad sleep, not one from each. */
KTEST(lockdep, sleep_msleep_preempt_disabled_once)
{
	preempt_disable();
	msleep(1);
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* schedule() itself with preemption off: one report. */
KTEST(lockdep, sleep_schedule_preempt_disabled)
{
	preempt_disable();
	schedule();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* might_sleep() announces the sleep of the function it is called in: a
 * schedule() later in that same function is that sleep (one report); a
 * later one from elsewhere is not (sleep_report_does_not_hide_a_later_one). */
KTEST(lockdep, sleep_might_sleep_then_schedule_same_function_once)
{
	preempt_disable();
	might_sleep();
	schedule();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* wait_for_completion*() with preemption off sleeps inside the very
 * function might_sleep() reported from: one report, not two. */
KTEST(lockdep, sleep_wait_for_completion_preempt_disabled_once)
{
	struct completion never;

	init_completion(&never);
	preempt_disable();
	KEXPECT_FALSE(wait_for_completion_timeout(&never, 2 * NS_PER_MS));
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static __attribute__((noinline)) void schedule_from_deeper(void)
{
	schedule();
}

/* A might_sleep() report that did not sleep (the completion was done)
 * does not hide a later schedule() in atomic context from a deeper
 * function. */
KTEST(lockdep, sleep_report_does_not_hide_a_later_one)
{
	struct completion done;

	init_completion(&done);
	complete(&done);
	preempt_disable();
	wait_for_completion(&done);
	preempt_enable();
	preempt_disable();
	schedule_from_deeper();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 2);
}

KTEST(lockdep, sleep_might_sleep_task_silent)
{
	might_sleep();
	msleep(1);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_MUTEX(sleep_mutex);
static DEFINE_RT_MUTEX(sleep_rtm);

KTEST(lockdep, sleep_might_sleep_holding_mutex_silent)
{
	mutex_lock(&sleep_mutex);
	might_sleep();
	rt_mutex_lock(&sleep_rtm);
	might_sleep();
	msleep(1);
	rt_mutex_unlock(&sleep_rtm);
	mutex_unlock(&sleep_mutex);
	KEXPECT_LOCKDEP_NONE();
}

KTEST(lockdep, sleep_might_sleep_migrate_disabled_silent)
{
	migrate_disable();
	might_sleep();
	migrate_enable();
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_PREEMPTIBLE_CPU_ID ======================= */
/* Test tasks start bound to CPU 0: these widen the affinity to every
 * online CPU first, and bind back to CPU 0 afterwards. */

static void allow_all_cpus(void)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
}

static void back_to_cpu0(void)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
}

KTEST_CPUS(lockdep, cpu_id_preemptible_migratable, 2)
{
	int cpu;

	allow_all_cpus();
	cpu = smp_processor_id();
	back_to_cpu0();
	KEXPECT_LT(cpu, (int)num_online_cpus());
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PREEMPTIBLE_CPU_ID, 1);
}

KTEST_CPUS(lockdep, cpu_id_preempt_disabled_silent, 2)
{
	int cpu;

	allow_all_cpus();
	preempt_disable();
	cpu = smp_processor_id();
	KEXPECT_EQ(cpu, raw_smp_processor_id());
	preempt_enable();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_migrate_disabled_silent, 2)
{
	int cpu;

	allow_all_cpus();
	migrate_disable();
	cpu = smp_processor_id();
	msleep(1);
	KEXPECT_EQ(cpu, raw_smp_processor_id());
	migrate_enable();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_irqs_disabled_silent, 2)
{
	unsigned long flags;

	allow_all_cpus();
	local_irq_save(flags);
	(void)smp_processor_id();
	local_irq_restore(flags);
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

static void cpu_id_irq_fn(void *arg)
{
	*(int *)arg = smp_processor_id();
}

KTEST_CPUS(lockdep, cpu_id_hardirq_silent, 2)
{
	int cpu = -1;

	allow_all_cpus();
	ktest_in_hardirq(cpu_id_irq_fn, &cpu);
	back_to_cpu0();
	KEXPECT_GE(cpu, 0);
	KEXPECT_LOCKDEP_NONE();
}

KTEST(lockdep, cpu_id_single_cpu_affinity_silent)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
	KEXPECT_EQ(smp_processor_id(), 0);
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_raw_unchecked_silent, 2)
{
	allow_all_cpus();
	(void)raw_smp_processor_id();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
