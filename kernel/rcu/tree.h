/*
 * Tree RCU's state, shared by tree.c (grace periods, callbacks, hotplug)
 * and tree_plugin.c (preempted readers and their boosting), as Linux's
 * kernel/rcu/tree.h. Linux's rcu_node tree collapses to one node here:
 * its lock, its bit mask of CPUs and its list of blocked readers are
 * fields of rcu_state (docs/rcu.md).
 */
#ifndef RCU_TREE_H
#define RCU_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include "atomic.h"
#include "cpumask.h"
#include "irq_work.h"
#include "list.h"
#include "percpu.h"
#include "locking/mutex.h"
#include "locking/rtmutex.h"
#include "irqflags.h"
#include "asm/spinlock.h"
#include "rcu/rcu_segcblist.h"
#include "sched/completion.h"
#include "sched/wait.h"

struct rcu_state {
	/* The lock of the one rcu_node: gp_seq and gp_seq_needed change,
	 * qsmask, qsmaskinitnext, the blocked readers and the boost under
	 * it. An arch spinlock with interrupts off (rcu_node_lock()), below
	 * the validator as the run queues' locks are: __schedule() takes it
	 * for a task it may have preempted inside the validator's own
	 * bookkeeping of that task (lockdep_fast.h). Nothing is taken
	 * under it. */
	arch_spinlock_t lock;
	unsigned long gp_seq;          /* rcu.h; read without the lock */
	unsigned long gp_seq_needed;   /* the furthest grace period asked for */
	cpumask_t qsmask;              /* CPUs the grace period waits for */
	cpumask_t qsmaskinitnext;      /* CPUs the next one will wait for */
	uint64_t gp_start_ns;          /* when the grace period started */
	bool fqs_asked;                /* call_rcu() wants a scan now */

	/* Preempted readers, newest first (tree_plugin.c). gp_tasks: the
	 * first that blocks the grace period in progress, all after it do
	 * too; boost_tasks: the next to boost. NULL: none. */
	struct list_head blkd_tasks;
	struct list_head *gp_tasks;
	struct list_head *boost_tasks;
	struct rt_mutex boost_mtx;     /* lent to the reader being boosted */
	struct task_struct *boost_kthread;
	struct wait_queue_head boost_wq;

	struct task_struct *gp_kthread;
	struct wait_queue_head gp_wq;  /* the kthread waits for work here */
	struct wait_queue_head gp_done_wq; /* woken at the end of each */

	/* rcu_barrier(). */
	struct mutex barrier_mutex;
	atomic_t barrier_cpu_count;
	struct completion barrier_completion;

	/* Counters (struct rcu_counters, rcutree.h); under the lock. */
	unsigned long n_qs_tick;       /* reported by a CPU's own tick */
	unsigned long n_qs_fqs;        /* reported for idle CPUs by the scan */
	unsigned long n_qs_dead;       /* reported by a CPU going offline */
	unsigned long n_fqs;           /* scans */
	unsigned long n_blocked;       /* readers queued as blocked */
	unsigned long n_boosts;        /* readers boosted */
	unsigned long n_throttled;     /* call_rcu() callers that waited */
};

/* One CPU's part (a per-CPU variable). Unless a field says otherwise it
 * is used only by its CPU, with interrupts off, or once the CPU is dead
 * by the CPU that took it down. */
struct rcu_data {
	int cpu;
	/* The grace period this CPU last noticed, and whether it owes it a
	 * quiescent state: core_needs_qs while the grace period waits for
	 * this CPU, cpu_no_qs until the CPU passed one since it noticed.
	 * Changed with rcu_state.lock held, cpu_no_qs also cleared without
	 * it (rcu_qs()). */
	unsigned long gp_seq;
	bool core_needs_qs;
	bool cpu_no_qs;
	/* Even while the CPU idles (an extended quiescent state), odd
	 * otherwise; every change a full barrier. Read by the grace-period
	 * kthread, which keeps its first look in dynticks_snap (under
	 * rcu_state.lock). dynticks_irq_nesting: the interrupts nested on
	 * this CPU since one that came from idle made it odd (0: none did);
	 * an interrupt can nest in another's softirqs, which run with
	 * interrupts on, and only the outermost makes it even again. */
	atomic_t dynticks;
	int dynticks_irq_nesting;
	int dynticks_snap;

	struct rcu_segcblist cblist;
	long qlen_last_fqs_check;      /* the length that last kicked */
	unsigned long n_cbs_invoked;
	struct rcu_head barrier_head;  /* rcu_barrier()'s callback */

	/* The rcuc thread, and whether it has callbacks to run (set by the
	 * tick, cleared by the thread). */
	struct task_struct *rcu_cpu_kthread_task;
	bool rcu_cpu_has_work;
	struct wait_queue_head rcuc_wq;
	/* Wakes the grace-period kthread from where waking is not allowed
	 * (rcu_read_unlock_special()). */
	struct irq_work defer_qs_iw;
};

extern struct rcu_state rcu_state;

static inline unsigned long rcu_node_lock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&rcu_state.lock);
	return flags;
}

static inline void rcu_node_unlock(unsigned long flags)
{
	arch_spin_unlock(&rcu_state.lock);
	local_irq_restore(flags);
}
/* Unchecked: its fields are handed between the CPU, its tick, its rcuc
 * thread and the grace-period kthread under the rules above, which the
 * per-CPU checker cannot see. */
DECLARE_PER_CPU_UNCHECKED(struct rcu_data, rcu_data);

/* tree.c */
/* A quiescent state passed on this CPU: only a flag, reported by the
 * next tick. Interrupts off. */
void rcu_qs(void);
/* cpu has passed a quiescent state (rcu_state.lock held): true exactly
 * when this report leaves the grace period in progress waiting for
 * nothing; a report for a CPU it does not wait for changes nothing and
 * returns false. */
bool rcu_report_qs_cpu(int cpu);
/* Whether the grace period in progress waits for nothing more. */
bool rcu_gp_done(void);
/* The grace-period kthread has work (lock not needed). The _deferred
 * form from anywhere, through this CPU's irq_work: from the scheduler's
 * own paths, where a wait queue's lock must not be taken. */
void rcu_gp_kthread_wake(void);
void rcu_gp_kthread_wake_deferred(void);

/* tree_plugin.c: preempted readers (RT=1; on RT=0 there are none). */
void rcu_preempt_gp_init(void);        /* lock held */
bool rcu_preempt_blocked_readers_cgp(void);
bool rcu_initiate_boost(void);         /* lock held: true to wake rcub */
int rcu_spawn_boost_kthread(void);
void rcu_preempt_deferred_qs_handler(struct irq_work *iw);

#endif
