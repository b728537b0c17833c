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
 * A fair (FIFO) lock serves its waiters in the order they arrived. Counting
 * acquisitions over a time window does not show that under TCG: a task's
 * vCPU may be off the host CPU for milliseconds, and meanwhile the others
 * take the lock without it, so such counts measure the host, not the lock.
 *
 * So the test makes the rounds itself, from events the kernel controls.
 * Each holder waits, before it releases, until every other task that still
 * wants the lock has taken its ticket (the ticket lock's queue length,
 * next - owner, is the only arrival mark that is not separated from the
 * queueing by a window the host can stretch). With everyone queued, a FIFO
 * lock must hand over to the longest waiter, so the acquisitions go
 * round-robin exactly: task order repeats with period n, and nobody is
 * overtaken more than n-1 times. A lock that lets the releaser cut back in,
 * or serves waiters in any other order, breaks the period at once. Only the
 * wait for the others to queue takes host time, and it is bounded by a
 * deadline that is a failure with its own message, not a fairness verdict.
 */
#define FAIR_MAX_TASKS 4
#define FAIR_ROUNDS 25            /* acquisitions by each task */
#define FAIR_MAX_ACQ (FAIR_MAX_TASKS * FAIR_ROUNDS)

static struct {
	raw_spinlock_t lock;
	int left;                      /* tasks with acquisitions left; locked */
	int seq;                       /* acquisitions so far; locked */
	int order[FAIR_MAX_ACQ];       /* who took the lock at each acquisition */
	volatile int gate_timeout;     /* a holder gave up waiting for the queue */
	struct completion go;
} fair;

/* Tickets taken and not yet served, the holder's own included. */
static inline int fair_queued(void)
{
	uint32_t v = __atomic_load_n(&fair.lock.raw_lock.val, __ATOMIC_ACQUIRE);

	return (uint16_t)((uint16_t)(v >> 16) - (uint16_t)v);
}

static int fair_worker_fn(void *arg)
{
	int me = (int)(long)arg;

	wait_for_completion(&fair.go);
	for (int i = 0; i < FAIR_ROUNDS; i++) {
		uint64_t t0;
		int others;

		raw_spin_lock(&fair.lock);
		t0 = ktime_get_ns();
		fair.order[fair.seq++] = me;
		if (i == FAIR_ROUNDS - 1)
			fair.left--;
		/* Every other task with rounds left, queued behind us. */
		others = fair.left - (i < FAIR_ROUNDS - 1);
		while (fair_queued() < others + 1 && !load_int(&fair.gate_timeout)) {
			if (ns_since(t0) > KTEST_WAIT_MS * NS_PER_MS)
				store_int(&fair.gate_timeout, 1);
			cpu_relax();
		}
		raw_spin_unlock(&fair.lock);
	}
	return 0;
}

/* The first acquisition k at which the order is not round-robin (the n
 * first acquirers distinct, then the same order again and again), or -1. */
static int fair_first_break(int n, int total)
{
	for (int k = 0; k < total; k++) {
		if (k >= n) {
			if (fair.order[k] != fair.order[k - n])
				return k;
			continue;
		}
		for (int j = 0; j < k; j++)
			if (fair.order[j] == fair.order[k])
				return k;
	}
	return -1;
}

/* One task per CPU (up to four) takes one raw spinlock FAIR_ROUNDS times;
 * each holder keeps the lock until all the others are queued for it. The
 * ticket lock then serves them strictly in turn. In a guest, contended
 * locks spin test-and-set (virt_spin_lock()), which takes no ticket and
 * is not fair: the test switches every lock to tickets while it runs
 * (safe at any time, asm/spinlock.h). */
KTEST_CPUS(locks, raw_spinlock_fair_no_starvation, 2)
{
	struct task_struct *t[FAIR_MAX_TASKS];
	int n = (int)num_online_cpus(), brk, total;
	bool virt = READ_ONCE(virt_spin_lock_on);

	if (n > FAIR_MAX_TASKS)
		n = FAIR_MAX_TASKS;
	raw_spin_lock_init(&fair.lock);
	fair.left = n;
	fair.seq = 0;
	fair.gate_timeout = 0;
	init_completion(&fair.go);
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(fair_worker_fn, (void *)(long)i, "fair", i,
				   SCHED_NORMAL, 0, true);
	WRITE_ONCE(virt_spin_lock_on, false);
	complete_all(&fair.go);
	for (int i = 0; i < n; i++)
		ktest_join(t[i]);
	WRITE_ONCE(virt_spin_lock_on, virt);
	total = fair.seq;
	brk = fair_first_break(n, total);
	ktest_log("%d tasks, %d acquisitions; order starts %d %d %d %d %d %d %d %d",
		  n, total, fair.order[0], fair.order[1], fair.order[2],
		  fair.order[3], fair.order[4], fair.order[5], fair.order[6],
		  fair.order[7]);
	if (load_int(&fair.gate_timeout))
		ktest_log("a holder waited %d s for the others to queue: "
			  "a waiter never took its ticket",
			  (int)(KTEST_WAIT_MS / 1000));
	if (brk >= 0)
		ktest_log("not round-robin at acquisition %d: task %d (expected "
			  "task %d)", brk, fair.order[brk],
			  brk >= n ? fair.order[brk - n] : -1);
	KEXPECT_FALSE(load_int(&fair.gate_timeout));
	KEXPECT_EQ(total, n * FAIR_ROUNDS);
	KEXPECT_EQ(brk, -1);
}
