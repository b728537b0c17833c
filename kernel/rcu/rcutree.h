/*
 * Tree RCU's side of the rest of the kernel (Linux's include/linux/
 * rcutree.h and its module parameters): the hooks the scheduler, the
 * interrupt entry, the idle loop, the tick and CPU hotplug call, the
 * tunables, and the counters tests and benchmarks read. The API for
 * readers and writers is rcupdate.h.
 */
#ifndef RCUTREE_H
#define RCUTREE_H

#include <stdbool.h>

/* ---- hooks ---- */

/* From kmain(), after the scheduler and the validator: the boot CPU's
 * part and the grace-period, boost and boot CPU's rcuc threads. */
void rcu_init(void);
/* __schedule(), interrupts off, before the run queue is locked: a
 * quiescent state for this CPU; on RT=1 a task preempted inside a reader
 * is queued as blocked first. preempt: an involuntary switch. */
void rcu_note_context_switch(bool preempt);
/* The tick (hard interrupt): notice grace periods, pass and report
 * quiescent states, move callbacks along, wake the rcuc thread. */
void rcu_sched_clock_irq(void);
/* exit_to_user_mode(), interrupts off: no reader reaches ring 3. */
void rcu_user_qs(void);
/* The idle loop, interrupts off, around its halt: an extended quiescent
 * state, which the grace-period kthread sees without waking the CPU. */
void rcu_idle_enter(void);
void rcu_idle_exit(void);
/* Interrupt entry and exit: a handler that interrupted idle may read
 * under RCU, so the CPU leaves its quiescent state while it runs.
 * rcu_irq_exit() says whether the interrupt came from idle (the idle
 * loop, not the return from the interrupt, then schedules). */
void rcu_irq_enter(void);
bool rcu_irq_exit(void);
/* A task exits: a reader it left open is closed (a bug that the
 * validator reports as a lock held at exit). */
void exit_rcu(void);

/* CPU hotplug (kernel/cpu.c's table and its two ends). */
int rcutree_prepare_cpu(unsigned int cpu);   /* PREPARE */
int rcutree_dead_cpu(unsigned int cpu);      /* DEAD: its callbacks move */
void rcu_cpu_starting(unsigned int cpu);     /* first STARTING step */
int rcutree_online_cpu(unsigned int cpu);    /* ONLINE: its rcuc runs */
int rcutree_offline_cpu(unsigned int cpu);   /* ONLINE: its rcuc parks */
void rcutree_report_cpu_dead(void);          /* its last act, before parking */

/* ---- tunables (Linux's rcutree.* parameters) ---- */

/* Callbacks per rcuc batch, unless the CPU has more than rcu_qhimark. */
extern long rcu_blimit;
/* Past qhimark callbacks on a CPU call_rcu() kicks the grace-period
 * kthread; past qovld a caller that may sleep waits for a grace period. */
extern long rcu_qhimark;
extern long rcu_qovld;
/* RT=1: a reader blocking a grace period for rcu_boost_delay_ms is
 * lent SCHED_FIFO rcu_boost_prio; rcu_boost_enabled = false shows what
 * happens without (tests). */
extern bool rcu_boost_enabled;
extern unsigned int rcu_boost_delay_ms;
extern int rcu_boost_prio;

/* ---- counters ---- */

struct rcu_counters {
	unsigned long gp_seq;          /* rcu_state.gp_seq */
	unsigned long gps_completed;   /* grace periods ended since boot */
	unsigned long qs_tick;         /* quiescent states reported by the tick */
	unsigned long qs_fqs;          /* ... by the scan, for idle CPUs */
	unsigned long qs_dead;         /* ... by CPUs going offline */
	unsigned long fqs;             /* scans made */
	unsigned long blocked;         /* readers queued as blocked (RT=1) */
	unsigned long boosts;          /* readers boosted (RT=1) */
	unsigned long throttled;       /* call_rcu() callers that waited */
	long cbs_queued;               /* callbacks not yet invoked, all CPUs */
	unsigned long cbs_invoked;     /* invoked since boot, all CPUs */
};

void rcu_get_counters(struct rcu_counters *c);
/* How many readers are queued as blocked right now (RT=1). */
int rcu_blocked_readers(void);

#endif
