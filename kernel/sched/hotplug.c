/*
 * The scheduler's part in taking a CPU offline and bringing it back
 * (kernel/cpu.c calls these from its table; docs/hotplug.md). Going
 * down, in the order the table runs them:
 *
 *   sched_cpu_deactivate  the CPU leaves cpu_active_mask, so no wakeup,
 *                         balancing or affinity change places a task there
 *                         (each checks under the run queue's lock); the
 *                         queued tasks move off, and the running one is
 *                         preempted and moves off (rq->balance_push: every
 *                         task switching out there leaves, as Linux's
 *                         balance_push()).
 *   sched_cpu_wait_empty  waits until no task is left there: a pinned task
 *                         (migrate_disable) is waited for until its
 *                         outermost migrate_enable(), which moves it.
 *   sched_cpu_dying       on the CPU itself, the last check.
 *
 * Coming up, sched_cpu_activate makes it take tasks again.
 */
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "sched/wait.h"
#include "panic.h"
#include "printk.h"
#include "smp.h"

DEFINE_PER_CPU_STAT(unsigned long, nr_push_queued_rechecks);

/* The controller in sched_cpu_wait_empty() waits here; a CPU that is
 * leaving wakes it each time a task has switched out and left its queue
 * empty (sched_hotplug_notify). */
static DECLARE_WAIT_QUEUE_HEAD(hotplug_wq);

int sched_cpu_activate(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	rq->balance_push = false;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
	set_cpu_active(cpu, true);
	return 0;
}

/* The first task queued on rq (locked) that may move off now: not
 * running, not pinned (told to leave at its migrate_enable() instead),
 * not a per-CPU thread (it parks). */
static struct task_struct *first_to_push(struct rq *rq)
{
	struct list_head *queues[MAX_RT_PRIO + 1];
	struct task_struct *p;

	for (int i = 0; i < MAX_RT_PRIO; i++)
		queues[i] = &rq->rt_queue[i];
	queues[MAX_RT_PRIO] = &rq->normal_queue;
	for (int i = 0; i <= MAX_RT_PRIO; i++)
		list_for_each_entry(p, queues[i], run_list) {
			if (p == rq->curr || p->per_cpu_kthread)
				continue;
			if (p->migration_disabled) {
				p->migration_pending = true;
				continue;
			}
			return p;
		}
	return 0;
}

/* Move one queued task off rq's CPU; false when none is left to move.
 * The destination is chosen under rq's lock alone (breaking p's
 * affinity if it allows no active CPU) and checked again under both.
 * Between the two, p may run, exit and drop its last reference: the RCU
 * reader keeps its memory for the second look, which finds it gone from
 * rq. Interrupts stay off throughout, so the reader is never preempted
 * and its unlock takes no lock. */
static bool push_one_queued(struct rq *rq)
{
	unsigned long flags;
	struct task_struct *p;
	struct rq *dst;

	local_irq_save(flags);
	rcu_read_lock();
	arch_spin_lock(&rq->lock);
	p = first_to_push(rq);
	dst = p ? cpu_rq(select_fallback_rq(p, rq)) : 0;
	arch_spin_unlock(&rq->lock);
	if (p) {
		raw_cpu_inc(nr_push_queued_rechecks);
		explore_window(EXPLORE_PUSH_QUEUED);
		double_rq_lock(rq, dst);
		if (!task_freed(p, "push_one_queued") &&
		    task_cpu(p) == rq->cpu && task_can_move(rq, p, dst->cpu))
			move_queued_task(rq, dst, p);
		double_rq_unlock(rq, dst);
	}
	rcu_read_unlock();
	local_irq_restore(flags);
	return p != 0;
}

/*
 * Every placement checks that the CPU is active under the lock of the
 * run queue it queues on (select_task_rq_lock, task_can_move), and the
 * CPU leaves cpu_active_mask before balance_push is set under that lock:
 * a placement that saw it active has queued its task by then, and is
 * pushed below; any later one sees it inactive. (Linux waits with
 * synchronize_rcu() for the wakeups that decided without the lock.)
 */
int sched_cpu_deactivate(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;
	int tries;

	set_cpu_active(cpu, false);
	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	rq->balance_push = true;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
	/* Bounded: a task the race above kept in place is pushed when it
	 * runs (the tick preempts it, and it leaves). */
	for (tries = rq->nr_running + 8; tries > 0 && push_one_queued(rq);
	     tries--)
		;
	resched_cpu(cpu); /* the running task: preempted, and it leaves */
	return 0;
}

/* From finish_task_switch() on a CPU that is leaving. */
void sched_hotplug_notify(struct rq *rq)
{
	if (READ_ONCE(rq->nr_running) == 0)
		wake_up(&hotplug_wq);
}

/* No task queued on cpu, and none asleep that will wake there (pinned);
 * its idle task runs. Nothing can come after: wakeups and moves go to
 * active CPUs only, but for pinned tasks, which are counted here. */
static bool cpu_empty(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;
	bool empty;

	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	empty = rq->nr_running == 0 && rq->curr == rq->idle &&
		rq->nr_pinned_asleep == 0;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
	return empty;
}

int sched_cpu_wait_empty(unsigned int cpu)
{
	wait_event(hotplug_wq, cpu_empty(cpu));
	return 0;
}

int sched_cpu_starting(unsigned int cpu)
{
	return 0; /* sched_init_ap() (ap_main) set up its idle task */
}

/* On the CPU, interrupts off, its idle task running: nothing may be left
 * here, and it is no RT task's pull candidate any more. */
int sched_cpu_dying(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	arch_spin_lock(&rq->lock);
	if (rq->nr_running || rq->curr != rq->idle || rq->nr_pinned_asleep)
		printk("sched: BUG: CPU %d goes offline with %d task(s) "
		       "queued, %d asleep pinned, running %s\n", cpu,
		       rq->nr_running, rq->nr_pinned_asleep, rq->curr->comm);
	cpumask_clear_cpu(cpu, &rt_overload_mask);
	sched_rt_rq_reset(rq);
	arch_spin_unlock(&rq->lock);
	return 0;
}
