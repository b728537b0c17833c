/*
 * What the corpus's scenario files (tests/lockdep/corpus_*.c) share: the two CPUs
 * a scenario uses, updates with a race window, counter bookkeeping,
 * interrupts on demand, and racing contexts started together.
 *
 * The scenario's own CPU, C (corpus_cpu()), is the last online CPU, away
 * from the test task on CPU 0 when there are two or more; the other CPU,
 * O (corpus_other_cpu()), is CPU 0 (C itself on one CPU).
 */
#ifndef CORPUS_UTIL_H
#define CORPUS_UTIL_H

#include <stdbool.h>

#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "percpu.h"
#include "percpu_corpus.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"

int corpus_cpu(void);
int corpus_other_cpu(void);

/* The scenario's set-up failed: its verdict means nothing. */
void corpus_broken(const char *why);

/* The race window: corpus.widen cpu_relax()es. */
void corpus_widen(void);

/* One update with the window between the read and the write-back: a
 * preemption, migration or interrupt in between loses what it did. */
void corpus_rmw(long *p);
/* The same on cpu's copy through per_cpu(): two checked accesses. */
void corpus_rmw_per_cpu(long *var, int cpu);
/* In hardirq: corpus_rmw() of this CPU's copy of the long at arg. */
void corpus_irq_rmw(void *arg);

/* Bookkeeping the validator does not see (raw_per_cpu_ptr(), and
 * atomic loads and stores, which the compiler's hooks do not check):
 * zero every copy of var before a scenario, sum them after. */
void corpus_zero(long *var);
long corpus_sum(long *var);

/* Run fn(arg) in hard-interrupt context on cpu and wait for it: a
 * self-IPI when cpu is the caller's, else a cross-CPU call. */
void corpus_raise_irq(int cpu, void (*fn)(void *), void *arg);
/* Where a task that interrupts C runs: C itself, so that one CPU
 * suffices, except in a stress run, where O (from C, an interrupt could
 * only come between the other task's critical sections). */
int corpus_irq_source_cpu(void);

/*
 * Contexts: tasks running side->step(side, var) corpus.loops times, each
 * bound to its cpu (CORPUS_ANY: unbound). corpus_run_contexts() starts
 * all of them, then joins all of them: task creation orders the
 * starter's earlier work before each, and nothing orders them among
 * themselves. None ends before all are through their steps (an ended
 * one, joined, could order a hardirq side after it: corpus_util.c).
 */
#define CORPUS_ANY (-1)
void corpus_add_context(const struct corpus_side *side, long *var, int cpu);
void corpus_start_contexts(void);
void corpus_join_contexts(void);
void corpus_run_contexts(void);

/* The common shape (struct corpus_side): a and b racing on var, each
 * step one update of var; returns the updates lost. */
long corpus_pair(const struct corpus_side *a, const struct corpus_side *b,
		 long *var);

/*
 * Steps for the sides: one corpus_rmw() of C's copy of var through
 * this_cpu_ptr() (run on C), bare or with preemption, IRQs or migration
 * off, or under get_cpu_var(), or under the side's lock; in hardirq on C,
 * raised on C or from O; through per_cpu(v, C) from another CPU, bare,
 * with IRQs off or under the side's lock.
 */
void corpus_step_bare(const struct corpus_side *side, long *var);
void corpus_step_preempt_off(const struct corpus_side *side, long *var);
void corpus_step_irqs_off(const struct corpus_side *side, long *var);
void corpus_step_migrate_off(const struct corpus_side *side, long *var);
void corpus_step_get_cpu_var(const struct corpus_side *side, long *var);
void corpus_step_locked(const struct corpus_side *side, long *var);
void corpus_step_hardirq(const struct corpus_side *side, long *var);
void corpus_step_ipi(const struct corpus_side *side, long *var);
void corpus_step_remote(const struct corpus_side *side, long *var);
void corpus_step_remote_irqs_off(const struct corpus_side *side, long *var);
void corpus_step_remote_locked(const struct corpus_side *side, long *var);
/* Sides of the plain steps, for corpus_add_context(). */
extern const struct corpus_side corpus_bare, corpus_preempt_off,
	corpus_migrate_off;

/* Spin (bounded, without sleeping) until *v >= want. A racing context
 * must not sleep in the middle of a race: whoever woke it would order
 * itself before the rest of the race. */
void corpus_spin_until(volatile long *v, long want);

/* fn(arg) as a task of its own, bound to cpu and started. */
struct task_struct *corpus_start(int (*fn)(void *), void *arg, int cpu);
/* Wait (bounded) until t sleeps: off its run queue and switched out. */
bool corpus_wait_asleep(struct task_struct *t);

/* Counters with a lock beside them, for per-CPU structs. */
struct corpus_counter {
	spinlock_t lock;
	long n;
};

struct corpus_local_counter {
	local_lock_t lock;
	long n;
};

/* Each scenario file's table (corpus_tables[] lists them). */
extern const struct corpus_scenario corpus_init[], corpus_irq[],
	corpus_remote[], corpus_this_cpu[], corpus_protection[],
	corpus_unchecked[], corpus_pointer[], corpus_softirq[];

/* Table entries. A scenario of its own shape: the function's name is
 * the scenario's. */
#define SCENARIO(fn, fam, racy_, rt_only_, cpus)                              \
	{.name = #fn, .family = #fam, .racy = racy_, .rt_only = rt_only_,      \
	 .min_cpus = cpus, .run = fn}
#define RACY(fam, fn, cpus) SCENARIO(fn, fam, true, false, cpus)
#define RACY_RT(fam, fn, cpus) SCENARIO(fn, fam, true, true, cpus)
#define CORRECT(fam, fn, cpus) SCENARIO(fn, fam, false, false, cpus)

/* The common shape: two sides racing on var: a step of corpus_util.c's
 * (SIDE; LOCKED_SIDE and IRQSAVE_SIDE with their lock, plain or in the
 * _irqsave form), or one of the scenario's own (OWN_SIDE). */
#define SIDE(step_, where_) {.step = corpus_step_##step_, .where = ON_##where_}
#define LOCKED_SIDE(step_, where_, kind_, l)                                   \
	{.step = corpus_step_##step_, .where = ON_##where_,                    \
	 .lock = {.kind = LOCK_##kind_, .lock = &(l)}}
#define IRQSAVE_SIDE(step_, where_, kind_, l)                                  \
	{.step = corpus_step_##step_, .where = ON_##where_,                    \
	 .lock = {.kind = LOCK_##kind_, .lock = &(l), .form = LOCK_IRQSAVE}}
#define OWN_SIDE(fn, where_) {.step = fn, .where = ON_##where_}
#define PAIR(name_, fam, racy_, rt_only_, cpus, var_, ...)                     \
	{.name = #name_, .family = #fam, .racy = racy_, .rt_only = rt_only_,   \
	 .min_cpus = cpus, .var = &(var_), .side = {__VA_ARGS__}}
#define RACY_PAIR(fam, name_, cpus, var_, ...)                                 \
	PAIR(name_, fam, true, false, cpus, var_, __VA_ARGS__)
#define RACY_RT_PAIR(fam, name_, cpus, var_, ...)                              \
	PAIR(name_, fam, true, true, cpus, var_, __VA_ARGS__)
#define CORRECT_PAIR(fam, name_, cpus, var_, ...)                              \
	PAIR(name_, fam, false, false, cpus, var_, __VA_ARGS__)
/* Correct with the BH lock, racy on PREEMPT_RT without it. */
#define BH_LOCK_PAIR(fam, name_, cpus, var_, ...)                              \
	{.name = #name_, .family = #fam, .racy_without_bh_lock = true,         \
	 .min_cpus = cpus, .var = &(var_), .side = {__VA_ARGS__}}

#endif
