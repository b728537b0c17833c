/*
 * Restartable sequences (kernel/user/rseq.c) from user space: rseqcount keeps
 * per-CPU counters in a shared page from twice as many processes as CPUs,
 * preempted at every time slice and migrated by the test, until each has
 * been preempted RSEQ_PREEMPTIONS times and what the test waits for has
 * happened (a restart, or a lost update), all counted, so the run does not
 * depend on time. With rseq the counters are exact and the aborts the
 * programs saw equal the restarts the kernel made; the same code without
 * rseq loses updates. And the ABI's rules (user/rseqabi.c): Linux's
 * answers to registrations, and a descriptor that breaks any rule kills
 * its process.
 */
#include "ktest_util.h"
#include "process.h"
#include "shm.h"
#include "rwonce.h"
#include "string.h"
#include "user/user_util.h"
#include "vsprintf.h"

#define RSEQ_PREEMPTIONS 5
/* Give up (and fail) when nothing happened after this many each. */
#define RSEQ_MAX_PREEMPTIONS 2000

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

/* Whether an update was certainly lost already: the increments the
 * processes report (each counts after its store) read first, the counters
 * second, so that the counters can only be ahead of what was read unless
 * an update was lost. */
static bool loss_seen(struct rseq_counter_page *pg, int nproc)
{
	uint64_t done = 0, sum = 0;

	for (int i = 0; i < nproc; i++)
		done += __atomic_load_n(&pg->done[i], __ATOMIC_ACQUIRE);
	for (int cpu = 0; cpu < RSEQ_COUNTER_SLOTS; cpu++)
		sum += __atomic_load_n(&pg->counter[cpu], __ATOMIC_ACQUIRE);
	return sum < done;
}

static bool restart_seen(struct rseq_run *r)
{
	for (int i = 0; i < r->nproc; i++)
		if (__atomic_load_n(&r->p[i]->rseq_aborts, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* Keep going until every process was preempted RSEQ_PREEMPTIONS times and
 * the event the mode is about was seen (bounded). */
static bool rseq_run_more(struct rseq_run *r, struct rseq_counter_page *pg,
			  bool plain)
{
	if (!all_preempted(r, RSEQ_PREEMPTIONS))
		return true;
	if (all_preempted(r, RSEQ_MAX_PREEMPTIONS))
		return false;
	return plain ? !loss_seen(pg, r->nproc) : !restart_seen(r);
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
	for (int round = 0; rseq_run_more(r, pg, mode[0] == 'p'); round++) {
		force_migration(r, round);
		msleep(2);
	}
	WRITE_ONCE(pg->stop, 1);
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

/* The registration's answers, as Linux's (bad area, length, flags,
 * signature, a second registration, unregistering). */
KTEST(rseq, registration_errors)
{
	KEXPECT_EQ(RUN_USER(0, "rseqabi", "register"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "register ok"));
}

/* The control: the same section with a valid descriptor is restarted at
 * its abort handler, and the process lives. */
KTEST(rseq, valid_descriptor_restarts)
{
	KEXPECT_EQ(RUN_USER(0, "rseqabi", "good"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "aborted and restarted"));
}

/* Each rule broken alone, on top of the control: the process is killed
 * (Linux: SIGSEGV), never sent where the descriptor says. */
KTEST(rseq, bad_descriptor_kills)
{
	static const char *const rules[] = {
		"badsig", "abort-in-cs", "abort-kernel", "abort-noncanon",
		"cs-kernel", "cs-wrap", "version", "cs-flags", "rseq-flags",
		"cs-unreadable",
	};
	const int killed = WAIT_KILLED | 0xff;

	for (unsigned i = 0; i < ARRAY_SIZE(rules); i++) {
		char *argv[] = {"rseqabi", (char *)rules[i]};

		KEXPECT_EQ(run_user(killed, 2, argv), killed);
	}
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}
