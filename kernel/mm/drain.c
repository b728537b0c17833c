/*
 * Draining the per-CPU caches (see drain.h). A CPU's caches are guarded
 * by local locks, which only that CPU can take (on RT=0 a local lock is
 * its CPU's preemption count), so draining a live CPU's caches means
 * running on it. Linux queues a work item on each CPU; this kernel has no
 * workqueues, and a task moving itself from CPU to CPU is as good for the
 * tests and the benchmark that need it, and allocates nothing (a helper
 * task would take a stack from the very caches being drained).
 */
#include "mm/defer_free.h"
#include "mm/drain.h"
#include "mm/kmalloc.h"
#include "mm/page_alloc.h"
#include "mm/stack.h"
#include "panic.h"
#include "percpu.h"
#include "rcu/rcupdate.h"
#include "sched/sched.h"
#include "smp.h"

bool on_each_cpu_hop_possible(void)
{
	return preemptible() && !current->migration_disabled;
}

int on_each_cpu_hop(void (*fn)(void *arg), void *arg)
{
	struct task_struct *t = current;
	cpumask_t saved;
	int cpu, missed = 0;

	if (WARN_ON(!on_each_cpu_hop_possible()))
		return num_online_cpus();
	cpumask_copy(&saved, &t->cpus_mask);
	for_each_online_cpu(cpu) {
		/* A task that changes its own affinity leaves at once, and
		 * stays: only a CPU going offline could move it again. */
		if (set_cpus_allowed(t, cpumask_of(cpu)) == 0 &&
		    raw_smp_processor_id() == cpu)
			fn(arg);
		else
			missed++;
	}
	/* Every CPU of saved may have gone meanwhile: then the task's
	 * affinity falls back, as it would have had the task stayed. */
	restore_cpus_allowed(t, &saved);
	return missed;
}

void mm_drain_cpu(int cpu)
{
	kmalloc_cpu_dead(cpu);
	page_alloc_cpu_dead(cpu);
}

int kmalloc_cpu_dead(unsigned int cpu)
{
	defer_free_cpu_dead(cpu); /* into this CPU's caches, or the slabs */
	kmalloc_drain_cpu(cpu);
	return 0;
}

int page_alloc_cpu_dead(unsigned int cpu)
{
	page_alloc_drain_cpu(cpu);
	return 0;
}

void mm_drain_all(void)
{
	rcu_barrier(); /* the task structs and stacks a grace period holds */
	kstack_drain();
	kmalloc_drain_all();
	page_alloc_drain_all();
}
