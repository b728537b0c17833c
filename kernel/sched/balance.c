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
#include "printk.h"

DEFINE_PER_CPU_STAT(unsigned long, nr_push_rt_rechecks);
DEFINE_PER_CPU_STAT(unsigned long, nr_push_rt_refused);

static bool rq_idle(const struct rq *rq)
{
	return rq->curr == rq->idle && rq->nr_running == 0;
}

/* Whether p may be placed on cpu: its affinity allows it and the CPU
 * takes tasks. A per-CPU thread keeps its CPU until the CPU is gone; the
 * others only go where the scheduler places tasks (cpu_active). */
bool is_cpu_allowed(const struct task_struct *p, int cpu)
{
	if (!cpumask_test_cpu(cpu, &p->cpus_mask))
		return false;
	return p->per_cpu_kthread ? cpu_online(cpu) : cpu_active(cpu);
}

/* An allowed CPU whose running task p would preempt, the lowest first;
 * not one where p would wait for its RT tasks to be unthrottled. */
static int lowest_prio_cpu(const struct task_struct *p)
{
	int cpu, best = -1, best_prio = p->prio;

	for_each_online_cpu(cpu) {
		int prio = READ_ONCE(cpu_rq(cpu)->curr_prio);

		if (is_cpu_allowed(p, cpu) && prio > best_prio &&
		    !rt_throttled_for(cpu_rq(cpu), p)) {
			best = cpu;
			best_prio = prio;
		}
	}
	return best;
}

/* Called with p's pi_lock held, p not queued. */
int select_task_rq(struct task_struct *p)
{
	int prev = task_cpu(p), cpu;

	if (p->migration_disabled)
		return prev; /* it went to sleep pinned: it wakes pinned */
	if (is_cpu_allowed(p, prev) && rq_idle(cpu_rq(prev)) &&
	    !rt_throttled_for(cpu_rq(prev), p))
		return prev;
	for_each_cpu(cpu, &p->cpus_mask)
		if (is_cpu_allowed(p, cpu) && rq_idle(cpu_rq(cpu)) &&
		    !rt_throttled_for(cpu_rq(cpu), p))
			return cpu;
	if (p->prio < MAX_RT_PRIO && !is_cpu_allowed(p, prev) &&
	    (cpu = lowest_prio_cpu(p)) >= 0)
		return cpu;
	if (p->prio < MAX_RT_PRIO && is_cpu_allowed(p, prev) &&
	    READ_ONCE(cpu_rq(prev)->curr_prio) <= p->prio &&
	    (cpu = lowest_prio_cpu(p)) >= 0)
		return cpu;
	if (is_cpu_allowed(p, prev))
		return prev;
	return select_fallback_rq(p, 0);
}

/*
 * select_task_rq(), and the chosen run queue returned locked. The choice
 * is made without that lock, so it is checked again under it: a CPU that
 * stopped taking tasks meanwhile (sched_cpu_deactivate clears it from
 * cpu_active_mask, then takes this lock) is not used. Either the check
 * came first and the task is queued before the CPU's leaving looks at
 * its queue, or the check sees the CPU inactive. pi_lock held, p not
 * queued, interrupts off.
 */
struct rq *select_task_rq_lock(struct task_struct *p)
{
	for (;;) {
		int cpu = select_task_rq(p);
		struct rq *rq = cpu_rq(cpu);

		arch_spin_lock(&rq->lock);
		if (p->migration_disabled || is_cpu_allowed(p, cpu))
			return rq;
		arch_spin_unlock(&rq->lock);
	}
}

/* The allowed CPU with the fewest tasks queued, or -1. */
static int least_loaded_allowed(const struct task_struct *p)
{
	int cpu, best = -1;

	for_each_cpu(cpu, &p->cpus_mask)
		if (is_cpu_allowed(p, cpu) &&
		    (best < 0 || cpu_rq(cpu)->nr_running <
				     cpu_rq(best)->nr_running))
			best = cpu;
	return best;
}

/*
 * Where p goes when its CPU is leaving, or has left: the least loaded
 * CPU its affinity allows. When it allows none that is active, the task
 * would have nowhere to run: as Linux's select_fallback_rq() (with no
 * cpusets), the kernel breaks the affinity, widening it to every
 * possible CPU, and says so on the console. Waiting for the CPU to come
 * back could wait forever, and refusing cpu_down() would let any task
 * veto it (docs/hotplug.md).
 *
 * Called with p's pi_lock held and p not queued, or with queued_on, the
 * run queue p is queued on, locked (its count of movable tasks follows
 * the new affinity).
 */
int select_fallback_rq(struct task_struct *p, struct rq *queued_on)
{
	int cpu = least_loaded_allowed(p);

	if (cpu >= 0)
		return cpu;
	if (queued_on)
		account_movable(queued_on, p, -1);
	cpumask_copy(&p->cpus_mask, task_fallback_mask(p, task_cpu(p)));
	p->nr_cpus_allowed = cpumask_weight(&p->cpus_mask);
	p->per_cpu_kthread = false; /* bound to a CPU that is gone: no longer */
	if (queued_on)
		account_movable(queued_on, p, 1);
	cpu = least_loaded_allowed(p);
	return cpu >= 0 ? cpu : 0; /* the boot CPU never leaves */
}

/*
 * The affinity p falls back to when its own allows no active CPU, and
 * the console line that says so: Linux's select_fallback_rq() tries the
 * task's cpuset and then cpu_possible_mask; with no cpusets here, the
 * latter. cpu names a CPU of the affinity that was lost. Both ways a
 * task ends up there use it: its CPUs leaving while it is theirs
 * (select_fallback_rq() above) and an affinity given back after they
 * left (restore_cpus_allowed()).
 */
const cpumask_t *task_fallback_mask(const struct task_struct *p, int cpu)
{
	printk("process %d (%s) no longer affine to cpu%d\n", p->pid, p->comm,
	       cpu);
	return cpu_possible_mask;
}

/* The best task on src that could run on dest, not running, and better
 * than limit (an internal priority); NULL if none. src locked. */
static struct task_struct *pullable_task(struct rq *src, int dest, int limit)
{
	/* RT tasks would only wait on a throttled CPU. */
	bool rt_ok = !cpu_rq(dest)->rt_throttled;
	struct task_struct *p;

	for (int prio = 0; rt_ok && prio < MAX_RT_PRIO && prio < limit; prio++) {
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
	struct task_struct *p;
	bool moved = false;
	int limit;

	double_rq_lock(rq, src);
	/* What rq would run: its RT tasks do not count while throttled. */
	limit = rq_best_prio(rq);
	if (rq->rt_throttled && limit < MAX_RT_PRIO)
		limit = list_empty(&rq->normal_queue) ? MAX_PRIO : NORMAL_PRIO;
	p = pullable_task(src, rq->cpu, limit);
	/* NORMAL work only to a CPU that has none at all. */
	if (p && (p->prio < MAX_RT_PRIO || rq_nr_runnable(rq) == 0)) {
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

	if (rq->balance_push)
		return; /* a CPU on its way out takes nothing */
	/* RT tasks only to a CPU that would run them now. */
	if (!rq->rt_throttled)
		for_each_cpu(cpu, &rt_overload_mask)
			if (cpu != rq->cpu && cpu_online(cpu))
				pull_from(rq, cpu_rq(cpu));
	if (rq_nr_runnable(rq) > 0)
		return;
	for_each_online_cpu(cpu) {
		struct rq *src = cpu_rq(cpu);

		/* Only a queue with a movable task besides the running one
		 * is worth its lock (the scan is a hint; pull_from checks). */
		if (src != rq && src->nr_movable - movable_curr(src, false) > 0 &&
		    pull_from(rq, src))
			return;
	}
}

/* Under both locks: push still queued here, if still allowed and dest
 * still runs lower work. */
static void push_rt_recheck(struct rq *rq, struct task_struct *push, int dest)
{
	if (!task_can_move(rq, push, dest)) {
		raw_cpu_inc(nr_push_rt_refused);
		return;
	}
	if (cpu_rq(dest)->curr->prio > push->prio &&
	    !cpu_rq(dest)->rt_throttled)
		move_queued_task(rq, cpu_rq(dest), push);
}

/*
 * After a switch: RT tasks queued here but not running (preempted, or
 * woken behind a higher one) go to a CPU running something lower, if
 * their affinity allows and they are not migrate-disabled. A task picked
 * under rq's lock is looked at again under both locks: in between it may
 * run, exit and drop its last reference, and the RCU reader keeps its
 * memory (interrupts off throughout: the reader is never preempted).
 */
void push_rt_tasks(struct rq *rq)
{
	unsigned long flags;

	if (!cpumask_test_cpu(rq->cpu, &rt_overload_mask))
		return;
	local_irq_save(flags);
	sched_rcu_read_lock();
	for (int tries = 0; tries < 4; tries++) {
		struct task_struct *p, *push = 0;
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
		raw_cpu_inc(nr_push_rt_rechecks);
		explore_window(EXPLORE_PUSH_RT);
		double_rq_lock(rq, cpu_rq(dest));
		if (!task_freed(push, "push_rt_tasks") &&
		    task_cpu(push) == rq->cpu)
			push_rt_recheck(rq, push, dest);
		double_rq_unlock(rq, cpu_rq(dest));
	}
	sched_rcu_read_unlock();
	local_irq_restore(flags);
}
