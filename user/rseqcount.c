/*
 * rseqcount MODE SLOT: exact per-CPU counters from many processes with a
 * restartable sequence (docs/usermode.md), until the kernel's test raises
 * stop in the shared page (uapi.h, struct rseq_counter_page).
 *
 * Each round (rseq_percpu_inc, user/lib/rseq.c) reads this CPU's number
 * from the rseq area, loads counter[cpu], spins a little (widening the
 * window a preemption can hit), and stores the incremented value: the
 * store is the commit. MODE rseq
 * publishes the critical-section descriptor first, so a preemption or
 * migration inside the window restarts the round at the abort label (and
 * no update is lost); MODE plain runs the same instructions unprotected,
 * the control that loses updates. SLOT: where to keep own counts.
 */
#include "ulib.h"

#define WINDOW_SPIN 200

int main(int argc, char **argv)
{
	struct rseq_counter_page *pg = shm_map(RSEQ_COUNTER_KEY);
	bool publish = argc > 1 && !strcmp(argv[1], "rseq");
	unsigned slot = argc > 2 ? simple_strtoul(argv[2], 0, 10) : 0;
	uint64_t *done, *aborts;

	if ((long)pg < 0 || slot >= RSEQ_COUNTER_SLOTS)
		return 2;
	if (rseq_register())
		return 3;
	/* Own slots, updated as we go (after the commit): the test reads
	 * them live to see losses happen, so each update is one store. */
	done = &pg->done[slot];
	aborts = &pg->aborts[slot];
	while (!READ_ONCE(pg->stop)) {
		if (rseq_percpu_inc(pg->counter, 3, publish, WINDOW_SPIN))
			WRITE_ONCE(*done, *done + 1);
		else
			WRITE_ONCE(*aborts, *aborts + 1);
	}
	return 0;
}
