/*
 * Tasks and scheduling, with Linux's names and semantics (see
 * docs/scheduler.md): kernel threads, per-CPU run queues, SCHED_FIFO and
 * SCHED_RR above SCHED_NORMAL, full preemption, and migrate_disable().
 */
#ifndef SCHED_H
#define SCHED_H

#include "compiler.h"
#include <stdbool.h>
#include <stdint.h>
#include "cpumask.h"
#include "delay.h"
#include "irqflags.h"
#include "list.h"
#include "percpu.h"
#include "refcount.h"
#include "preempt.h"
#include "trace/trace.h"
#include "rcu/rcu_types.h"
#include "asm/spinlock.h"

struct rt_mutex;
struct rt_mutex_waiter;
struct process;

enum sched_policy { SCHED_NORMAL = 0, SCHED_FIFO = 1, SCHED_RR = 2 };

/* Internal priority: 0..98 for RT priorities 99..1 (lower is higher, as in
 * Linux's prio), NORMAL_PRIO for SCHED_NORMAL. */
#define MAX_RT_PRIO 100
#define NORMAL_PRIO 120
#define RR_TIMESLICE_TICKS 10     /* 10 ms at HZ=1000 */
#define NORMAL_TIMESLICE_TICKS 4

#define TASK_COMM_LEN 16

enum task_state {
	TASK_RUNNING = 0,
	TASK_INTERRUPTIBLE = 1,
	TASK_UNINTERRUPTIBLE = 2,
	TASK_DEAD = 4,
	TASK_NEW = 8,          /* created, never woken */
};

struct task_struct {
	uint64_t saved_sp;           /* asm/switch_to.h: valid while not running */
	int saved_preempt_count;     /* the CPU's count while switched out */
	/* PREEMPT_RT's softirq count (Linux's softirq_disable_cnt): the
	 * preempt count's softirq byte, kept by the task, because a BH
	 * section is preemptible there (kernel/softirq.c). Its own. */
	int softirq_disable_cnt;
	void *stack;                 /* lowest usable address (stack.h) */
	unsigned int __state;        /* enum task_state; written by the task
				      * itself, or by a waker under pi_lock;
				      * read through READ_ONCE()
				      * (task_is_running()) */
	int pid;                     /* task id, from 1 */
	char comm[TASK_COMM_LEN];    /* name, as Linux's comm */

	/* Scheduling. cpu, on_rq, migrating and run_list are under the run
	 * queue lock of cpu (cpu is also read unlocked: task_cpu(), so its
	 * stores are WRITE_ONCE()); on_cpu is set by the CPU switching to
	 * the task and cleared (smp_store_release()) once the task's
	 * context is fully saved: a waker's smp_cond_load_acquire() on it
	 * then sees the whole saved context. */
	int cpu;
	bool on_rq;                  /* queued (the running task stays queued) */
	/* Taken off its queue by a preemption to go to another CPU, whatever
	 * its state: queued there once switched out (migrate_switched_out).
	 * A wakeup meanwhile only sets it TASK_RUNNING. Set under the old
	 * run queue's lock, cleared under pi_lock: a waker holds both. */
	bool migrating;
	bool on_cpu;
	struct list_head run_list;
	int policy;
	int rt_priority;             /* 1..99 for RT policies, 0 otherwise */
	int normal_prio;             /* from policy and rt_priority */
	int prio;                    /* effective: normal_prio or inherited */
	int time_slice;              /* ticks left (RR and NORMAL) */

	/* Affinity. cpus_mask is what was asked for; while migration is
	 * disabled the task stays on its CPU whatever the mask says, and a
	 * mask that excludes that CPU is applied at migrate_enable(). */
	cpumask_t cpus_mask;
	int nr_cpus_allowed;
	int migration_disabled;      /* nesting; written only by the task */
	/* Move me off this CPU when I can. Read by the task without a lock
	 * (migrate_enable()), set by set_cpus_allowed() from another CPU:
	 * those two accesses are READ_ONCE()/WRITE_ONCE(); every other one
	 * is the task's own, or made while it cannot run. */
	bool migration_pending;
	bool pinned_asleep;          /* counted in its rq's nr_pinned_asleep */
	/* A per-CPU kernel thread (kthread_create_on_cpu): it belongs to its
	 * CPU, runs there while the CPU is online but no longer active, and
	 * is parked, not moved, when the CPU goes (kthread_park). */
	bool per_cpu_kthread;
	/* The park handshake (kthread.c): each flag is written with
	 * smp_store_release() and read with smp_load_acquire(). */
	bool should_park;            /* kthread_park() asks */
	bool parked;                 /* it sleeps in kthread_parkme() */

	/* pi_lock serialises wakeups and priority changes of this task. */
	arch_spinlock_t pi_lock;

	/* Priority inheritance (rtmutex.c, under its chain lock). */
	struct list_head pi_locks;   /* rt_mutexes it owns that have waiters */
	struct rt_mutex_waiter *pi_blocked_on;

	/* Life cycle (kthread.c). */
	int (*fn)(void *arg);
	void *arg;
	int exit_code;
	/* The task in kthread_join(), if any; moved only by xchg() and
	 * cmpxchg() (kthread.c). */
	struct task_struct *joiner;
	refcount_t usage;            /* the task's own, and its creator's
				      * (get_task_struct()) */
	struct list_head tasks;      /* all tasks: for the timeout report */

	/* RCU (kernel/rcu/, docs/rcu.md). rcu_read_lock_nesting: the
	 * depth of the task's readers on RT=1, and on RT=0 with the
	 * validator (which sees the outermost); the rest is RT=1's:
	 * what its outermost unlock must do, its place on the blocked
	 * readers' list (under rcu_state.lock) and the boost mutex it
	 * owns while boosted. Written by the task, but rcu_node_entry and
	 * rcu_boost_mutex, which the lock covers. */
	int rcu_read_lock_nesting;
	union rcu_special rcu_read_unlock_special;
	struct list_head rcu_node_entry;
	struct rt_mutex *rcu_boost_mutex;
	struct rcu_head rcu;         /* frees it a grace period after the
				      * last put_task_struct() */

	/* The user process this task runs, or NULL (process.h). */
	struct process *proc;

	/* The lock validator: locks held, in order (lockdep.c). */
	struct lockdep_task lockdep;
	/* might_sleep() reported a sleep from this activation (its frame
	 * and return address): a schedule() inside it is that sleep, not
	 * reported again. SLEEP_REPORTED_ALL: exiting, already reported. */
	uintptr_t sleep_report_frame, sleep_report_ret;
	/* The trace (trace_gen) whose migrate_disable() span this task has
	 * open, or 0 (trace_migrate_span()). */
	unsigned long trace_span_gen;
#ifdef CONFIG_EXPLORE
	int explore_depth;           /* in an injection (explore.c) */
#endif
};

DECLARE_PER_CPU(struct task_struct *, current_task);

/* Unchecked: a task's own pointer is stable for it wherever it runs (the
 * switch changes it and the task together), and the checker itself asks.
 * So the compiler may load it once per function, as Linux's current does
 * (this_cpu_read_stable); the few places that write current_task
 * (context_switch, the idle tasks' set-up) never read it back after the
 * write in the same function. */
static inline struct task_struct *get_current(void)
{
	return this_cpu_read_stable(current_task);
}
#define current get_current()

/* ---- the context tests that need the task (softirq_count() on
 * PREEMPT_RT); the rest are in preempt.h ---- */

/* The softirq count, as Linux's: the preempt count's softirq byte on
 * RT=0; on PREEMPT_RT the task's own (BH sections are preemptible). */
static inline int softirq_count(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return current->softirq_disable_cnt & SOFTIRQ_MASK;
	return preempt_count() & SOFTIRQ_MASK;
}

/* In a BH-disabled section or serving a softirq. */
static inline bool in_softirq(void)
{
	return softirq_count();
}

/* Running a softirq handler. */
static inline bool in_serving_softirq(void)
{
	return softirq_count() & SOFTIRQ_OFFSET;
}

/* Any context but a task's own, as Linux's: an NMI, a hard interrupt, a
 * softirq handler, or a BH-disabled section (softirq_count()). The
 * scheduler asks in_hardirq() instead: a softirq on PREEMPT_RT runs in a
 * task and may sleep on a spinlock_t. */
static inline bool in_interrupt(void)
{
	return in_hardirq() || softirq_count(); /* an NMI is a hardirq too */
}

/* Task context: no NMI, hard interrupt or softirq handler. */
static inline bool in_task(void)
{
	return !in_hardirq() && !in_serving_softirq();
}

/*
 * References to a task, as Linux's: a task_struct stays allocated while
 * anyone holds one, and for a grace period after the last is dropped
 * (docs/rcu.md). The task holds its own until it has switched out for
 * the last time; kthread_create() gives its caller one more, dropped by
 * kthread_join() or kthread_detach(). Anyone else who keeps a pointer to
 * a task past the lock or section that found it takes one first; a look
 * without a reference or a lock that keeps the task alive is made inside
 * rcu_read_lock().
 */
static inline struct task_struct *get_task_struct(struct task_struct *t)
{
	refcount_inc(&t->usage);
	return t;
}

void put_task_struct(struct task_struct *t);

/*
 * A freed task_struct is filled with TASK_FREE_POISON (Linux's
 * POISON_FREE) before kfree(): until its memory is used again, its
 * __state reads TASK_STATE_FREED, which no live task has. The scheduler
 * checks that where it looks at a task it holds no reference to
 * (task_freed_bug(), kthread.c): RCU makes such a look safe, and a use
 * after free there is a bug to report, not to run into.
 */
#define TASK_FREE_POISON 0x6b
#define TASK_STATE_FREED 0x6b6b6b6bu

bool task_freed_bug(const struct task_struct *t, const char *where);

static inline bool task_freed(const struct task_struct *t, const char *where)
{
	return unlikely(READ_ONCE(t->__state) == TASK_STATE_FREED) &&
	       task_freed_bug(t, where);
}

/* Threads. */
struct task_struct *kthread_create(int (*fn)(void *arg), void *arg, const char *name);
struct task_struct *kthread_run(int (*fn)(void *arg), void *arg, const char *name);
int kthread_join(struct task_struct *t);
/* Nobody will join t: it is freed once it has exited. */
void kthread_detach(struct task_struct *t);
__noreturn void kthread_exit(int code);
int wake_up_process(struct task_struct *t);
void kthread_bind(struct task_struct *t, int cpu);
/* Per-CPU kernel threads, as Linux's: created bound to cpu (and stopped);
 * parked while their CPU is away. kthread_park() returns once t sleeps in
 * kthread_parkme(), which t calls when kthread_should_park() says so;
 * kthread_unpark() lets it go on, on its CPU. */
struct task_struct *kthread_create_on_cpu(int (*fn)(void *arg), void *arg, int cpu,
				   const char *name);
void kthread_park(struct task_struct *t);
void kthread_unpark(struct task_struct *t);
bool kthread_should_park(void);
void kthread_parkme(void);
int set_cpus_allowed(struct task_struct *t, const cpumask_t *mask);
/* Give t back an affinity saved before it moved itself about (saved =
 * t->cpus_mask, then set_cpus_allowed() to other CPUs). If none of the
 * saved CPUs is active any more, they went while t was away from them,
 * and t gets what a task gets whose CPUs go while it is theirs: the
 * fallback affinity, with Linux's "no longer affine" line. */
void restore_cpus_allowed(struct task_struct *t, const cpumask_t *saved);
/* Any caller may set any policy: the limit on user programs
 * (RLIMIT_RTPRIO) is checked by their system call. */
int sched_setscheduler(struct task_struct *t, int policy, int rt_priority);
/* Whether policy and rt_priority make a valid pair. */
bool sched_param_valid(int policy, int rt_priority);
int task_prio(const struct task_struct *t);
static inline int task_cpu(const struct task_struct *t)
{
	return READ_ONCE(t->cpu);
}

/* Scheduling. */
void schedule(void);
void yield(void);
void msleep(unsigned long ms);
void usleep(unsigned long us);
/* Sleep in state until woken or timeout_ns passes; returns ns left. */
uint64_t schedule_timeout(uint64_t timeout_ns);

/*
 * A task's state, as Linux's: read with READ_ONCE(p->__state) (a waker
 * may change it at any time), or task_is_running(). The running task sets
 * its own before deciding to sleep (see wait.h): set_current_state() is
 * a store and a full barrier, so that the test of the wake-up condition
 * that follows cannot be done before the store, and a waker that makes
 * the condition true and then looks at the state sees it; the plain
 * __set_current_state() is for when no condition test follows.
 */
#define task_is_running(p) (READ_ONCE((p)->__state) == TASK_RUNNING)

static inline unsigned int get_current_state(void)
{
	return READ_ONCE(current->__state);
}

static inline void __set_current_state(unsigned int state)
{
	WRITE_ONCE(current->__state, state);
}

static inline void set_current_state(unsigned int state)
{
	smp_store_mb(current->__state, state);
}

/* A state no wake-up may undo (TASK_DEAD), set under pi_lock as Linux's
 * set_special_state(): a waker tests the state and writes TASK_RUNNING
 * under that lock, so it cannot test an older sleeping state and then
 * write over this one. */
static inline void set_special_state(unsigned int state)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&current->pi_lock);
	smp_store_mb(current->__state, state);
	arch_spin_unlock(&current->pi_lock);
	local_irq_restore(flags);
}

/*
 * migrate_disable(): keep the running task on this CPU, preemptible. The
 * fast path is a plain increment of a field only the task writes: nobody
 * else may move a task while it runs, and a task that is switched out has
 * its count in memory (the switch is a full barrier). The trace (trace.h)
 * records the outermost pair as a span (trace_migrate_span(), in
 * trace/trace.c); off, its hook is a nop (a static key), so the pair
 * costs what preempt_disable()'s does: current is read once (it is
 * stable for the task), then an increment, a decrement and one branch. scripts/build/check-migrate-ops.sh checks that at build
 * time: no call and no locked instruction on the fast path.
 */
void trace_migrate_span(enum trace_type type);    /* trace/trace.c */

static inline void migrate_disable(void)
{
	current->migration_disabled++;
	if (trace_migrate_enabled())
		trace_migrate_span(TRACE_MIGRATE_DISABLE);
	barrier();
}

void migrate_enable_slow(void);

static inline void migrate_enable(void)
{
	struct task_struct *t = current;

	barrier();
	if (trace_migrate_enabled())
		trace_migrate_span(TRACE_MIGRATE_ENABLE);
	/* LAB3 BEGIN */
	/* The count is stored before pending is read: set_cpus_allowed()
	 * writes pending, then asks this CPU to reschedule. If the request
	 * lands before the store, the read after it sees pending; if after,
	 * the switch sees the count at zero and moves the task. Read first,
	 * a request landing between the two would find the count still held
	 * and leave the stale "nothing pending" to stand. (No request is
	 * sent when one is already outstanding; then the exit of the next
	 * interrupt, the tick at the latest, finds the count at zero and
	 * makes the move.) "Count now zero and a move pending" is one
	 * comparison, so one branch (the count is never negative, pending
	 * is 0 or 1). */
	int count = --t->migration_disabled;

	barrier();
	if (unlikely(READ_ONCE(t->migration_pending) > count))
		migrate_enable_slow();
	/* LAB3 STUB: t->migration_disabled--; */
	/* LAB3 END */
	explore_point(EXPLORE_MIGRATE_ENABLE);
}

/* For the scheduler's own users (sched.c, timer.c, kthread.c). */
void sched_init(void);                  /* boot CPU, before other CPUs */
__noreturn void cpu_idle(void);
void sched_init_ap(int cpu);            /* an AP, on its way in */
void scheduler_tick(void);
void preempt_schedule_irq(void);
/* Ask cpu to reschedule (a reschedule IPI unless it is this CPU). */
void resched_cpu(int cpu);
void sched_show_all(void);              /* every task: state, CPU, stack */
/* fn(t, arg) for each task until one returns true; whether one did.
 * Under the task list's lock, interrupts off: fn is short, never sleeps,
 * and keeps no pointer to t (it may be freed once this returns). */
bool task_find(bool (*fn)(struct task_struct *t, void *arg), void *arg);

/* CPU hotplug callbacks (kernel/cpu.c, sched/hotplug.c). */
int sched_cpu_activate(unsigned int cpu);   /* tasks may come */
int sched_cpu_deactivate(unsigned int cpu); /* none come; push them off */
int sched_cpu_wait_empty(unsigned int cpu); /* until none is left there */
int sched_cpu_starting(unsigned int cpu);   /* on the CPU, IRQs off */
int sched_cpu_dying(unsigned int cpu);      /* on the CPU, IRQs off */
void show_task_stack(struct task_struct *t);

#define SLEEP_REPORTED_ALL (~(uintptr_t)0)

/* Counters for tests and benchmarks. */
DECLARE_PER_CPU_STAT(unsigned long, nr_switches);
extern atomic_long_t smp_processor_id_warnings;
extern atomic_long_t might_sleep_warnings;
extern atomic_long_t sched_freed_task_uses;   /* task_freed_bug() */
/* A task picked under a run queue's lock and looked at again after the
 * lock was dropped, by RT push (push_rt_tasks()) and by a CPU going
 * down (push_one_queued()): a test of those windows counts that it
 * reached them. */
DECLARE_PER_CPU_STAT(unsigned long, nr_push_rt_rechecks);
DECLARE_PER_CPU_STAT(unsigned long, nr_push_queued_rechecks);
/* Pushes from this CPU that task_can_move() refused at the recheck: the
 * scan saw the task movable, and under both locks the rule said no. A
 * correct rule says so only if the task's affinity or the destination's
 * state changed in between; a test tells a push that cannot happen from
 * one that has not happened yet. */
DECLARE_PER_CPU_STAT(unsigned long, nr_push_rt_refused);

#endif
