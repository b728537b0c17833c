/*
 * The fairness of the ticket lock under raw_spinlock_t
 * (arch/x86_64/asm/spinlock.h; see docs/locks.md): tasks on different
 * CPUs that all contend are served in arrival order, none starves.
 */
#include <stdbool.h>
#include <stdint.h>

#include "asm/processor.h"
#include "completion.h"
#include "ktest.h"
#include "ktest_util.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

/*
 * Under TCG with overcommitted vCPUs a task's vCPU is often not running
 * for milliseconds at a time (it is late to start, or the host runs
 * something else), and meanwhile the others take the lock without it:
 * raw acquisition counts over a time window measure the host, not the
 * lock. So an acquisition counts only when, at its arrival, every other
 * task was already waiting for the lock or holding it. Among tasks that
 * all contend, a FIFO lock serves each once per round, so those counts
 * stay within a round of each other; a lock that lets the releaser (or
 * any one CPU) cut in ahead of waiters does not. Also measured: how many acquisitions by others
 * happened between a task's arrival and its own (at most N-1 for FIFO).
 */
#define FAIR_MAX_TASKS 4
#define FAIR_MIN_MS 200           /* at least this long */
#define FAIR_MAX_MS 3000          /* at most this long */
#define FAIR_WANT 30              /* contended acquisitions each, to stop early */

static struct {
	raw_spinlock_t lock;
	volatile int ready, stop;
	volatile int contending;      /* tasks between arrival and release */
	volatile long seq;            /* acquisitions, under the lock */
	int n;
	volatile long count[FAIR_MAX_TASKS];  /* arrivals with all others in */
	long total[FAIR_MAX_TASKS];           /* all acquisitions */
	long max_bypass[FAIR_MAX_TASKS];
	long bypassed[FAIR_MAX_TASKS];        /* acquisitions with bypass > n-1 */
	struct completion go;
} fair;

static int fair_worker_fn(void *arg)
{
	int me = (int)(long)arg;
	uint64_t t0;

	wait_for_completion(&fair.go);
	__atomic_fetch_add(&fair.ready, 1, __ATOMIC_ACQ_REL);
	t0 = ktime_get_ns();
	/* Start together. */
	while (load_int(&fair.ready) < fair.n && ns_since(t0) < 5000 * NS_PER_MS)
		cpu_relax();
	for (long i = 0; !load_int(&fair.stop); i++) {
		long s0, bypass;
		int others;

		if (i % 1024 == 0 && ns_since(t0) > HELPER_MAX_NS)
			break;
		s0 = __atomic_load_n(&fair.seq, __ATOMIC_RELAXED);
		others = __atomic_fetch_add(&fair.contending, 1, __ATOMIC_SEQ_CST);
		raw_spin_lock(&fair.lock);
		bypass = fair.seq - s0;
		if (bypass > fair.max_bypass[me])
			fair.max_bypass[me] = bypass;
		if (bypass > fair.n - 1)
			fair.bypassed[me]++;
		fair.seq = fair.seq + 1;
		fair.total[me]++;
		if (others == fair.n - 1)
			fair.count[me]++;
		for (int j = 0; j < 10; j++)
			cpu_relax();
		raw_spin_unlock(&fair.lock);
		__atomic_fetch_sub(&fair.contending, 1, __ATOMIC_SEQ_CST);
		for (int j = 0; j < 5; j++)
			cpu_relax();
	}
	return 0;
}

static long fair_min_count(void)
{
	long min = -1;

	for (int i = 0; i < fair.n; i++)
		if (min < 0 || fair.count[i] < min)
			min = fair.count[i];
	return min;
}

/* One task per CPU (up to four) hammers one raw spinlock: while all of
 * them wait, the ticket lock serves them in turn, so each gets it about
 * equally often, and nobody is overtaken more than n-1 times. */
KTEST_CPUS(locks, raw_spinlock_fair_no_starvation, 2)
{
	struct task *t[FAIR_MAX_TASKS];
	long min, max = 0, sum = 0, mean, total = 0, bypassed = 0, worst = 0;
	int n = (int)num_online_cpus();
	uint64_t t0;

	if (n > FAIR_MAX_TASKS)
		n = FAIR_MAX_TASKS;
	raw_spin_lock_init(&fair.lock);
	fair.ready = fair.stop = fair.contending = 0;
	fair.seq = 0;
	fair.n = n;
	init_completion(&fair.go);
	for (int i = 0; i < n; i++) {
		fair.count[i] = fair.total[i] = 0;
		fair.max_bypass[i] = fair.bypassed[i] = 0;
		t[i] = ktest_spawn(fair_worker_fn, (void *)(long)i, "fair", i,
				   SCHED_NORMAL, 0, true);
	}
	complete_all(&fair.go);
	KEXPECT_TRUE(ktest_poll_int(&fair.ready, n, 5000));
	t0 = ktime_get_ns();
	while (ns_since(t0) < FAIR_MAX_MS * NS_PER_MS &&
	       (ns_since(t0) < FAIR_MIN_MS * NS_PER_MS ||
		fair_min_count() < FAIR_WANT))
		msleep(10);
	store_int(&fair.stop, 1);
	for (int i = 0; i < n; i++)
		ktest_join(t[i]);
	min = fair_min_count();
	for (int i = 0; i < n; i++) {
		sum += fair.count[i];
		total += fair.total[i];
		bypassed += fair.bypassed[i];
		if (fair.count[i] > max)
			max = fair.count[i];
		if (fair.max_bypass[i] > worst)
			worst = fair.max_bypass[i];
	}
	mean = sum / n;
	ktest_log("%d tasks, %lu ms: with all contending %ld %ld %ld %ld (min %ld, "
		  "max %ld); all %ld %ld %ld %ld", n,
		  (unsigned long)(ns_since(t0) / NS_PER_MS), fair.count[0],
		  fair.count[1], n > 2 ? fair.count[2] : 0,
		  n > 3 ? fair.count[3] : 0, min, max, fair.total[0],
		  fair.total[1], n > 2 ? fair.total[2] : 0,
		  n > 3 ? fair.total[3] : 0);
	ktest_log("overtaken at most %ld times (FIFO: %d); %ld of %ld "
		  "acquisitions overtaken more", worst, n - 1, bypassed, total);
	/* FIFO gives counts within a few of each other (a task whose vCPU
	 * is often away gains one per return); a test-and-set lock gave
	 * 411 against 3491 here. The bypass figures are only logged: the
	 * arrival is read just before the ticket is taken, and a vCPU
	 * stalled by the host between the two lets any number by. */
	KEXPECT_GE(min, 10);
	KEXPECT_GE(min * 8, mean);
	/* A test-and-set lock fails this by far (411 vs 3491); a vCPU the
	 * host keeps away (another QEMU on the machine) makes FIFO counts
	 * differ by a few times, not by an order of magnitude. */
	KEXPECT_LE(max, 5 * min + 8);
}
