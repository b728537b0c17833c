/*
 * The detector corpus under stress (percpu_corpus.h): the racy scenarios
 * shown to lose updates where the race is real, and the correct ones,
 * the controls, shown to lose none. Every scenario that counts its
 * updates runs RUNS times with LOOPS iterations per context and a window
 * of WIDEN cpu_relax()es between each read and its write-back; interrupts
 * come from another CPU (an interrupt raised from the same CPU could only
 * arrive between the other task's critical sections). Reported per
 * scenario: the median of the updates lost, and the range over the runs.
 * Scenarios marked "racy on RT" lose updates only with RT=1: without
 * PREEMPT_RT their spinlock_t or local_lock keeps preemption off.
 *
 * Timing decides how much a race loses, so this is a benchmark, not a
 * test: a racy scenario that loses nothing on some run proves nothing
 * either way; a correct one that loses anything is an error.
 */
#include <stdbool.h>

#include "kbench.h"
#include "lockdep/percpu_corpus.h"
#include "smp.h"

#define RUNS 5
#define LOOPS 2000
#define WIDEN 50

static void sort(long *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			long t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* Runs s RUNS times into lost[]; false if it counts nothing or could not
 * be set up. */
static bool stress(const struct corpus_scenario *s, long *lost)
{
	for (int r = 0; r < RUNS; r++) {
		corpus.broken = 0;
		lost[r] = corpus_run(s);
		if (corpus.broken) {
			kbench_note("ERROR: %s: %s", s->name, corpus.broken);
			return false;
		}
		if (lost[r] == CORPUS_NO_COUNT)
			return false;
	}
	sort(lost, RUNS);
	return true;
}

static const char *unit(const struct corpus_scenario *s)
{
	if (!corpus_racy(s))
		return "lost (correct)";
	return s->rt_only ? "lost (racy on RT)" : "lost (racy)";
}

/* The median, and the range in a note; a control that lost anything is
 * an error. */
static void report(const struct corpus_scenario *s, const long *lost,
		   int cpus)
{
	long median = lost[RUNS / 2];

	kbench_report("corpus_stress", s->name, cpus,
		      (uint64_t)(median > 0 ? median : 0) * 100, unit(s));
	kbench_note("  %s: %ld..%ld lost", s->name, lost[0], lost[RUNS - 1]);
	if (!corpus_racy(s) && (lost[0] || lost[RUNS - 1]))
		kbench_note("ERROR: %s is correct but lost updates", s->name);
}

KBENCH(corpus_stress)
{
	int cpus = num_online_cpus();
	long lost[RUNS];

	corpus = (struct corpus_params){
		.loops = LOOPS, .widen = WIDEN, .stress = true};
	kbench_note("updates lost over %d runs of %d iterations per context; "
		    "racy scenarios first", RUNS, LOOPS);
	for (int racy = 1; racy >= 0; racy--)
		for_each_corpus_scenario(table, s)
			if (corpus_racy(s) == racy && cpus >= s->min_cpus &&
			    stress(s, lost))
				report(s, lost, cpus);
}
