/*
 * Restartable sequences (kernel/rseq.c) from user space: rseqcount keeps
 * per-CPU counters in a shared page from twice as many processes as CPUs,
 * preempted at every time slice and migrated by the test, until each has
 * been preempted RSEQ_PREEMPTIONS times (counted by the kernel, so the
 * run does not depend on time). With rseq the counters are exact and the
 * aborts the programs saw equal the restarts the kernel made; the same
 * code without rseq loses updates.
 */
#include "ktest.h"
#include "ktest_util.h"
#include "process.h"
#include "shm.h"
#include "string.h"
#include "vsprintf.h"

#define RSEQ_PREEMPTIONS 5

struct rseq_run {
	int nproc;
	struct process *p[RSEQ_COUNTER_SLOTS];
	uint64_t sum, done, aborts, kernel_aborts;
};

static bool all_preempted(struct rseq_run *r, unsigned long want)
{
	for (int i = 0; i < r->nproc; i++)
		if (__atomic_load_n(&r->p[i]->nr_preempted, __ATOMIC_RELAXED) <
		    want)
			return false;
	return true;
}

/* Move process round % nproc to CPU round % ncpus, the previous one back
 * to every CPU: migrations, some of them inside a critical section. */
static void force_migration(struct rseq_run *r, int round)
{
	struct process *p = r->p[round % r->nproc];
	struct process *prev = r->p[(round + r->nproc - 1) % r->nproc];

	set_cpus_allowed(prev->task, cpu_possible_mask);
	set_cpus_allowed(p->task, cpumask_of(round % num_online_cpus()));
}

static void rseq_run(struct rseq_run *r, const char *mode)
{
	struct rseq_counter_page *pg = shm_page(RSEQ_COUNTER_KEY);
	int started = 0;

	memset(r, 0, sizeof(*r));
	KASSERT_TRUE(pg);
	memset(pg, 0, sizeof(*pg));
	r->nproc = 2 * num_online_cpus();
	if (r->nproc > RSEQ_COUNTER_SLOTS)
		r->nproc = RSEQ_COUNTER_SLOTS;
	for (; started < r->nproc; started++) {
		char slot[8], *argv[] = {"rseqcount", (char *)mode, slot};

		snprintf(slot, sizeof(slot), "%d", started);
		if (process_spawn("rseqcount", 3, argv, 0, &r->p[started]))
			break;
	}
	KEXPECT_EQ(started, r->nproc);
	r->nproc = started;
	for (int round = 0; !all_preempted(r, RSEQ_PREEMPTIONS); round++) {
		force_migration(r, round);
		msleep(2);
	}
	pg->stop = 1;
	for (int i = 0; i < r->nproc; i++) {
		while (!__atomic_load_n(&r->p[i]->exited, __ATOMIC_ACQUIRE))
			msleep(1);
		r->kernel_aborts += r->p[i]->rseq_aborts;
		KEXPECT_EQ(process_wait(r->p[i]), 0);
		r->done += pg->done[i];
		r->aborts += pg->aborts[i];
	}
	for (int cpu = 0; cpu < RSEQ_COUNTER_SLOTS; cpu++)
		r->sum += pg->counter[cpu];
}

KTEST(rseq, percpu_counter_exact)
{
	struct rseq_run r;

	rseq_run(&r, "rseq");
	ktest_log("%d processes: %lu increments, %lu aborts", r.nproc,
		  (unsigned long)r.done, (unsigned long)r.aborts);
	KEXPECT_GT(r.done, 0);
	KEXPECT_EQ(r.sum, r.done);
	KEXPECT_EQ(r.aborts, r.kernel_aborts);
	KEXPECT_GT(r.aborts, 0); /* preemptions did hit critical sections */
}

KTEST(rseq, plain_counter_loses)
{
	struct rseq_run r;

	rseq_run(&r, "plain");
	ktest_log("%d processes: %lu increments, %lu lost", r.nproc,
		  (unsigned long)r.done, (unsigned long)(r.done - r.sum));
	KEXPECT_EQ(r.aborts, 0);
	KEXPECT_EQ(r.kernel_aborts, 0);
	KEXPECT_LT(r.sum, r.done);
}
