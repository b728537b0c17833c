/*
 * The per-CPU checker's detector corpus (docs/lockdep.md, "The detector
 * corpus"): small per-CPU scenarios, each labelled racy or correct, one
 * file per group of families (tests/lockdep/corpus_*.c, with the helpers of
 * corpus_util.h), each ending in its table. The tables serve two runners:
 *   tests/lockdep/percpu_corpus.c  (ktest percpu_corpus) runs every scenario once,
 *                          with few iterations, and scores the validator's
 *                          verdicts: precision and recall;
 *   tests/bench/bench_corpus.c   (kbench corpus_stress) runs the scenarios that
 *                          count updates many times with a widened race
 *                          window and reports the updates each one lost.
 *
 * A scenario starts every context it races before it joins any of them,
 * and none of them ends before all have made their accesses, so that no
 * happens-before edge the kernel creates orders them: whether the
 * validator reports it must not depend on whether the race overlapped on
 * this run, nor on how the host scheduled the contexts. It joins every
 * task it started before it returns.
 */
#ifndef PERCPU_CORPUS_H
#define PERCPU_CORPUS_H

#include <stdbool.h>

#include "locking/lock_kind.h"

/* run() results besides a count of lost updates. */
#define CORPUS_NO_COUNT (-1l) /* nothing counted (or lost updates allowed) */

/* Where a context runs: the scenario's CPU C, the other CPU O, where an
 * interrupt for C comes from (corpus_irq_source_cpu()), or unbound. */
enum corpus_where { ON_C, ON_O, ON_IRQ_SRC, ON_ANY };

/* One side of the common shape: step(side, var) corpus.loops times, on
 * where; lock is for the steps that take one. */
struct corpus_side {
	void (*step)(const struct corpus_side *side, long *var);
	enum corpus_where where;
	struct any_lock lock;
};

struct corpus_scenario {
	const char *name;
	const char *family;
	bool racy;    /* the label: a real race in the code */
	bool rt_only; /* racy only where spinlock_t and local_lock
				* leave preemption on (PREEMPT_RT), which is
				* how the validator reasons in both builds */
	bool racy_without_bh_lock; /* also racy on PREEMPT_RT booted without
				    * the BH lock (softirq.bh_lock=0), where
				    * BHs off no longer keep a softirq out */
	int min_cpus; /* skipped below this many online CPUs */
	/* Runs a scenario of its own shape; returns the updates it lost
	 * (expected count minus the count found), or CORPUS_NO_COUNT. */
	long (*run)(void);
	/* Without run: the common shape, two sides racing on var, one
	 * update each per step. */
	struct corpus_side side[2];
	long *var;
};

/* Whether s is racy in the kernel as built and booted. */
bool corpus_racy(const struct corpus_scenario *s);

/* Runs s (run(), or its two sides); returns the updates it lost. */
long corpus_run(const struct corpus_scenario *s);

/* How the scenarios run; set by a runner before calling run(). */
struct corpus_params {
	int loops;   /* iterations of each context's pattern */
	int widen;   /* cpu_relax()es between a read and its write-back */
	bool stress; /* interrupts come from another CPU when there is one */
	/* Set by a scenario whose set-up failed (its verdict means
	 * nothing): what went wrong. The runner reports and clears it. */
	const char *broken;
};

extern struct corpus_params corpus;
/* The scenario files' tables, each ended by an entry without a name;
 * the list ends with 0. */
extern const struct corpus_scenario *const corpus_tables[];

#define for_each_corpus_scenario(table, s)                                    \
	for (const struct corpus_scenario *const *table = corpus_tables;      \
	     *table; table++)                                                 \
		for (const struct corpus_scenario *s = *table; s->name; s++)

#endif
