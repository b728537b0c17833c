/*
 * Tree RCU's grace periods, after Linux's kernel/rcu/tree.c (docs/rcu.md,
 * section 3): the grace-period kthread that starts each one, waits for
 * every online CPU's quiescent state (reporting idle CPUs itself, from
 * their dynticks counters) and for the blocked readers, and ends it; and
 * each CPU's side, from its tick: noticing a new grace period, passing a
 * quiescent state and reporting it. The callbacks that wait for grace
 * periods are in tree_cb.c, the preempted readers in tree_plugin.c.
 *
 * Locking: rcu_state.lock (rcu_node_lock(): interrupts off) guards the
 * shared state; a CPU's rcu_data is its own (struct rcu_data says how).
 */
#include "rcu/rcupdate.h"
#include "rcu/rcutree.h"
#include "rcu/rcu.h"
#include "rcu/tree.h"
#include "rcu/tree_cb.h"
#include "panic.h"
#include "printk.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "time/time.h"

/* The scan's period while a grace period waits for CPUs that are busy. */
#define RCU_FQS_NS 1000000ull

struct rcu_state rcu_state = {
	.lock = ARCH_SPIN_LOCK_UNLOCKED,
	.blkd_tasks = LIST_HEAD_INIT(rcu_state.blkd_tasks),
	.gp_wq = {__RAW_SPIN_LOCK_UNLOCKED(rcu_state.gp_wq.lock),
		  LIST_HEAD_INIT(rcu_state.gp_wq.head)},
	.gp_done_wq = {__RAW_SPIN_LOCK_UNLOCKED(rcu_state.gp_done_wq.lock),
		       LIST_HEAD_INIT(rcu_state.gp_done_wq.head)},
	.boost_wq = {__RAW_SPIN_LOCK_UNLOCKED(rcu_state.boost_wq.lock),
		     LIST_HEAD_INIT(rcu_state.boost_wq.head)},
	.barrier_mutex = __MUTEX_INITIALIZER(rcu_state.barrier_mutex),
};

/* dynticks starts odd: every CPU begins outside idle. */
DEFINE_PER_CPU_UNCHECKED(struct rcu_data, rcu_data) = {
	.dynticks = ATOMIC_INIT(1),
};

static struct rcu_data *rdp_of(int cpu)
{
	return raw_per_cpu_ptr(&rcu_data, cpu);
}

/* This CPU's: the callers have interrupts off, or are this CPU's tick. */
static struct rcu_data *this_rdp(void)
{
	return raw_cpu_ptr(&rcu_data);
}

/* ---- quiescent states ---- */

void rcu_qs(void)
{
	struct rcu_data *rdp = this_rdp();

	if (rdp->cpu_no_qs)
		WRITE_ONCE(rdp->cpu_no_qs, false);
}

void rcu_user_qs(void)
{
	rcu_qs();
}

bool rcu_gp_done(void)
{
	return cpumask_weight(&rcu_state.qsmask) == 0 &&
	       !rcu_preempt_blocked_readers_cgp();
}

bool rcu_report_qs_cpu(int cpu)
{
	/* LAB9 BEGIN */
	if (!cpumask_test_cpu(cpu, &rcu_state.qsmask))
		return false;
	cpumask_clear_cpu(cpu, &rcu_state.qsmask);
	return rcu_gp_done();
	/* LAB9 STUB: return false; */
	/* LAB9 END */
}

void rcu_gp_kthread_wake(void)
{
	wake_up(&rcu_state.gp_wq);
}

void rcu_gp_kthread_wake_deferred(void)
{
	irq_work_queue(&this_rdp()->defer_qs_iw);
}

/*
 * This CPU's view of the grace period, brought up to date (lock held):
 * the callbacks of the grace periods that ended are ready, and a grace
 * period that started and waits for this CPU is owed a quiescent state
 * from now on (one passed before this point may belong to the last one).
 */
static void note_gp_changes(struct rcu_data *rdp)
{
	unsigned long seq = rcu_state.gp_seq;

	if (rdp->gp_seq == seq)
		return;
	rcu_advance_cbs(rdp);
	rdp->core_needs_qs = rcu_seq_state(seq) &&
			     cpumask_test_cpu(rdp->cpu, &rcu_state.qsmask);
	WRITE_ONCE(rdp->cpu_no_qs, rdp->core_needs_qs);
	WRITE_ONCE(rdp->gp_seq, seq);
}

/* This CPU passed a quiescent state for the grace period it noticed:
 * report it (lock held). True when the kthread must be woken. */
static bool rcu_report_qs_rdp(struct rcu_data *rdp)
{
	rdp->core_needs_qs = false;
	if (rdp->gp_seq != rcu_state.gp_seq)
		return false; /* that grace period is over */
	if (!cpumask_test_cpu(rdp->cpu, &rcu_state.qsmask))
		return false;
	rcu_state.n_qs_tick++;
	return rcu_report_qs_cpu(rdp->cpu);
}

/* Whether the tick has RCU work: cheap, without the lock. An idle CPU
 * only for its own callbacks. */
static bool rcu_pending(struct rcu_data *rdp, bool from_idle)
{
	bool cbs = rcu_segcblist_n_cbs(&rdp->cblist) != 0;

	if (from_idle && !cbs)
		return false;
	return READ_ONCE(rcu_state.gp_seq) != rdp->gp_seq ||
	       (rdp->core_needs_qs && !rdp->cpu_no_qs) ||
	       rcu_segcblist_new_cbs(&rdp->cblist) ||
	       rcu_segcblist_ready_cbs(&rdp->cblist);
}

/* Whether the tick interrupted a place that holds no reader open:
 * preemptible code (preempt count zero but for this interrupt) outside
 * any rcu_read_lock() (RT=1). */
static bool rcu_tick_in_qs(void)
{
	return preempt_count() == HARDIRQ_OFFSET && rcu_preempt_depth() == 0;
}

void rcu_sched_clock_irq(void)
{
	struct rcu_data *rdp = this_rdp();
	/* An interrupt that came from idle itself, not one nested in its
	 * softirqs (which interrupted the softirqs, not idle). */
	bool from_idle = rdp->dynticks_irq_nesting == 1, wake = false;

	if (!from_idle && rcu_tick_in_qs())
		rcu_qs();
	if (!rcu_pending(rdp, from_idle))
		return;
	arch_spin_lock(&rcu_state.lock);
	note_gp_changes(rdp);
	if (rdp->core_needs_qs && !rdp->cpu_no_qs)
		wake = rcu_report_qs_rdp(rdp);
	wake |= rcu_accelerate_cbs(rdp);
	arch_spin_unlock(&rcu_state.lock);
	if (wake)
		rcu_gp_kthread_wake();
	if (rcu_segcblist_ready_cbs(&rdp->cblist))
		invoke_rcu_core_kthread(rdp);
}

/* ---- idle: the dynticks counter ---- */

/* Each change a full barrier (a locked add): what the CPU did before
 * idling is ordered before a scan that sees it idle, and what it does
 * after before the scan can miss the change. */
void rcu_idle_enter(void)
{
	atomic_add_return(1, &this_rdp()->dynticks);
}

void rcu_idle_exit(void)
{
	atomic_add_return(1, &this_rdp()->dynticks);
}

void rcu_irq_enter(void)
{
	struct rcu_data *rdp = this_rdp();

	if (rdp->dynticks_irq_nesting) {
		rdp->dynticks_irq_nesting++; /* inside one that came from idle */
		return;
	}
	if (atomic_read(&rdp->dynticks) & 1)
		return; /* not idle: RCU is already watching */
	atomic_add_return(1, &rdp->dynticks);
	rdp->dynticks_irq_nesting = 1;
}

/* Whether the interrupt now leaving came from idle; only that one, the
 * outermost, gives the CPU back to RCU's idle state. */
bool rcu_irq_exit(void)
{
	struct rcu_data *rdp = this_rdp();

	if (!rdp->dynticks_irq_nesting || --rdp->dynticks_irq_nesting)
		return false;
	atomic_add_return(1, &rdp->dynticks);
	return true;
}

static int rcu_dynticks_snap(struct rcu_data *rdp)
{
	smp_mb(); /* our look after whatever made us look */
	return atomic_read(&rdp->dynticks);
}

/* ---- the grace-period kthread ---- */

static bool rcu_gp_needed(void)
{
	return ULONG_CMP_LT(READ_ONCE(rcu_state.gp_seq),
			    READ_ONCE(rcu_state.gp_seq_needed));
}

/* Ask for the grace period that ends at seq (lock held). True when the
 * kthread must be woken to start it. */
bool rcu_start_this_gp(unsigned long seq)
{
	if (ULONG_CMP_GE(rcu_state.gp_seq_needed, seq))
		return false; /* asked already */
	rcu_state.gp_seq_needed = seq;
	return true;
}

static void rcu_gp_init(void)
{
	unsigned long flags = rcu_node_lock();

	rcu_seq_start(&rcu_state.gp_seq);
	cpumask_copy(&rcu_state.qsmask, &rcu_state.qsmaskinitnext);
	rcu_state.gp_start_ns = ktime_get_ns();
	rcu_preempt_gp_init();
	rcu_node_unlock(flags);
}

/* Linux's force_qs_rnp() with dyntick_save_progress_counter() on the
 * first scan and rcu_implicit_dynticks_qs() on the later ones: a CPU the
 * grace period still waits for that idles now (counter even) or has idled
 * since the first look (counter changed) is reported here. */
static void rcu_gp_fqs(bool first)
{
	unsigned long flags = rcu_node_lock();
	bool boost;
	int cpu;

	rcu_state.n_fqs++;
	rcu_state.fqs_asked = false;
	for_each_cpu(cpu, &rcu_state.qsmask) {
		struct rcu_data *rdp = rdp_of(cpu);
		int snap = rcu_dynticks_snap(rdp);

		if (first)
			rdp->dynticks_snap = snap;
		if (!(snap & 1) || snap != rdp->dynticks_snap) {
			rcu_state.n_qs_fqs++;
			rcu_report_qs_cpu(cpu);
		}
	}
	boost = rcu_initiate_boost();
	rcu_node_unlock(flags);
	if (boost)
		wake_up(&rcu_state.boost_wq);
}

static bool rcu_gp_fqs_wanted(void)
{
	return rcu_gp_done() || READ_ONCE(rcu_state.fqs_asked);
}

static void rcu_gp_fqs_loop(void)
{
	for (bool first = true;; first = false) {
		rcu_gp_fqs(first);
		if (rcu_gp_done())
			return;
		wait_event_timeout(rcu_state.gp_wq, rcu_gp_fqs_wanted(),
				   RCU_FQS_NS);
	}
}

/* End the grace period; this CPU's callbacks move on at once, the other
 * CPUs' at their next tick. */
static void rcu_gp_cleanup(void)
{
	unsigned long flags = rcu_node_lock();
	struct rcu_data *rdp;

	rcu_seq_end(&rcu_state.gp_seq);
	rdp = this_rdp();
	note_gp_changes(rdp);
	rcu_accelerate_cbs(rdp);
	rcu_node_unlock(flags);
	if (rcu_segcblist_ready_cbs(&rdp->cblist))
		invoke_rcu_core_kthread(rdp);
	wake_up(&rcu_state.gp_done_wq);
}

static int rcu_gp_kthread(void *unused)
{
	for (;;) {
		wait_event(rcu_state.gp_wq, rcu_gp_needed());
		rcu_gp_init();
		rcu_gp_fqs_loop();
		rcu_gp_cleanup();
	}
	return 0;
}

/* ---- polled grace periods ---- */

unsigned long get_state_synchronize_rcu(void)
{
	return rcu_seq_snap(&rcu_state.gp_seq);
}

unsigned long start_poll_synchronize_rcu(void)
{
	unsigned long s = get_state_synchronize_rcu(), flags;
	bool wake;

	flags = rcu_node_lock();
	wake = rcu_start_this_gp(s);
	rcu_node_unlock(flags);
	if (wake)
		rcu_gp_kthread_wake();
	return s;
}

bool poll_state_synchronize_rcu(unsigned long oldstate)
{
	if (!rcu_seq_done(&rcu_state.gp_seq, oldstate))
		return false;
	smp_mb(); /* what follows after the grace period */
	return true;
}

void cond_synchronize_rcu(unsigned long oldstate)
{
	if (!poll_state_synchronize_rcu(oldstate))
		synchronize_rcu();
}

/* Sleep until the grace period named by s has ended. */
void rcu_wait_gp(unsigned long s)
{
	wait_event(rcu_state.gp_done_wq, poll_state_synchronize_rcu(s));
}

/* ---- CPU hotplug: grace periods ---- */

int rcutree_prepare_cpu(unsigned int cpu)
{
	struct rcu_data *rdp = rdp_of(cpu);
	unsigned long flags;

	flags = rcu_node_lock();
	rdp->cpu = cpu;
	rdp->gp_seq = rcu_state.gp_seq;
	rdp->core_needs_qs = false;
	rdp->cpu_no_qs = false;
	rcu_node_unlock(flags);
	return 0;
}

void rcu_cpu_starting(unsigned int cpu)
{
	arch_spin_lock(&rcu_state.lock);
	cpumask_set_cpu(cpu, &rcu_state.qsmaskinitnext);
	arch_spin_unlock(&rcu_state.lock);
}

/* On the CPU, interrupts off, its idle task the only code it still runs:
 * it reads under RCU no more. The kthread is not woken from a CPU that is
 * leaving; its next scan sees the grace period done. */
void rcutree_report_cpu_dead(void)
{
	int cpu = raw_smp_processor_id();

	arch_spin_lock(&rcu_state.lock);
	cpumask_clear_cpu(cpu, &rcu_state.qsmaskinitnext);
	if (cpumask_test_cpu(cpu, &rcu_state.qsmask)) {
		rcu_state.n_qs_dead++;
		rcu_report_qs_cpu(cpu);
	}
	arch_spin_unlock(&rcu_state.lock);
}

/* ---- counters, start-up ---- */

void rcu_get_counters(struct rcu_counters *c)
{
	unsigned long flags;
	int cpu;

	flags = rcu_node_lock();
	*c = (struct rcu_counters){
		.gp_seq = rcu_state.gp_seq,
		.gps_completed = rcu_state.gp_seq >> RCU_SEQ_CTR_SHIFT,
		.qs_tick = rcu_state.n_qs_tick,
		.qs_fqs = rcu_state.n_qs_fqs,
		.qs_dead = rcu_state.n_qs_dead,
		.fqs = rcu_state.n_fqs,
		.blocked = rcu_state.n_blocked,
		.boosts = rcu_state.n_boosts,
		.throttled = rcu_state.n_throttled,
	};
	rcu_node_unlock(flags);
	for_each_possible_cpu(cpu) {
		struct rcu_data *rdp = rdp_of(cpu);

		c->cbs_queued += READ_ONCE(rdp->cblist.len);
		c->cbs_invoked += READ_ONCE(rdp->n_cbs_invoked);
	}
}

void rcu_init(void)
{
	int cpu;

	rt_mutex_init(&rcu_state.boost_mtx);
	init_completion(&rcu_state.barrier_completion);
	for_each_possible_cpu(cpu)
		rcu_init_cpu_data(rdp_of(cpu), cpu);
	/* The boot CPU took its place on the ladder before RCU existed. */
	rcutree_prepare_cpu(0);
	rcu_cpu_starting(0);
	rcu_state.gp_kthread = kthread_create(rcu_gp_kthread, 0,
					      IS_ENABLED(CONFIG_PREEMPT_RT)
						      ? "rcu_preempt"
						      : "rcu_sched");
	if (!rcu_state.gp_kthread || rcu_spawn_boost_kthread() ||
	    rcutree_online_cpu(0))
		panic("rcu: cannot start the RCU threads");
	/* Above NORMAL work, as on Linux's PREEMPT_RT (kthread_prio). */
	sched_setscheduler(rcu_state.gp_kthread, SCHED_FIFO, 1);
	wake_up_process(rcu_state.gp_kthread);
	printk("rcu: %s RCU, callbacks in rcuc threads, %ld per batch, "
	       "qhimark %ld, qovld %ld%s\n",
	       IS_ENABLED(CONFIG_PREEMPT_RT) ? "preemptible" : "non-preemptible",
	       rcu_blimit, rcu_qhimark, rcu_qovld,
	       IS_ENABLED(CONFIG_PREEMPT_RT) ? ", readers boosted" : "");
}
