/*
 * What each lock costs: an uncontended acquire+release in cycles, and the
 * throughput of a contended one with 1..N CPUs hammering it (tasks bound
 * one per CPU, a fixed time each). `make bench` runs this on RT=0 and
 * RT=1: on RT=1 spinlock_t and local_lock_t are sleeping rt_mutex locks.
 */
#include "bench_locks.h"
#include "kbench.h"
#include "percpu.h"
#include "sched.h"
#include "smp.h"
#include "time.h"

#define UNCONTENDED_ITERS 200000
#define CONTENDED_MS 50

/* What the locks protect: one shared counter, or for a per-CPU lock this
 * CPU's copy of one. */
static long shared_count;
static DEFINE_PER_CPU(long, pcp_count);

/* The counter a lock of kind k protects, for a task that stays on its
 * CPU (bound): the raw pointer, as the task is not preemptible there in
 * any way that matters to a benchmark built with LOCKDEP=0. */
static long *protected_count(enum lock_kind k)
{
	return lock_kinds[k].percpu ? raw_cpu_ptr(&pcp_count) : &shared_count;
}

KBENCH(locks_uncontended)
{
	uint64_t cycles[NR_LOCK_KINDS];

	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		uint64_t t0;

		lock_kinds[k].init(lock_pool(k, 0), 0);
		t0 = rdtsc();
		lock_pool_pairs(k, 0, 0, UNCONTENDED_ITERS, protected_count(k));
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
 * acquisitions until the deadline. */
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
	long ops = 0, *count = protected_count(run.kind);

	__atomic_fetch_add(&run.ready, 1, __ATOMIC_SEQ_CST);
	while (!run.go)
		cpu_relax();
	while (ktime_get_ns() < run.deadline) {
		lock_pool_pairs(run.kind, 0, 0, 1, count);
		ops++;
	}
	run.ops[idx] = ops;
	return 0;
}

long lock_bench_contended(enum lock_kind k, int ncpus, int ms)
{
	static struct task_struct *t[NR_CPUS]; /* not on the stack; one run at a time */
	long total = 0;

	lock_kinds[k].init(lock_pool(k, 0), 0);
	run.kind = k;
	run.ready = 0;
	run.go = false;
	for (int i = 0; i < ncpus; i++) {
		t[i] = kthread_create(hammer, (void *)(long)i, "hammer");
		kthread_bind(t[i], i);
		/* RT, so that each owns its CPU: the figure is the lock's. */
		sched_setscheduler(t[i], SCHED_FIFO, 10);
		wake_up_process(t[i]);
	}
	while (run.ready < ncpus)
		msleep(1);
	run.deadline = ktime_get_ns() + ms * 1000000ul;
	__atomic_store_n(&run.go, true, __ATOMIC_SEQ_CST);
	for (int i = 0; i < ncpus; i++) {
		kthread_join(t[i]);
		total += run.ops[i];
	}
	return total;
}

KBENCH(locks_contended)
{
	int n = num_online_cpus();

	/* Above the hammers, which spin at the start line on our CPU too. */
	sched_setscheduler(current, SCHED_FIFO, 20);
	for (int k = 0; k < NR_LOCK_KINDS; k++)
		for (int ncpus = 1; ncpus <= n; ncpus++)
			kbench_report("locks_contended", lock_kinds[k].name,
				      ncpus,
				      (uint64_t)lock_bench_contended(
					      k, ncpus, CONTENDED_MS) *
					      100 * 1000 / CONTENDED_MS / 1000,
				      "kops/s");
	sched_setscheduler(current, SCHED_NORMAL, 0);
}
