/*
 * The explorer's planted bugs (EXPLORE_BUGS=1 only): tests that are
 * broken in one deliberate way each, in suite explore_bugs. Each asserts
 * the invariant its bug breaks, so a failure is a wrong count or value,
 * not only a checker's report. scripts/explore-eval.sh measures how many
 * the explorer finds against plain runs (docs/debugging.md).
 *
 * Each runs few iterations on purpose: its race window is a few
 * instructions wide, and the question is whether a run splits it, not
 * whether enough runs happen to.
 */
#ifndef EXPLORE_BUGS_H
#define EXPLORE_BUGS_H

#include "ktest_util.h"

#define BUG_ITERS 20

/* fn(0) and fn(1) in two SCHED_NORMAL tasks that may run anywhere: on one
 * CPU they run one after the other unless something preempts them. */
static inline void bug_run_pair(int (*fn)(void *))
{
	struct task_struct *a = ktest_spawn(fn, (void *)0l, "bug0", -1, SCHED_NORMAL,
				     0, true);
	struct task_struct *b = ktest_spawn(fn, (void *)1l, "bug1", -1, SCHED_NORMAL,
				     0, true);

	ktest_join(a);
	ktest_join(b);
}

#endif
