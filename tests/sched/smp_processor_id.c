/*
 * smp_processor_id() and its check (kernel/sched/sched.c): it reports a
 * call from a task that is preemptible and may migrate, stays silent for a
 * task that is bound or pinned, and a pinned task's CPU id holds across
 * every preemption.
 */
#include "sched_util.h"

/* Called from preemptible code that may migrate (affinity of several
 * CPUs), smp_processor_id() reports (counted in smp_processor_id_warnings)
 * and still answers; with preemption off, interrupts off, migration off or
 * an affinity of one CPU it does not. */
KTEST_CPUS(sched, smp_processor_id_warns_when_migratable, 2)
{
	unsigned long w0;
	int id;

	KASSERT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
	KASSERT_TRUE(preemptible());
	w0 = smp_id_warnings();
	id = smp_processor_id();
	KEXPECT_EQ(smp_id_warnings(), w0 + 1);
	KEXPECT_GE(id, 0);
	KEXPECT_LT(id, (int)num_online_cpus());

	w0 = smp_id_warnings();
	preempt_disable();
	KEXPECT_EQ(smp_processor_id(), raw_smp_processor_id());
	preempt_enable();
	KEXPECT_EQ(smp_id_warnings(), w0);

	local_irq_disable();
	id = smp_processor_id();
	local_irq_enable();
	KEXPECT_EQ(smp_id_warnings(), w0);

	migrate_disable();
	id = smp_processor_id();
	KEXPECT_EQ(id, raw_smp_processor_id());
	migrate_enable();
	KEXPECT_EQ(smp_id_warnings(), w0);

	id = get_cpu();
	KEXPECT_EQ(id, smp_processor_id());
	put_cpu();
	KEXPECT_EQ(smp_id_warnings(), w0);

	/* Migratable again: reported again. */
	(void)smp_processor_id();
	KEXPECT_EQ(smp_id_warnings(), w0 + 1);

	w0 = smp_id_warnings();
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(last_cpu())), 0);
	KEXPECT_EQ(smp_processor_id(), last_cpu());
	KEXPECT_EQ(smp_id_warnings(), w0);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_PREEMPTIBLE_CPU_ID, 2);
}

/* A task bound to one CPU (every test task starts bound to CPU 0) may call
 * smp_processor_id() preemptible without a report, on any CPU count. */
KTEST(sched, smp_processor_id_silent_when_bound)
{
	unsigned long w0 = smp_id_warnings();

	KASSERT_TRUE(preemptible());
	KEXPECT_EQ(smp_processor_id(), 0);
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(last_cpu())), 0);
	KEXPECT_EQ(smp_processor_id(), last_cpu());
	KEXPECT_EQ(smp_id_warnings(), w0);
}

/* While migration is disabled, smp_processor_id() answers the same CPU
 * before and after every preemption (hundreds: by a FIFO task, and by time
 * slices with a busy NORMAL task), and it does not report: the task is not
 * bound, so without migrate_disable() it would (on two or more CPUs). */
KTEST(migrate, same_cpu_id_across_preemptions)
{
	static struct pin_watch w;
	struct task_struct *busy;

	w = (struct pin_watch){.cpu = -1, .bad_cpu = -1, .checked_id = true};
	KASSERT_TRUE(pin_watch_start(&w, pin_watch_fn, "stable-id",
				     last_cpu(), SCHED_NORMAL, 0));
	busy = ktest_spawn_on(w.cpu, ktest_spin_until_stopped,
			      (void *)&w.stop, "busy");
	preempt_for(&w.k, &w.preempted, 200);
	pin_watch_finish(&w);
	ktest_join(busy);
	ktest_log("CPU %d: %ld iterations, %ld preemptions, %ld other CPU ids "
		  "(last %d), FIFO task ran %ld times, %lu new reports", w.cpu,
		  w.iters, w.preempted, w.moved, w.bad_cpu, w.k.runs,
		  w.new_warnings);
	KEXPECT_GE(w.preempted, 200);
	KEXPECT_EQ(w.moved, 0);
	KEXPECT_EQ(w.new_warnings, 0);
}
