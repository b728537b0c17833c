/*
 * What the corpus's scenario files (tests/corpus_*.c) share: the two CPUs
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

/* Bookkeeping through raw_per_cpu_ptr(), which the validator does not
 * see: zero every copy of var before a scenario, sum them after. */
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
 * Contexts: tasks running step() corpus.loops times, each bound to its
 * cpu (CORPUS_ANY: unbound). corpus_run_contexts() starts all of them,
 * then joins all of them: task creation orders the starter's earlier work
 * before each, and nothing orders them among themselves.
 */
#define CORPUS_ANY (-1)
void corpus_add_context(void (*step)(void), int cpu);
void corpus_start_contexts(void);
void corpus_join_contexts(void);
void corpus_run_contexts(void);

/* The common shape: a on cpu_a and b on cpu_b, each step one update of
 * var; returns the updates lost. corpus_pair_on_c(): both on C. */
long corpus_pair(void (*a)(void), int cpu_a, void (*b)(void), int cpu_b,
		 long *var);
long corpus_pair_on_c(void (*a)(void), void (*b)(void), long *var);

/* Spin (bounded, without sleeping) until *v >= want. A racing context
 * must not sleep in the middle of a race: whoever woke it would order
 * itself before the rest of the race. */
void corpus_spin_until(volatile long *v, long want);

/* fn(arg) as a task of its own, bound to cpu and started. */
struct task *corpus_start(int (*fn)(void *), void *arg, int cpu);
/* Wait (bounded) until t sleeps: off its run queue and switched out. */
bool corpus_wait_asleep(struct task *t);

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
	corpus_unchecked[];

/* Table entries: the function's name is the scenario's. */
#define RACY(family, fn, cpus)                                                 \
	{                                                                      \
#fn, #family, true, false, cpus, fn                            \
	}
#define RACY_RT(family, fn, cpus)                                              \
	{                                                                      \
#fn, #family, true, true, cpus, fn                             \
	}
#define CORRECT(family, fn, cpus)                                              \
	{                                                                      \
#fn, #family, false, false, cpus, fn                           \
	}

#endif
