/*
 * Where tasks run: placement at wakeup, pulling work to a CPU that goes
 * idle or drops below RT, and pushing RT tasks that cannot run where they
 * are queued. The goal, as in Linux's RT class: the N highest-priority
 * runnable RT tasks run on the N CPUs, as far as affinity (and
 * migrate_disable, see docs/scheduler.md) allows; NORMAL work spreads to
 * idle CPUs.
 *
 * The scans read other run queues' counters without their locks (they are
 * hints); every move re-checks under both locks (task_can_move).
 */
#include "sched/sched.h"
#include "sched/sched_internal.h"

static bool rq_idle(const struct rq *rq)
{
	return rq->curr == rq->idle && rq->nr_running == 0;
}

static bool allowed(const struct task *p, int cpu)
{
	return cpumask_test_cpu(cpu, &p->cpus_mask) && cpu_online(cpu);
}

/* An allowed CPU whose running task p would preempt, the lowest first. */
static int lowest_prio_cpu(const struct task *p)
{
	int cpu, best = -1, best_prio = p->prio;

	for_each_online_cpu(cpu) {
		int prio = __atomic_load_n(&cpu_rq(cpu)->curr->prio,
					   __ATOMIC_RELAXED);

		if (allowed(p, cpu) && prio > best_prio) {
			best = cpu;
			best_prio = prio;
		}
	}
	return best;
}

/* Called with p's pi_lock held, p not queued. */
int select_task_rq(struct task *p)
{
	int prev = task_cpu(p), cpu;

	if (p->migration_disabled)
		return prev; /* it went to sleep pinned: it wakes pinned */
	if (allowed(p, prev) && rq_idle(cpu_rq(prev)))
		return prev;
	for_each_cpu(cpu, &p->cpus_mask)
		if (cpu_online(cpu) && rq_idle(cpu_rq(cpu)))
			return cpu;
	if (p->prio < MAX_RT_PRIO && !allowed(p, prev) &&
	    (cpu = lowest_prio_cpu(p)) >= 0)
		return cpu;
	if (p->prio < MAX_RT_PRIO && allowed(p, prev) &&
	    cpu_rq(prev)->curr->prio <= p->prio &&
	    (cpu = lowest_prio_cpu(p)) >= 0)
		return cpu;
	if (allowed(p, prev))
		return prev;
	for_each_cpu(cpu, &p->cpus_mask)
		if (cpu_online(cpu))
			return cpu;
	return prev; /* nowhere allowed is online: stay */
}

/* The best task on src that could run on dest, not running, and better
 * than limit (an internal priority); NULL if none. src locked. */
static struct task *pullable_task(struct rq *src, int dest, int limit)
{
	struct task *p;

	for (int prio = 0; prio < MAX_RT_PRIO && prio < limit; prio++) {
		if (!(src->rt_bitmap[prio / 64] & (1ul << (prio % 64))))
			continue;
		list_for_each_entry(p, &src->rt_queue[prio], run_list)
			if (task_can_move(src, p, dest))
				return p;
	}
	if (limit <= NORMAL_PRIO)
		return 0;
	list_for_each_entry(p, &src->normal_queue, run_list)
		if (task_can_move(src, p, dest))
			return p;
	return 0;
}

/* Try to take one task from src to rq, if it beats what rq would run. */
static bool pull_from(struct rq *rq, struct rq *src)
{
	struct task *p;
	bool moved = false;

	double_rq_lock(rq, src);
	p = pullable_task(src, rq->cpu, rq_best_prio(rq));
	/* NORMAL work only to a CPU that has none at all. */
	if (p && (p->prio < MAX_RT_PRIO || rq->nr_running == 0)) {
		move_queued_task(src, rq, p);
		moved = true;
	}
	double_rq_unlock(rq, src);
	return moved;
}

/* Called from __schedule() without rq's lock, interrupts off, when rq has
 * no RT work left: first RT tasks waiting elsewhere, then, if rq is about
 * to idle, NORMAL work from a CPU that has more than it runs. */
void pull_tasks(struct rq *rq)
{
	int cpu;

	for_each_cpu(cpu, &rt_overload_mask)
		if (cpu != rq->cpu && cpu_online(cpu))
			pull_from(rq, cpu_rq(cpu));
	if (rq->nr_running > 0)
		return;
	for_each_online_cpu(cpu) {
		struct rq *src = cpu_rq(cpu);

		if (src != rq && src->nr_movable > 0 && pull_from(rq, src))
			return;
	}
}

/*
 * After a switch: RT tasks queued here but not running (preempted, or
 * woken behind a higher one) go to a CPU running something lower, if
 * their affinity allows and they are not migrate-disabled.
 */
void push_rt_tasks(struct rq *rq)
{
	unsigned long flags;

	if (!cpumask_test_cpu(rq->cpu, &rt_overload_mask))
		return;
	local_irq_save(flags);
	for (int tries = 0; tries < 4; tries++) {
		struct task *p, *push = 0;
		int dest = -1;

		arch_spin_lock(&rq->lock);
		for (int prio = 0; prio < MAX_RT_PRIO && !push; prio++)
			list_for_each_entry(p, &rq->rt_queue[prio], run_list)
				if (p != rq->curr && !p->migration_disabled &&
				    (dest = lowest_prio_cpu(p)) >= 0 &&
				    dest != rq->cpu) {
					push = p;
					break;
				}
		arch_spin_unlock(&rq->lock);
		if (!push)
			break;
		double_rq_lock(rq, cpu_rq(dest));
		if (task_cpu(push) == rq->cpu && task_can_move(rq, push, dest) &&
		    cpu_rq(dest)->curr->prio > push->prio)
			move_queued_task(rq, cpu_rq(dest), push);
		double_rq_unlock(rq, cpu_rq(dest));
	}
	local_irq_restore(flags);
}
