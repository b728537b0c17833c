/*
 * The detector corpus (percpu_corpus.h): a task against softirq context
 * on the same copy (docs/softirq.md). A softirq side runs its update in
 * softirq context on C (ktest_in_softirq(): on RT=0 a context of its
 * own, on PREEMPT_RT in the side's task, preemptible); BHs off protect
 * the copy from it, preemption off alone does not (an RT=0 softirq runs
 * on interrupt exit inside the section; a PREEMPT_RT one is preempted by
 * it), and neither protects it from a hard interrupt. On PREEMPT_RT
 * booted without the BH lock (softirq.bh_lock=0, Linux 6.18's
 * PREEMPT_RT_NEEDS_BH_LOCK=n) BHs off only pin the task: the data needs
 * its own local_lock_nested_bh(), the conversion the BH lock's removal
 * waited for (tests/host/softirq_bh_lock.sh scores that mode).
 */
#include <stdbool.h>

#include "bottom_half.h"
#include "corpus_util.h"
#include "interrupt.h"
#include "local_lock.h"
#include "preempt.h"

static DEFINE_PER_CPU(long, sp_v);
static DEFINE_PER_CPU(long, sb_v);
static DEFINE_PER_CPU(long, sh_v);
/* The counter with its nested-BH lock beside it, as Linux's per-CPU
 * softirq data after the 6.18 conversion. */
static DEFINE_PER_CPU(struct corpus_local_counter, snb) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void softirq_rmw(void *var)
{
	corpus_rmw(this_cpu_ptr((long *)var));
}

static void softirq_step(const struct corpus_side *side, long *var)
{
	ktest_in_softirq(softirq_rmw, var);
}

static void bh_off_step(const struct corpus_side *side, long *var)
{
	local_bh_disable();
	corpus_rmw(this_cpu_ptr(var));
	local_bh_enable();
}

static void nested_bh_rmw(void *var)
{
	local_lock_nested_bh(&snb.lock);
	corpus_rmw(this_cpu_ptr((long *)var));
	local_unlock_nested_bh(&snb.lock);
}

static void softirq_nested_step(const struct corpus_side *side, long *var)
{
	ktest_in_softirq(nested_bh_rmw, var);
}

static void bh_off_nested_step(const struct corpus_side *side, long *var)
{
	local_bh_disable();
	nested_bh_rmw(var);
	local_bh_enable();
}

const struct corpus_scenario corpus_softirq[] = {
	/* Preemption off keeps other tasks out, not a softirq. */
	RACY_PAIR(softirq, softirq_vs_preempt_off, 1, sp_v,
		  SIDE(preempt_off, C), OWN_SIDE(softirq_step, C)),
	/* BHs off: the softirq waits (RT=0) or the BH lock does (RT=1);
	 * without the BH lock nothing does. */
	BH_LOCK_PAIR(softirq, softirq_vs_bh_off, 1, sb_v,
		     OWN_SIDE(bh_off_step, C), OWN_SIDE(softirq_step, C)),
	/* Each side under the data's own nested-BH lock: correct with the
	 * BH lock and without it. */
	CORRECT_PAIR(softirq, softirq_vs_bh_off_nested_bh, 1, snb.n,
		     OWN_SIDE(bh_off_nested_step, C),
		     OWN_SIDE(softirq_nested_step, C)),
	/* A hard interrupt comes in on top of the softirq. */
	RACY_PAIR(softirq, softirq_vs_hardirq, 1, sh_v,
		  OWN_SIDE(softirq_step, C), SIDE(hardirq, IRQ_SRC)),
	{0},
};
