/*
 * Contended sleeping locks against a raw spinlock: the figure adaptive
 * spinning (kernel/locking/rtmutex_spin.c) is for. One task per CPU, bound and
 * SCHED_FIFO so that each owns its CPU, all increment one shared counter
 * under the lock for RUN_MS; RUNS runs per lock type, reported as the
 * median with the smallest and largest run. Then the ratio raw/lock of
 * the medians: a waiter that always slept made it 50-400x; the goal is
 * <= 3x at 2 CPUs for spinlock_t (RT=1: an rt_mutex) and mutex.
 */
#include "bench_locks.h"
#include "kbench.h"
#include "sched.h"
#include "smp.h"
#include "vsprintf.h"

#define RUNS 5
#define RUN_MS 50

/* A per-CPU lock is never contended: only the shared ones race. */
KBENCH(locks_spin)
{
	int ncpus = num_online_cpus() < 2 ? num_online_cpus() : 2;
	uint64_t median[NR_LOCK_KINDS];

	/* Above the hammers, which wait at the start line on our CPU too. */
	sched_setscheduler(current, SCHED_FIFO, 20);
	kbench_note("%d runs of %d ms each, one bound SCHED_FIFO task per CPU",
		    RUNS, RUN_MS);
	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		uint64_t runs[RUNS];

		if (lock_kinds[k].percpu)
			continue;
		for (int r = 0; r < RUNS; r++)
			runs[r] = (uint64_t)lock_bench_contended(k, ncpus,
								 RUN_MS) *
				  100 / RUN_MS;
		kbench_report_runs("locks_spin", lock_kinds[k].name, ncpus,
				   runs, RUNS, "kops/s");
		median[k] = runs[RUNS / 2];
	}
	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		char variant[32];

		if (k == LOCK_RAW || lock_kinds[k].percpu)
			continue;
		snprintf(variant, sizeof(variant), "raw/%s",
			 lock_kinds[k].name);
		kbench_report("locks_spin", variant, ncpus,
			      median[LOCK_RAW] * 100 /
				      (median[k] ? median[k] : 1),
			      "x");
	}
	sched_setscheduler(current, SCHED_NORMAL, 0);
}
