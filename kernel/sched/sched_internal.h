/* What the scheduler's files (sched.c, migrate.c, balance.c, kthread.c)
 * share; nothing outside the scheduler includes this. */
#ifndef SCHED_INTERNAL_H
#define SCHED_INTERNAL_H

#include "sched/sched.h"
#include "sched/rt_bandwidth.h"
#include "rcu/rcupdate.h"

#define MAX_PRIO 140 /* the idle task's: below everything */

/* A CPU's run queue. All fields under lock (interrupts off); nr_running
 * and the RT bitmap may be read without it as hints. */
struct rq {
	arch_spinlock_t lock;
	struct list_head rt_queue[MAX_RT_PRIO]; /* by internal prio */
	uint64_t rt_bitmap[2];       /* bit p: rt_queue[p] not empty */
	struct list_head normal_queue;
	int nr_running;              /* queued, running one included, idle not */
	int nr_rt;                   /* RT tasks among them */
	int nr_movable;              /* queued tasks allowed elsewhere too */
	int nr_rt_movable;           /* RT ones among those */
	struct task_struct *curr;
	/* curr->prio, for other CPUs' unlocked reads (placement): curr may
	 * switch out, exit and be freed between their loading rq->curr and
	 * its prio. Written with the lock held, when curr or its prio
	 * changes. */
	int curr_prio;
	struct task_struct *idle;
	int cpu;
	/* The CPU is not active (going down, or not yet up): every task
	 * that switches out here leaves, but the idle task, per-CPU threads
	 * and pinned ones (balance_push() in Linux; sched/hotplug.c). */
	bool balance_push;
	/* Tasks that went to sleep here pinned (migrate_disable): they wake
	 * here, so the CPU cannot go before they have come and gone. */
	int nr_pinned_asleep;
	/* RT bandwidth (rt_bandwidth.c), counted by this CPU's tick: ticks
	 * RT tasks ran in this period (the excess carried over), ticks into
	 * the period, and whether its RT tasks are throttled (not picked)
	 * until the period ends. Read unlocked only as hints. */
	long rt_time;
	long rt_period_pos;
	bool rt_throttled;
	struct rt_bandwidth_stat rt_stat;
};

/*
 * The scheduler's RCU readers: without the validator's held-lock entry
 * (rcu_read_lock() pushes one on the current task's stack), because the
 * scheduler runs for a task it may have preempted in the middle of the
 * validator's own push on that stack, which only the task writes
 * (lockdep_fast.h). Always with interrupts off, so never preempted
 * themselves; and on RT=1 the unlock never takes the slow path, which
 * may release a boost mutex and so take run-queue locks we may hold. A
 * special state it could find belongs to the task's own reader: one
 * preempted between its count reaching zero and its look at the state,
 * which it handles itself when it runs again.
 */
static __always_inline void sched_rcu_read_lock(void)
{
	__rcu_read_lock();
}

static __always_inline void sched_rcu_read_unlock(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		barrier(); /* the section's accesses before the count */
		current->rcu_read_lock_nesting--;
	} else {
		__rcu_read_unlock();
	}
}

/* Whether rq's running task is one balancing could move (rt: an RT one),
 * were it not running. Read without the lock, as a hint: rq->curr may
 * switch out, exit and be freed meanwhile, so inside an RCU reader, which
 * keeps its memory until we are done (docs/rcu.md). */
static inline bool movable_curr(const struct rq *rq, bool rt)
{
	const struct task_struct *c;
	bool movable;

	sched_rcu_read_lock();
	c = READ_ONCE(rq->curr);
	explore_window(EXPLORE_MOVABLE_CURR);
	movable = c && c != rq->idle && !task_freed(c, "movable_curr") &&
		  c->nr_cpus_allowed > 1 && (!rt || c->prio < MAX_RT_PRIO);
	sched_rcu_read_unlock();
	return movable;
}

/* Unchecked (raw_*_ptr): a run queue is protected by rq->lock, an arch
 * spinlock below the validator, taken after the pointer is formed. */
DECLARE_PER_CPU_UNCHECKED(struct rq, runqueues);
#define cpu_rq(cpu) raw_per_cpu_ptr(&runqueues, cpu)
#define this_rq() raw_cpu_ptr(&runqueues)

/* CPUs with RT tasks queued but not running: candidates for pulling. */
extern cpumask_t rt_overload_mask;

void enqueue_task(struct rq *rq, struct task_struct *p, bool head);
void account_movable(struct rq *rq, struct task_struct *p, int sign);
void dequeue_task(struct rq *rq, struct task_struct *p);
int rq_best_prio(const struct rq *rq);
void update_rt_overload(struct rq *rq);
struct rq *task_rq_lock(struct task_struct *p);
void double_rq_lock(struct rq *a, struct rq *b);
void double_rq_unlock(struct rq *a, struct rq *b);
void resched_curr(struct rq *rq);
void check_preempt_curr(struct rq *rq, struct task_struct *p);
void set_task_prio(struct task_struct *p, int prio);
void finish_task_switch(struct task_struct *prev);

/* migrate.c */
bool task_can_move(struct rq *rq, struct task_struct *p, int dest_cpu);
bool must_move_off(struct rq *rq, struct task_struct *p);
void move_queued_task(struct rq *src, struct rq *dst, struct task_struct *p);
void migrate_switched_out(struct task_struct *p);

/* balance.c */
bool is_cpu_allowed(const struct task_struct *p, int cpu);
int select_task_rq(struct task_struct *p);
struct rq *select_task_rq_lock(struct task_struct *p);
int select_fallback_rq(struct task_struct *p, struct rq *queued_on);
const cpumask_t *task_fallback_mask(const struct task_struct *p, int cpu);
void pull_tasks(struct rq *rq);
void push_rt_tasks(struct rq *rq);

/* hotplug.c */
void sched_hotplug_notify(struct rq *rq);

/* rt_bandwidth.c */
void sched_rt_init(void);
void sched_rt_tick(struct rq *rq);
void sched_rt_rq_reset(struct rq *rq);

/* Whether p is an RT task (by its effective priority) that rq may not run
 * now because rq's RT tasks are throttled. */
static inline bool rt_throttled_for(const struct rq *rq, const struct task_struct *p)
{
	return p->prio < MAX_RT_PRIO && READ_ONCE(rq->rt_throttled);
}

/* Tasks rq could run now: its throttled RT tasks do not count. */
static inline int rq_nr_runnable(const struct rq *rq)
{
	return rq->nr_running - (rq->rt_throttled ? rq->nr_rt : 0);
}

/* kthread.c */
struct task_struct *idle_task_alloc(int cpu);
void put_dead_task(struct task_struct *t);

#endif
