/*
 * Readers that are switched out inside their section, after Linux's
 * kernel/rcu/tree_plugin.h (docs/rcu.md, sections 2 and 5): on RT=1 a
 * reader is preemptible, so the context switch queues one it preempts
 * on the blocked-readers list, the grace period waits for the list, and
 * the reader's outermost rcu_read_unlock() takes it off. A reader that
 * blocks a grace period too long is boosted through an rt_mutex. On RT=0
 * a reader cannot be switched out: the switch is a quiescent state and
 * the list stays empty.
 */
#include "rcu/rcupdate.h"
#include "rcu/rcutree.h"
#include "rcu/rcu.h"
#include "rcu/tree.h"
#include "locking/rtmutex.h"
#include "panic.h"
#include "sched/sched.h"
#include "time/time.h"

bool rcu_boost_enabled = true;
/* Linux's CONFIG_RCU_BOOST_DELAY is 500 ms, for long-running machines;
 * here, short enough for the tests to see a boost within a few periods. */
unsigned int rcu_boost_delay_ms = 10;
/* Above the RT tasks the tests spin with (Linux's rcutree.kthread_prio,
 * which a PREEMPT_RT system sets above its spinning tasks too). */
int rcu_boost_prio = 50;

/* ---- the blocked readers ---- */

/* The list entry after e, or NULL at the tail. */
static struct list_head *blkd_next(struct list_head *e)
{
	return e->next == &rcu_state.blkd_tasks ? 0 : e->next;
}

/*
 * Queue t, preempted inside its section on cpu (lock held). If the grace
 * period still waits for cpu, t may have begun before it started: it
 * goes just before gp_tasks (or, if none blocks yet, at the tail) and
 * becomes gp_tasks. Otherwise it began after cpu's quiescent state, so
 * after the grace period started: at the head, blocking only the next.
 */
static void rcu_preempt_ctxt_queue(struct task_struct *t, int cpu)
{
	struct list_head *e = &t->rcu_node_entry;

	t->rcu_read_unlock_special.b.blocked = true;
	rcu_state.n_blocked++;
	if (!cpumask_test_cpu(cpu, &rcu_state.qsmask)) {
		list_add(e, &rcu_state.blkd_tasks);
		return;
	}
	list_add_tail(e, rcu_state.gp_tasks ? rcu_state.gp_tasks
					    : &rcu_state.blkd_tasks);
	rcu_state.gp_tasks = e;
}

/* Take t off the list (lock held); gp_tasks and boost_tasks move past
 * it. True when it was the last thing the grace period waited for. */
static bool rcu_preempt_dequeue(struct task_struct *t)
{
	struct list_head *e = &t->rcu_node_entry;
	bool blocked_gp = rcu_state.gp_tasks != 0;

	if (rcu_state.gp_tasks == e)
		rcu_state.gp_tasks = blkd_next(e);
	if (rcu_state.boost_tasks == e)
		rcu_state.boost_tasks = blkd_next(e);
	list_del_init(e);
	return blocked_gp && rcu_seq_state(rcu_state.gp_seq) && rcu_gp_done();
}

void rcu_preempt_gp_init(void)
{
	rcu_state.gp_tasks = list_empty(&rcu_state.blkd_tasks)
				     ? 0 : rcu_state.blkd_tasks.next;
}

bool rcu_preempt_blocked_readers_cgp(void)
{
	return READ_ONCE(rcu_state.gp_tasks) != 0;
}

int rcu_blocked_readers(void)
{
	unsigned long flags;
	struct list_head *e;
	int n = 0;

	flags = rcu_node_lock();
	for (e = rcu_state.blkd_tasks.next; e != &rcu_state.blkd_tasks;
	     e = e->next)
		n++;
	rcu_node_unlock(flags);
	return n;
}

void rcu_note_context_switch(bool preempt)
{
	struct task_struct *t = current;

	if (IS_ENABLED(CONFIG_PREEMPT_RT) && t->rcu_read_lock_nesting > 0 &&
	    !t->rcu_read_unlock_special.b.blocked) {
		arch_spin_lock(&rcu_state.lock);
		rcu_preempt_ctxt_queue(t, raw_smp_processor_id());
		arch_spin_unlock(&rcu_state.lock);
	}
	rcu_qs(); /* the switch: this CPU's quiescent state */
}

/* From an irq_work: the grace-period kthread woken in hard-interrupt
 * context, never inside the unlock (which may run under the scheduler's
 * locks, where a wake-up would take them again). */
void rcu_preempt_deferred_qs_handler(struct irq_work *iw)
{
	rcu_gp_kthread_wake();
}

/*
 * The outermost rcu_read_unlock() of a section that was switched out:
 * off the list, the grace-period kthread told if it waited only for us,
 * and the boost mutex, if a booster lent us its priority through it,
 * released (our priority falls back; Linux's rt_mutex_futex_unlock()).
 */
void rcu_read_unlock_special(struct task_struct *t)
{
	struct rt_mutex *mtx;
	unsigned long flags;
	bool wake;

	local_irq_save(flags);
	if (!t->rcu_read_unlock_special.b.blocked) {
		local_irq_restore(flags);
		return;
	}
	arch_spin_lock(&rcu_state.lock);
	t->rcu_read_unlock_special.b.blocked = false;
	wake = rcu_preempt_dequeue(t);
	mtx = t->rcu_boost_mutex;
	t->rcu_boost_mutex = 0;
	arch_spin_unlock(&rcu_state.lock);
	if (wake)
		rcu_gp_kthread_wake_deferred();
	local_irq_restore(flags);
	if (mtx)
		__rt_mutex_unlock(mtx);
}

/* The validator reported the held rcu_read_lock and forgot it
 * (lockdep_task_exit()); RT=1 also leaves the blocked list. */
void exit_rcu(void)
{
	struct task_struct *t = current;

	if (!t->rcu_read_lock_nesting)
		return;
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		t->rcu_read_lock_nesting = 0; /* the validator's count */
		return;
	}
	t->rcu_read_lock_nesting = 1;
	__rcu_read_unlock();
}

/* ---- boosting (RT=1) ---- */

/* From the scan (lock held): once only blocked readers hold the grace
 * period up, and have for rcu_boost_delay_ms, boost them all, from
 * gp_tasks on (Linux's rcu_initiate_boost()). True: wake the booster. */
bool rcu_initiate_boost(void)
{
	uint64_t waited = ktime_get_ns() - rcu_state.gp_start_ns;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT) || !READ_ONCE(rcu_boost_enabled) ||
	    !rcu_state.gp_tasks || rcu_state.boost_tasks ||
	    cpumask_weight(&rcu_state.qsmask) ||
	    waited < (uint64_t)rcu_boost_delay_ms * 1000000ull)
		return false;
	rcu_state.boost_tasks = rcu_state.gp_tasks;
	return true;
}

/*
 * Boost the next reader (Linux's rcu_boost()): make it the owner of
 * boost_mtx, then block on that mutex, so that priority inheritance lends
 * it our priority until it releases the mutex at the end of its section.
 * The reader cannot be freed before: it is on the list until then. True
 * while more are to be boosted.
 */
static bool rcu_boost(void)
{
	unsigned long flags = rcu_node_lock();
	struct task_struct *t;

	if (!rcu_state.boost_tasks) {
		rcu_node_unlock(flags);
		return false;
	}
	t = container_of(rcu_state.boost_tasks, struct task_struct,
			 rcu_node_entry);
	rt_mutex_init_proxy_locked(&rcu_state.boost_mtx, t);
	t->rcu_boost_mutex = &rcu_state.boost_mtx;
	rcu_state.n_boosts++;
	rcu_node_unlock(flags);
	rt_mutex_lock(&rcu_state.boost_mtx); /* until t's section ends */
	rt_mutex_unlock(&rcu_state.boost_mtx);
	return READ_ONCE(rcu_state.boost_tasks) != 0;
}

static int rcu_boost_kthread(void *unused)
{
	for (;;) {
		wait_event(rcu_state.boost_wq,
			   READ_ONCE(rcu_state.boost_tasks) != 0);
		while (rcu_boost())
			;
	}
	return 0;
}

int rcu_spawn_boost_kthread(void)
{
	struct task_struct *t;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		return 0;
	t = kthread_create(rcu_boost_kthread, 0, "rcub/0");
	if (!t)
		return -1;
	sched_setscheduler(t, SCHED_FIFO, rcu_boost_prio);
	rcu_state.boost_kthread = t;
	wake_up_process(t);
	return 0;
}
