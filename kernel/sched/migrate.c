/*
 * Moving tasks between CPUs, and the rules that forbid it: affinity
 * (set_cpus_allowed, kthread_bind) and migrate_disable(). A task is moved
 * only while it is not running: a queued task under both run queue locks
 * (move_queued_task), a running one by asking its CPU to switch it out
 * first (migration_pending), after which finish_task_switch() re-queues it
 * on an allowed CPU (migrate_switched_out).
 *
 * A task with migration disabled is never moved: not by balancing, not by
 * push/pull, not by an affinity change, not by its CPU going offline. An
 * affinity change that excludes its CPU (or the CPU leaving) only sets
 * migration_pending, which the outermost migrate_enable() carries out
 * (migrate_enable_slow()).
 */
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "panic.h"

/* May p (queued on rq, rq locked) move to dest_cpu right now? */
bool task_can_move(struct rq *rq, struct task_struct *p, int dest_cpu)
{
	/* LAB3 BEGIN */
	return p->on_rq && rq->curr != p && !p->migration_disabled &&
	       cpumask_test_cpu(dest_cpu, &p->cpus_mask) && cpu_active(dest_cpu);
	/* LAB3 STUB: return false; */
	/* LAB3 END */
}

/* Both run queues locked; p queued on src and not running there. */
void move_queued_task(struct rq *src, struct rq *dst, struct task_struct *p)
{
	trace_event(TRACE_MIGRATE, p->pid, (uint64_t)src->cpu << 16 | dst->cpu,
		    p->comm);
	dequeue_task(src, p);
	WRITE_ONCE(p->cpu, dst->cpu);
	enqueue_task(dst, p, false);
	check_preempt_curr(dst, p);
}

/* Must p, running on rq's CPU, leave it? When its affinity excludes the
 * CPU, or the CPU is leaving (balance_push), unless p is pinned, or a
 * per-CPU thread staying until it parks. __schedule() calls it with rq
 * locked as p switches out. Any other caller must make its answer hold
 * against set_cpus_allowed() changing p's mask on another CPU and
 * against this CPU's deactivation (sched/hotplug.c) starting meanwhile. */
bool must_move_off(struct rq *rq, struct task_struct *p)
{
	if (p->migration_disabled || p == rq->idle)
		return false;
	if (p->migration_pending && !cpumask_test_cpu(rq->cpu, &p->cpus_mask))
		return true;
	return rq->balance_push && !p->per_cpu_kthread;
}

/* From finish_task_switch(): p was running and was taken off its queue
 * to leave the CPU (migrating); now that it is off, queue it where
 * allowed, in the state it had (a wakeup meanwhile made it RUNNING). */
void migrate_switched_out(struct task_struct *p)
{
	unsigned long flags;
	struct rq *rq;

	local_irq_save(flags);
	arch_spin_lock(&p->pi_lock);
	rq = select_task_rq_lock(p);
	WRITE_ONCE(p->cpu, rq->cpu);
	p->migration_pending = false;
	enqueue_task(rq, p, false);
	p->migrating = false;
	check_preempt_curr(rq, p);
	arch_spin_unlock(&rq->lock);
	arch_spin_unlock(&p->pi_lock);
	local_irq_restore(flags);
}

/* Move queued, not running, p off its CPU to dest (pi_lock held). */
static void move_now(struct task_struct *p, int dest)
{
	struct rq *src = cpu_rq(task_cpu(p)), *dst = cpu_rq(dest);

	double_rq_lock(src, dst);
	if (task_cpu(p) == src->cpu && task_can_move(src, p, dest)) {
		move_queued_task(src, dst, p);
		p->migration_pending = false;
	} else if (src->curr == p) {
		/* It got its CPU meanwhile: there, __schedule() moves it. */
		resched_curr(src);
	}
	double_rq_unlock(src, dst);
}

int set_cpus_allowed(struct task_struct *p, const cpumask_t *mask)
{
	unsigned long flags;
	struct rq *rq;
	int cpu, dest = -1;
	bool running;

	for_each_cpu(cpu, mask)
		if (cpu_active(cpu) && dest < 0)
			dest = cpu;
	if (dest < 0)
		return -1; /* no active CPU in the mask */
	local_irq_save(flags);
	arch_spin_lock(&p->pi_lock);
	rq = task_rq_lock(p);
	if (p->on_rq)
		account_movable(rq, p, -1);
	cpumask_copy(&p->cpus_mask, mask);
	p->nr_cpus_allowed = cpumask_weight(mask);
	if (p->on_rq)
		account_movable(rq, p, 1);
	update_rt_overload(rq);
	/* A CPU on its way out keeps its pinned tasks told to leave. p
	 * may be reading this in migrate_enable() on its CPU right now. */
	WRITE_ONCE(p->migration_pending, !cpumask_test_cpu(rq->cpu, mask) ||
					 rq->balance_push);
	running = rq->curr == p;
	/* A running task is not moved from here: its CPU is asked to
	 * reschedule, and the task leaves there, or at its outermost
	 * migrate_enable(). */
	if (p->migration_pending && running)
		resched_curr(rq);
	arch_spin_unlock(&rq->lock);
	if (p->migration_pending && !running && p->on_rq &&
	    !p->migration_disabled)
		move_now(p, dest);
	arch_spin_unlock(&p->pi_lock);
	local_irq_restore(flags);
	/* A task that moved its own affinity off its CPU leaves before this
	 * returns; pinned, or not preemptible, it leaves later. */
	if (p == current && p->migration_pending && !p->migration_disabled &&
	    preemptible())
		preempt_schedule();
	return 0;
}

void restore_cpus_allowed(struct task_struct *p, const cpumask_t *saved)
{
	if (set_cpus_allowed(p, saved) == 0)
		return;
	/* The fallback holds the boot CPU, which never leaves: this one
	 * cannot fail. */
	set_cpus_allowed(p, task_fallback_mask(p, cpumask_next(0, saved)));
}

void kthread_bind(struct task_struct *p, int cpu)
{
	if (WARN_ON(READ_ONCE(p->__state) != TASK_NEW))
		return; /* only before the first wakeup */
	cpumask_copy(&p->cpus_mask, cpumask_of(cpu));
	p->nr_cpus_allowed = 1;
	WRITE_ONCE(p->cpu, cpu);
}

/*
 * The outermost migrate_enable() found an affinity change waiting (or its
 * CPU going offline). On return the task runs on a CPU it may run on and
 * nothing is left pending, or, when its caller cannot be preempted, it
 * leaves as soon as the caller can be. It keeps whatever state it had set:
 * on RT=1 the caller may be a spin_unlock() between a wait loop's
 * set_current_state() and its schedule().
 */
void migrate_enable_slow(void)
{
	/* LAB3 BEGIN */
	struct task_struct *p = current;
	unsigned long flags;
	bool leave;

	/* Decided here, on the task's own CPU, under its pi_lock (which
	 * set_cpus_allowed() holds to change the mask): set_cpus_allowed()
	 * on another CPU cannot decide from the count, which this task
	 * changes without a lock, and could leave it where it may not run.
	 * If this CPU is still allowed there is nothing to do; else switch
	 * out and let finish_task_switch() move us. The switch is a
	 * preemption, never a sleep: schedule() would take a sleeping state
	 * the caller set as its own and dequeue us, with no wakeup to come.
	 * A caller that is not preemptible leaves at its preempt_enable(). */
	local_irq_save(flags);
	arch_spin_lock(&p->pi_lock);
	leave = must_move_off(this_rq(), p);
	if (!leave)
		p->migration_pending = false;
	arch_spin_unlock(&p->pi_lock);
	if (leave)
		raw_cpu_write(need_resched_flag, true);
	local_irq_restore(flags);
	if (leave && preemptible())
		preempt_schedule();
	/* LAB3 END */
}
