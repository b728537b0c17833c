/*
 * The allocator's per-CPU caches against its plain shared-lock path, in
 * one boot (kmalloc_pcp_set() switches between them): on 1, 2, 4 and 8
 * CPUs (as many as are online), one task bound to each CPU allocates
 * bursts of objects and frees them, and we report
 *   - alloc+free pairs per second over all CPUs, the median of RUNS runs
 *     of RUN_MS each, for both paths, and their ratio;
 *   - TSC cycles per alloc+free pair on a CPU (the workers' cycles over
 *     their pairs), median and spread of the same runs, and the ratio
 *     shared/per-CPU: the cost of one pair, which with more vCPUs than
 *     host cores includes the time a vCPU waits for the host;
 *   - the same per CPU, whose flatness from 1 to N CPUs is the point of
 *     per-CPU data (in DETERMINISTIC=1 mode, where vCPUs do not wait for
 *     host cores, it is the figure to read);
 *   - shared-lock acquisitions per 10^6 kmalloc/kfree calls, counted over
 *     a fixed number of calls: the figure that does not depend on the
 *     host. The per-CPU path must stay within 2 * 10^6 / C (an ERROR
 *     otherwise); the shared path takes the lock on every call.
 * The tasks run preemptible, as kmalloc's callers do: kbench_on_cpus()
 * runs its workers with interrupts off, where kmalloc takes the shared
 * path whatever the setting.
 */
#include "drain.h"
#include "kbench.h"
#include "kmalloc.h"
#include "page_alloc.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "asm/timer.h"

#define RUNS 5
#define RUN_MS 30
/* Calls counted for the lock figure, over all CPUs: fewer on the shared
 * path, where each costs a contended lock (and with more vCPUs than host
 * cores, a lock handed to a vCPU the host is not running stalls all: at
 * 8 vCPUs on 2 cores a pair can cost 10^7 cycles). Its count is one
 * acquisition per call by construction; the run shows it. */
static const long fixed_ops[] = {1000000, 4000};
#define MAX_BURST (2 * KMALLOC_SHEAF_CAPACITY)
#define BENCH_CPUS_MAX 8

enum path { PATH_PCP, PATH_SHARED, NR_PATHS };

static const char *const path_names[NR_PATHS] = {"per-CPU caches",
						 "shared lock"};

struct alloc_run {
	int ncpus;
	long fixed_ops;                  /* per CPU; 0: run for RUN_MS */
	volatile int ready, go, done, failures;
	uint64_t cycles[BENCH_CPUS_MAX];
	uint64_t pairs[BENCH_CPUS_MAX];
};

struct worker_arg {
	struct alloc_run *run;
	int idx;
};

/* Burst k: 1..2C objects of 32 to 256 bytes, allocated, then freed in
 * the same order. Returns the pairs done, or -1 when kmalloc failed. */
static long burst(unsigned int k)
{
	void *held[MAX_BURST];
	int n = 1 + (int)((k * 7) % MAX_BURST);
	size_t size = 32u << (k % 4);

	for (int i = 0; i < n; i++) {
		held[i] = kmalloc(size);
		if (!held[i]) {
			while (i--)
				kfree(held[i]);
			return -1;
		}
		*(volatile char *)held[i] = 1;
	}
	for (int i = 0; i < n; i++)
		kfree(held[i]);
	return n;
}

static int alloc_worker(void *arg)
{
	struct worker_arg *w = arg;
	struct alloc_run *r = w->run;
	uint64_t t0, t, end;
	unsigned int k = w->idx * 1000;
	long pairs = 0, n;

	__atomic_fetch_add(&r->ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
		yield();
	t = t0 = rdtsc();
	end = t0 + RUN_MS * tsc_khz;
	do {
		if ((n = burst(k++)) < 0) {
			__atomic_fetch_add(&r->failures, 1, __ATOMIC_RELAXED);
			break;
		}
		pairs += n;
		t = rdtsc();
	} while (r->fixed_ops ? pairs * 2 < r->fixed_ops : t < end);
	r->cycles[w->idx] = t - t0;
	r->pairs[w->idx] = pairs;
	__atomic_fetch_add(&r->done, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* One task per CPU 0..ncpus-1, started together. */
static void run_workers(struct alloc_run *r)
{
	static struct worker_arg args[BENCH_CPUS_MAX];
	struct task_struct *t[BENCH_CPUS_MAX];

	for (int i = 0; i < r->ncpus; i++) {
		args[i] = (struct worker_arg){.run = r, .idx = i};
		t[i] = kthread_create(alloc_worker, &args[i], "bench_alloc");
		if (!t[i]) {
			kbench_note("ERROR: no task for CPU %d", i);
			r->ncpus = i;
			break;
		}
		kthread_bind(t[i], i);
		wake_up_process(t[i]);
	}
	while (__atomic_load_n(&r->ready, __ATOMIC_ACQUIRE) < r->ncpus)
		msleep(1);
	__atomic_store_n(&r->go, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) < r->ncpus)
		msleep(1);
	for (int i = 0; i < r->ncpus; i++)
		kthread_join(t[i]);
	if (r->failures)
		kbench_note("ERROR: kmalloc failed %d time(s)", r->failures);
}

static void set_path(enum path p)
{
	kmalloc_pcp_set(p == PATH_PCP);
	page_pcp_set(p == PATH_PCP);
	mm_drain_all(); /* each run starts from empty caches */
}

/* One timed run's figures, each x100: pairs per second over all CPUs
 * and per CPU (in thousands), and cycles per pair on a CPU. */
struct timed {
	uint64_t total, per_cpu, cycles;
};

static void timed_run(int ncpus, struct timed *f)
{
	struct alloc_run r = {.ncpus = ncpus};
	uint64_t cycles = 0, pairs = 0;

	run_workers(&r);
	f->total = 0;
	for (int i = 0; i < r.ncpus; i++) {
		if (r.cycles[i])
			f->total += r.pairs[i] * tsc_khz * 100 / r.cycles[i];
		cycles += r.cycles[i];
		pairs += r.pairs[i];
	}
	f->per_cpu = f->total / (ncpus ? ncpus : 1);
	f->cycles = pairs ? cycles * 100 / pairs : 0;
}

/* Shared-lock acquisitions per 10^6 calls over a fixed count of calls. */
static uint64_t lock_count_run(int ncpus, enum path p)
{
	struct alloc_run r = {.ncpus = ncpus,
			      .fixed_ops = fixed_ops[p] / ncpus};
	unsigned long before = kmalloc_lock_acquisitions(), locks;
	uint64_t ops = 0;

	run_workers(&r);
	locks = kmalloc_lock_acquisitions() - before;
	for (int i = 0; i < r.ncpus; i++)
		ops += 2 * r.pairs[i];
	return ops ? locks * 1000000ull * 100 / ops : 0;
}

static uint64_t ratio_x100(uint64_t a, uint64_t b)
{
	return b ? a * 100 / b : 0;
}

/* The timed figures of both paths: medians (with spread) of RUNS runs,
 * and the ratios. */
static void report_timed(int ncpus, struct timed runs[NR_PATHS][RUNS])
{
	uint64_t total[NR_PATHS][RUNS], per_cpu[NR_PATHS][RUNS];
	uint64_t cycles[NR_PATHS][RUNS], med[NR_PATHS], cyc[NR_PATHS];

	for (int p = 0; p < NR_PATHS; p++) {
		for (int i = 0; i < RUNS; i++) {
			total[p][i] = runs[p][i].total;
			per_cpu[p][i] = runs[p][i].per_cpu;
			cycles[p][i] = runs[p][i].cycles;
		}
		med[p] = kbench_median(total[p], RUNS);
		cyc[p] = kbench_median(cycles[p], RUNS);
		kbench_report_runs("kmalloc_scaling", path_names[p], ncpus,
				   total[p], RUNS, "kpairs/s");
		kbench_report_runs("kmalloc_cycles", path_names[p], ncpus,
				   cycles[p], RUNS, "cycles/pair");
	}
	for (int p = 0; p < NR_PATHS; p++)
		kbench_report("kmalloc_scaling",
			      p == PATH_PCP ? "per-CPU caches, per CPU" :
					      "shared lock, per CPU",
			      ncpus, kbench_median(per_cpu[p], RUNS), "kpairs/s");
	kbench_report("kmalloc_scaling", "ratio per-CPU/shared", ncpus,
		      ratio_x100(med[PATH_PCP], med[PATH_SHARED]), "x");
	kbench_report("kmalloc_cycles", "ratio shared/per-CPU", ncpus,
		      ratio_x100(cyc[PATH_SHARED], cyc[PATH_PCP]), "x");
}

static void bench_at(int ncpus)
{
	static struct timed runs[NR_PATHS][RUNS];
	uint64_t locks[NR_PATHS];
	const uint64_t bound = 2 * 1000000ull / KMALLOC_SHEAF_CAPACITY;

	for (int p = 0; p < NR_PATHS; p++) {
		set_path(p);
		for (int i = 0; i < RUNS; i++)
			timed_run(ncpus, &runs[p][i]);
		locks[p] = lock_count_run(ncpus, p);
	}
	set_path(PATH_PCP);
	report_timed(ncpus, runs);
	for (int p = 0; p < NR_PATHS; p++)
		kbench_report("kmalloc_locks",
			      p == PATH_PCP ? "per-CPU caches" : "shared lock",
			      ncpus, locks[p], "acq/1e6 ops");
	if (locks[PATH_PCP] > bound * 100)
		kbench_note("ERROR: %lu.%02lu shared-lock acquisitions per 10^6 "
			    "calls on the per-CPU path, over 2*10^6/C = %lu",
			    locks[PATH_PCP] / 100, locks[PATH_PCP] % 100,
			    (unsigned long)bound);
}

KBENCH(kmalloc_scaling)
{
	static const int cpus[] = {1, 2, 4, 8};
	int online = num_online_cpus();

	kbench_note("sheaf capacity C = %d, batch %d: goal <= %d shared-lock "
		    "acquisitions per 10^6 calls", KMALLOC_SHEAF_CAPACITY,
		    KMALLOC_SHEAF_BATCH, 2000000 / KMALLOC_SHEAF_CAPACITY);
	kbench_report("kmalloc_locks", "goal 2e6/C", online,
		      2000000ull * 100 / KMALLOC_SHEAF_CAPACITY, "acq/1e6 ops");
	for (unsigned i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (cpus[i] <= online)
			bench_at(cpus[i]);
	kmalloc_slabinfo();
}

/* The slabinfo-like dump alone: `make bench KBENCH=slabinfo`, or
 * kbench=slabinfo on any boot. */
KBENCH(slabinfo)
{
	kmalloc_slabinfo();
}
