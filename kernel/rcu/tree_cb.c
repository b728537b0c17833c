/*
 * Tree RCU's callbacks (docs/rcu.md, section 4), after Linux's
 * kernel/rcu/tree.c: call_rcu() onto this CPU's segmented list, the
 * list moved along as grace periods start and end (from the tick, in
 * tree.c), the ready callbacks invoked in batches by the CPU's rcuc
 * thread, rcu_barrier(), a dead CPU's callbacks handed to a live one,
 * and the bound on how many callbacks a flood may queue.
 */
#include "rcu/rcupdate.h"
#include "rcu/rcutree.h"
#include "rcu/rcu.h"
#include "errno.h"
#include "rcu/tree.h"
#include "rcu/tree_cb.h"
#include "cpuhotplug.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "sched/sched.h"
#include "smp.h"
#include "vsprintf.h"

/* Linux's defaults are 10 and 10000/20000, for machines with gigabytes:
 * here a flood is stopped earlier (docs/rcu.md, section 9). */
long rcu_blimit = 64;
long rcu_qhimark = 1000;
long rcu_qovld = 2000;

void rcu_init_cpu_data(struct rcu_data *rdp, int cpu)
{
	rdp->cpu = cpu;
	rcu_segcblist_init(&rdp->cblist);
	init_waitqueue_head(&rdp->rcuc_wq);
	rdp->defer_qs_iw.func = rcu_preempt_deferred_qs_handler;
}

void rcu_advance_cbs(struct rcu_data *rdp)
{
	rcu_segcblist_advance(&rdp->cblist, rcu_state.gp_seq);
}

bool rcu_accelerate_cbs(struct rcu_data *rdp)
{
	unsigned long s;

	if (!rcu_segcblist_new_cbs(&rdp->cblist))
		return false;
	s = rcu_seq_snap(&rcu_state.gp_seq);
	return rcu_segcblist_accelerate(&rdp->cblist, s) &&
	       rcu_start_this_gp(s);
}

void invoke_rcu_core_kthread(struct rcu_data *rdp)
{
	if (READ_ONCE(rdp->rcu_cpu_has_work))
		return;
	WRITE_ONCE(rdp->rcu_cpu_has_work, true);
	wake_up(&rdp->rcuc_wq);
}

/* ---- queueing ---- */

/* Ask for a grace period for this CPU's callbacks, and for the scan to
 * run now rather than at its next period: too many are waiting. The
 * kthread is woken through the irq_work: call_rcu() may be called from
 * the switch itself (put_task_struct()). */
static void rcu_force_quiescent_state(struct rcu_data *rdp)
{
	unsigned long flags;

	flags = rcu_node_lock();
	rcu_accelerate_cbs(rdp);
	rcu_state.fqs_asked = true;
	rcu_node_unlock(flags);
	rcu_gp_kthread_wake_deferred();
}

/* Whether the caller of call_rcu() may wait for a grace period without
 * deadlock: it may sleep, is in no reader, and holds no lock a reader
 * could wait for (those are spinning, or on RT=1 spinlock_t, whose
 * holder is migrate-disabled). Not the grace-period kthread itself. */
static bool rcu_call_may_wait(void)
{
	struct task_struct *t = current;

	return preemptible() && !t->migration_disabled &&
	       !rcu_preempt_depth() && t != rcu_state.gp_kthread;
}

/* Past qovld: wait for a grace period, during which this CPU's rcuc
 * thread runs and the list moves on (docs/rcu.md, bounded memory). */
static void rcu_throttle(void)
{
	unsigned long flags;

	flags = rcu_node_lock();
	rcu_state.n_throttled++;
	rcu_node_unlock(flags);
	rcu_wait_gp(start_poll_synchronize_rcu());
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp;
	unsigned long flags;
	long len;

	head->func = func;
	local_irq_save(flags);
	rdp = raw_cpu_ptr(&rcu_data);
	rcu_segcblist_enqueue(&rdp->cblist, head);
	len = rcu_segcblist_n_cbs(&rdp->cblist);
	if (len > rdp->qlen_last_fqs_check + rcu_qhimark) {
		rdp->qlen_last_fqs_check = len;
		rcu_force_quiescent_state(rdp);
	}
	local_irq_restore(flags);
	if (len > rcu_qovld && rcu_call_may_wait())
		rcu_throttle();
}

/* ---- invoking: the rcuc threads ---- */

static void rcu_reclaim(struct rcu_head *head)
{
	unsigned long offset = (unsigned long)head->func;

	if (__is_kfree_rcu_offset(offset))
		kfree((char *)head - offset);
	else
		head->func(head);
}

/* Run up to a batch of ready callbacks; the rest go back in front. Past
 * qhimark the batch has no limit: the list must shrink. */
static void rcu_do_batch(struct rcu_data *rdp)
{
	struct rcu_cblist rcl;
	struct rcu_head *rhp;
	unsigned long flags;
	long bl, count = 0;

	rcu_cblist_init(&rcl);
	local_irq_save(flags);
	bl = rcu_segcblist_n_cbs(&rdp->cblist) > rcu_qhimark ? __LONG_MAX__
							      : rcu_blimit;
	rcu_segcblist_extract_done_cbs(&rdp->cblist, &rcl);
	local_irq_restore(flags);
	while (count < bl && (rhp = rcu_cblist_dequeue(&rcl))) {
		rcu_reclaim(rhp);
		count++;
	}
	local_irq_save(flags);
	rcu_segcblist_insert_done_cbs(&rdp->cblist, &rcl);
	rcu_segcblist_add_len(&rdp->cblist, -count);
	WRITE_ONCE(rdp->n_cbs_invoked, rdp->n_cbs_invoked + count);
	if (rcu_segcblist_n_cbs(&rdp->cblist) < rdp->qlen_last_fqs_check)
		rdp->qlen_last_fqs_check = rcu_segcblist_n_cbs(&rdp->cblist);
	if (rcu_segcblist_ready_cbs(&rdp->cblist))
		WRITE_ONCE(rdp->rcu_cpu_has_work, true);
	local_irq_restore(flags);
}

static bool rcuc_should_run(struct rcu_data *rdp)
{
	return READ_ONCE(rdp->rcu_cpu_has_work) || kthread_should_park();
}

/* Linux's rcu_cpu_kthread(): bound to its CPU, parked while it is away;
 * it parks only between batches, so no callback taken out of the list is
 * left behind. */
static int rcu_cpu_kthread(void *arg)
{
	struct rcu_data *rdp = arg;

	for (;;) {
		wait_event(rdp->rcuc_wq, rcuc_should_run(rdp));
		if (kthread_should_park()) {
			kthread_parkme();
			continue;
		}
		WRITE_ONCE(rdp->rcu_cpu_has_work, false);
		rcu_do_batch(rdp);
	}
	return 0;
}

/* ---- rcu_barrier() ---- */

static void rcu_barrier_callback(struct rcu_head *head)
{
	if (atomic_dec_and_test(&rcu_state.barrier_cpu_count))
		complete(&rcu_state.barrier_completion);
}

/* On each CPU (a cross-CPU call): behind everything it queued. */
static void rcu_barrier_entrain(void *unused)
{
	call_rcu(&raw_cpu_ptr(&rcu_data)->barrier_head, rcu_barrier_callback);
}

/* Callbacks of CPUs that went offline were handed to online ones before
 * (rcutree_dead_cpu), and none goes meanwhile (the hotplug lock). The
 * count starts at one, so the completion cannot fire before every CPU
 * has its callback. A CPU with no callback is skipped, as Linux does:
 * a callback queued before this call is counted in its CPU's list until
 * it has run, so a list read empty holds none of them, and an idle CPU
 * is not woken (a vCPU thread the host must schedule) for nothing. */
void rcu_barrier(void)
{
	int cpu;

	might_sleep();
	mutex_lock(&rcu_state.barrier_mutex);
	reinit_completion(&rcu_state.barrier_completion);
	atomic_set(&rcu_state.barrier_cpu_count, 1);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (!rcu_segcblist_n_cbs(&raw_per_cpu_ptr(&rcu_data, cpu)->cblist))
			continue;
		atomic_inc(&rcu_state.barrier_cpu_count);
		if (smp_call_function_single(cpu, rcu_barrier_entrain, 0, true))
			rcu_barrier_callback(0); /* cannot be: counted out */
	}
	cpus_read_unlock();
	rcu_barrier_callback(0);
	wait_for_completion(&rcu_state.barrier_completion);
	mutex_unlock(&rcu_state.barrier_mutex);
}

/* ---- CPU hotplug: callbacks ---- */

int rcutree_online_cpu(unsigned int cpu)
{
	struct rcu_data *rdp = raw_per_cpu_ptr(&rcu_data, cpu);
	char name[TASK_COMM_LEN];
	struct task_struct *t = rdp->rcu_cpu_kthread_task;

	if (t) {
		kthread_unpark(t);
		return 0;
	}
	snprintf(name, sizeof(name), "rcuc/%u", cpu);
	t = kthread_create_on_cpu(rcu_cpu_kthread, rdp, cpu, name);
	if (!t)
		return -ENOMEM;
	sched_setscheduler(t, SCHED_FIFO, 1);
	rdp->rcu_cpu_kthread_task = t;
	wake_up_process(t);
	return 0;
}

int rcutree_offline_cpu(unsigned int cpu)
{
	kthread_park(raw_per_cpu_ptr(&rcu_data, cpu)->rcu_cpu_kthread_task);
	return 0;
}

/* Linux's rcutree_migrate_callbacks(): the dead CPU's callbacks join this
 * CPU's list (interrupts off: it is ours), the ready ones ready, the
 * others to be given a grace period again. */
int rcutree_dead_cpu(unsigned int cpu)
{
	struct rcu_data *rdp = raw_per_cpu_ptr(&rcu_data, cpu), *my_rdp;
	unsigned long flags;
	bool wake;

	if (!rcu_segcblist_n_cbs(&rdp->cblist))
		return 0;
	local_irq_save(flags);
	my_rdp = raw_cpu_ptr(&rcu_data);
	arch_spin_lock(&rcu_state.lock);
	rcu_advance_cbs(rdp);
	rcu_segcblist_merge(&my_rdp->cblist, &rdp->cblist);
	rcu_advance_cbs(my_rdp);
	wake = rcu_accelerate_cbs(my_rdp);
	arch_spin_unlock(&rcu_state.lock);
	if (rcu_segcblist_ready_cbs(&my_rdp->cblist))
		invoke_rcu_core_kthread(my_rdp);
	local_irq_restore(flags);
	if (wake)
		rcu_gp_kthread_wake();
	return 0;
}
