/*
 * The article's first claim, measured: per-CPU data scales and shared data
 * does not. For 1..N CPUs, every CPU increments (a) its own per-CPU
 * counter with this_cpu_inc, (b) one shared counter with lock inc, (c) one
 * shared counter under a spinlock, (d) one shared counter with a plain,
 * racy increment, and we report the time per increment. (d) also counts
 * its lost updates: proof that the CPUs really ran in parallel.
 */
#include "kbench.h"
#include "percpu.h"
#include "smp.h"
#include "asm/spinlock.h"
#include "time.h"

/* Each variant runs for a fixed time, not a fixed count: a contended
 * spinlock under TCG, with more vCPUs than host cores, can be a thousand
 * times slower than the rest. */
#define RUN_MS 40
#define BATCH 64

enum variant { V_PERCPU, V_ATOMIC, V_SPINLOCK, V_RACY, NR_VARIANTS };

static const char *const variant_names[NR_VARIANTS] = {
	"this_cpu_inc", "shared lock inc", "shared under spinlock",
	"shared plain (racy)",
};

/* The shared counters sit on their own cache lines, as a real hot shared
 * counter would. */
static struct {
	long atomic __attribute__((aligned(64)));
	long locked __attribute__((aligned(64)));
	arch_spinlock_t lock __attribute__((aligned(64)));
	volatile long racy __attribute__((aligned(64)));
} shared;

static DEFINE_PER_CPU(long, bench_counter);

struct run {
	enum variant v;
	uint64_t cycles[NR_CPUS];
	uint64_t ops[NR_CPUS];
};

static void inc_batch(enum variant v)
{
	for (int i = 0; i < BATCH; i++) {
		switch (v) {
		case V_PERCPU:
			this_cpu_inc(bench_counter);
			break;
		case V_ATOMIC:
			__atomic_fetch_add(&shared.atomic, 1, __ATOMIC_RELAXED);
			break;
		case V_SPINLOCK:
			arch_spin_lock(&shared.lock);
			shared.locked++;
			arch_spin_unlock(&shared.lock);
			break;
		default:
			shared.racy = shared.racy + 1;
			break;
		}
	}
}

static void inc_loop(void *arg, int cpu)
{
	struct run *r = arg;
	uint64_t t0 = rdtsc(), end = t0 + RUN_MS * tsc_khz, t, ops = 0;

	do {
		inc_batch(r->v);
		ops += BATCH;
	} while ((t = rdtsc()) < end);
	r->cycles[cpu] = t - t0;
	r->ops[cpu] = ops;
}

static struct run run;

/* Mean time per increment over the participating CPUs, in ns x 100. */
static uint64_t run_variant(enum variant v, int ncpus)
{
	uint64_t per_op = 0;

	run.v = v;
	kbench_on_cpus(ncpus, inc_loop, &run);
	for (int cpu = 0; cpu < ncpus; cpu++)
		per_op += cycles_to_ns(run.cycles[cpu] * 100) / run.ops[cpu];
	return per_op / ncpus;
}

static long total_ops(int ncpus)
{
	long sum = 0;

	for (int cpu = 0; cpu < ncpus; cpu++)
		sum += run.ops[cpu];
	return sum;
}

static void reset_counters(void)
{
	int cpu;

	shared.atomic = shared.locked = shared.racy = 0;
	for_each_possible_cpu(cpu)
		*raw_per_cpu_ptr(&bench_counter, cpu) = 0; /* workers stopped */
}

static long percpu_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *raw_per_cpu_ptr(&bench_counter, cpu);
	return sum;
}

/* The exact counters must hold exactly the increments made. */
static void check_exact(enum variant v, long got, int ncpus)
{
	if (got != total_ops(ncpus))
		kbench_note("ERROR: %s counted %ld of %ld increments",
			    variant_names[v], got, total_ops(ncpus));
}

static void bench_at(int ncpus)
{
	uint64_t ns[NR_VARIANTS];
	long lost = 0;

	reset_counters();
	for (int v = 0; v < NR_VARIANTS; v++) {
		ns[v] = run_variant(v, ncpus);
		kbench_report("percpu_scaling", variant_names[v], ncpus, ns[v],
			      "ns/inc");
		if (v == V_PERCPU)
			check_exact(v, percpu_sum(), ncpus);
		else if (v == V_ATOMIC)
			check_exact(v, shared.atomic, ncpus);
		else if (v == V_SPINLOCK)
			check_exact(v, shared.locked, ncpus);
		else
			lost = total_ops(ncpus) - shared.racy;
	}
	kbench_report("percpu_scaling", "racy lost updates", ncpus,
		      (uint64_t)lost * 100, "updates");
	kbench_report("percpu_scaling", "ratio atomic/percpu", ncpus,
		      ns[V_ATOMIC] * 100 / (ns[V_PERCPU] ? ns[V_PERCPU] : 1), "x");
	kbench_report("percpu_scaling", "ratio spinlock/percpu", ncpus,
		      ns[V_SPINLOCK] * 100 / (ns[V_PERCPU] ? ns[V_PERCPU] : 1),
		      "x");
	if (ncpus > 1 && lost == 0)
		kbench_note("no update was lost at %d CPUs: the CPUs did not run "
			    "in parallel (-icount?), so the scaling figures of "
			    "this run are not meaningful", ncpus);
}

KBENCH(percpu_scaling)
{
	int n = num_online_cpus();

	for (int ncpus = 1; ncpus <= n; ncpus++)
		bench_at(ncpus);
}
