/*
 * The per-CPU checker measured as a detector (docs/lockdep.md, "The
 * detector corpus"): every scenario of the corpus (tests/lockdep/corpus_*.c),
 * in one boot, each from a clean validator (lockdep_reset()). A scenario
 * is flagged when the validator made any report while it ran; against
 * its label that is a true or false positive or negative. The test prints
 * one row per scenario and the totals, and expects precision and recall
 * of 100%. Correct scenarios must also lose no update: correct code never
 * does, whatever the timing.
 *
 * The suite exists only with LOCKDEP=1, like the validator's own suites.
 */
#ifdef CONFIG_LOCKDEP

#include <stdbool.h>
#include <stddef.h>

#include "ktest.h"
#include "ktest_util.h"
#include "lockdep.h"
#include "percpu_corpus.h"
#include "sched.h"
#include "smp.h"
#include "string.h"
#include "vsprintf.h"

static const char *const kind_names[LOCKDEP_NR_REPORT_KINDS] = {
	[LOCKDEP_RECURSIVE] = "recursive",
	[LOCKDEP_CIRCULAR] = "circular",
	[LOCKDEP_IRQ_STATE] = "irq_state",
	[LOCKDEP_BAD_UNLOCK] = "bad_unlock",
	[LOCKDEP_HELD_REINIT] = "held_reinit",
	[LOCKDEP_WAIT_CONTEXT] = "wait_context",
	[LOCKDEP_SLEEP_IN_ATOMIC] = "sleep_in_atomic",
	[LOCKDEP_HELD_AT_EXIT] = "held_at_exit",
	[LOCKDEP_PREEMPTIBLE_CPU_ID] = "preemptible_cpu_id",
	[LOCKDEP_PERCPU_UNPROTECTED] = "percpu_unprotected",
	[LOCKDEP_PERCPU_INCONSISTENT] = "percpu_inconsistent",
	[LOCKDEP_PERCPU_IRQ] = "percpu_irq",
	[LOCKDEP_RCU_SUSPICIOUS] = "rcu_suspicious",
	[LOCKDEP_NOT_IN_SOFTIRQ] = "not_in_softirq",
};

/* The kinds reported since the last lockdep_reset(), comma-separated,
 * or "-". */
static void reported_kinds(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (int k = 0; k < LOCKDEP_NR_REPORT_KINDS && len + 1 < size; k++)
		if (lockdep_reports(k))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", kind_names[k]);
	if (!len)
		snprintf(buf, size, "-");
}

struct score {
	int tp, fp, tn, fn, skipped;
};

/* a / b in tenths of a percent; a ratio with nothing to count is 100%. */
static int per_mille(int a, int b)
{
	return b ? a * 1000 / b : 1000;
}

/* Runs one scenario from a clean validator and scores its verdict. */
static void run_scenario(const struct corpus_scenario *s, struct score *sc)
{
	char kinds[160];
	bool flagged;
	const char *verdict;
	long lost;

	if ((int)num_online_cpus() < s->min_cpus) {
		ktest_log("%-38s %-11s %-7s %-7s needs %d CPUs: skipped",
			  s->name, s->family, corpus_racy(s) ? "racy" : "correct", "-",
			  s->min_cpus);
		sc->skipped++;
		return;
	}
	lockdep_reset();
	corpus.broken = 0;
	lost = corpus_run(s);
	/* The validator may hold an unprotected access back until the
	 * task's next validator event (it may only form the address of a
	 * lock that is taken next); sleeping is one. */
	msleep(1);
	flagged = lockdep_reports_total() > 0;
	reported_kinds(kinds, sizeof(kinds));
	lockdep_reset();

	if (corpus_racy(s))
		verdict = flagged ? (sc->tp++, "TP") : (sc->fn++, "FN");
	else
		verdict = flagged ? (sc->fp++, "FP") : (sc->tn++, "TN");
	ktest_log("%-38s %-11s %-7s %-7s %s %s", s->name, s->family,
		  corpus_racy(s) ? "racy" : "correct", flagged ? "flagged" : "silent",
		  verdict, kinds);
	if (corpus.broken)
		ktest_fail_msg(__FILE__, __LINE__, "%s: %s", s->name,
			       corpus.broken);
	if (!corpus_racy(s) && lost != CORPUS_NO_COUNT && lost != 0)
		ktest_fail_msg(__FILE__, __LINE__,
			       "%s is correct but lost %ld update(s)", s->name,
			       lost);
}

/* Every scenario of family (all of them if NULL), scored; at least
 * min_n of them. */
static void score_corpus(const char *family, int min_n)
{
	struct score sc = {0};
	int precision, recall, n = 0;

	corpus = (struct corpus_params){.loops = 3};
	ktest_log("%-38s %-11s %-7s %-7s %s", "scenario", "family", "label",
		  "flagged", "verdict kinds");
	for_each_corpus_scenario(table, s) {
		if (family && strcmp(s->family, family))
			continue;
		run_scenario(s, &sc);
		n++;
	}

	precision = per_mille(sc.tp, sc.tp + sc.fp);
	recall = per_mille(sc.tp, sc.tp + sc.fn);
	ktest_log("%d scenarios: TP %d FP %d TN %d FN %d, %d skipped",
		  n, sc.tp, sc.fp, sc.tn, sc.fn, sc.skipped);
	ktest_log("precision %d.%d%% recall %d.%d%%", precision / 10,
		  precision % 10, recall / 10, recall % 10);
	KEXPECT_GE(n, min_n);
	KEXPECT_EQ(sc.tp + sc.fp + sc.tn + sc.fn + sc.skipped, n);
	KEXPECT_EQ(precision, 1000);
	KEXPECT_EQ(recall, 1000);
}

KTEST(percpu_corpus, precision_and_recall)
{
	score_corpus(0, 40);
}

/* The softirq family alone: what tests/host/softirq_bh_lock.sh scores
 * again on PREEMPT_RT without the BH lock, where BHs off no longer keep
 * a softirq out and only the nested-BH locks do. */
KTEST(percpu_corpus, softirq_family)
{
	score_corpus("softirq", 4);
}

#endif /* CONFIG_LOCKDEP */
