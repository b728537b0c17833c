/*
 * What each lock costs: an uncontended acquire+release in cycles, and the
 * throughput of a contended one with 1..N CPUs hammering it (tasks bound
 * one per CPU, a fixed time each). `make bench` runs this on RT=0 and
 * RT=1: on RT=1 spinlock_t and local_lock_t are sleeping rt_mutex locks.
 */
#include "kbench.h"
#include "local_lock.h"
#include "locking/lock_kind.h"
#include "mutex.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

#define UNCONTENDED_ITERS 200000
#define CONTENDED_MS 50

static DEFINE_RAW_SPINLOCK(b_raw);
static DEFINE_SPINLOCK(b_spin);
static DEFINE_MUTEX(b_mutex);
static DEFINE_RT_MUTEX(b_rtmutex);
struct pcp_counter {
	local_lock_t lock;
	long n;
};
static DEFINE_PER_CPU(struct pcp_counter, b_local) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static long shared_count;

static void lock_op(enum lock_kind k)
{
	switch (k) {
	case LOCK_RAW:
		raw_spin_lock(&b_raw);
		shared_count++;
		raw_spin_unlock(&b_raw);
		break;
	case LOCK_SPIN:
		spin_lock(&b_spin);
		shared_count++;
		spin_unlock(&b_spin);
		break;
	case LOCK_LOCAL:
		local_lock(&b_local.lock);
		this_cpu_ptr(&b_local)->n++;
		local_unlock(&b_local.lock);
		break;
	case LOCK_MUTEX:
		mutex_lock(&b_mutex);
		shared_count++;
		mutex_unlock(&b_mutex);
		break;
	default:
		rt_mutex_lock(&b_rtmutex);
		shared_count++;
		rt_mutex_unlock(&b_rtmutex);
		break;
	}
}

KBENCH(locks_uncontended)
{
	uint64_t cycles[NR_LOCK_KINDS];

	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		uint64_t t0 = rdtsc();

		for (int i = 0; i < UNCONTENDED_ITERS; i++)
			lock_op(k);
		cycles[k] = (rdtsc() - t0) * 100 / UNCONTENDED_ITERS;
		kbench_report("locks_uncontended", lock_kinds[k].name, 1,
			      cycles[k], "cycles");
	}
	kbench_report("locks_uncontended", "ratio spinlock_t/raw", 1,
		      cycles[LOCK_SPIN] * 100 /
			      (cycles[LOCK_RAW] ? cycles[LOCK_RAW] : 1),
		      "x");
}

/* Contended: one task per CPU, all starting together, each counting its
 * acquisitions for CONTENDED_MS. */
static struct {
	enum lock_kind kind;
	volatile int ready;
	volatile bool go;
	uint64_t deadline;
	long ops[NR_CPUS];
} run;

static int hammer(void *arg)
{
	int idx = (int)(long)arg;
	long ops = 0;

	__atomic_fetch_add(&run.ready, 1, __ATOMIC_SEQ_CST);
	while (!run.go)
		cpu_relax();
	while (ktime_get_ns() < run.deadline) {
		lock_op(run.kind);
		ops++;
	}
	run.ops[idx] = ops;
	return 0;
}

static long contended(enum lock_kind kind, int ncpus)
{
	struct task *t[NR_CPUS];
	long total = 0;

	run.kind = kind;
	run.ready = 0;
	run.go = false;
	/* Above the hammers, which spin at the start line on our CPU too. */
	sched_setscheduler(current, SCHED_FIFO, 20);
	for (int i = 0; i < ncpus; i++) {
		t[i] = kthread_create(hammer, (void *)(long)i, "hammer");
		kthread_bind(t[i], i);
		/* RT, so that each owns its CPU: the figure is the lock's. */
		sched_setscheduler(t[i], SCHED_FIFO, 10);
		wake_up_process(t[i]);
	}
	while (run.ready < ncpus)
		msleep(1);
	run.deadline = ktime_get_ns() + CONTENDED_MS * 1000000ul;
	__atomic_store_n(&run.go, true, __ATOMIC_SEQ_CST);
	for (int i = 0; i < ncpus; i++) {
		kthread_join(t[i]);
		total += run.ops[i];
	}
	sched_setscheduler(current, SCHED_NORMAL, 0);
	return total;
}

KBENCH(locks_contended)
{
	int n = num_online_cpus();

	for (int k = 0; k < NR_LOCK_KINDS; k++)
		for (int ncpus = 1; ncpus <= n; ncpus++)
			kbench_report("locks_contended", lock_kinds[k].name,
				      ncpus,
				      (uint64_t)contended(k, ncpus) * 100 *
					      1000 / CONTENDED_MS / 1000,
				      "kops/s");
}
