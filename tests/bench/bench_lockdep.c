/*
 * What the lock validator costs: an uncontended acquire+release of each
 * lock type, in cycles, on the validator's two paths. `make bench` runs
 * this in its LOCKDEP=0 kernel (the baseline: every hook compiled away)
 * and again in a LOCKDEP=1 kernel beside it, and prints LOCKDEP=1 over
 * LOCKDEP=0 for each figure (scripts/run-bench.sh).
 *
 *   cached       an outer lock of a fixed class held, then the lock under
 *                test taken and released CACHED_ITERS times: from the
 *                second time on, the chain (outer, lock) is in the chain
 *                cache, so each acquisition costs a class lookup, a hash
 *                and a cache probe. The validator's common path.
 *   cached-solo  the same with no outer lock (a chain of one).
 *   first-seen   FS_LOCKS locks of the type, each of a class of its own,
 *                after lockdep_reset() (which forgets dependencies and
 *                cached chains, and keeps classes): each one, taken once
 *                under the outer lock, is a chain never seen and a new
 *                edge, validated under the graph lock (wait context, IRQ
 *                usage, the cycle search, the edge, the chain). FS_ROUNDS
 *                rounds, a reset before each, only the FS_LOCKS pairs
 *                timed; round 0 is not counted (it registers the classes,
 *                which happens once in a lock's life). Every lock class
 *                is first seen under the same outer class, whose edge
 *                list grows to FS_LOCKS during a round: the duplicate-edge
 *                scan over it is part of the figure.
 *
 * Each figure is the median of RUNS runs, printed with their range.
 *
 * The outer lock is a raw_spinlock_t for raw_spinlock_t and a mutex for
 * the others: a lock that sleeps on PREEMPT_RT may not be taken under a
 * raw spinlock, and the benchmark must itself be free of reports (it
 * checks, and prints ERROR otherwise). It runs in the kbench task, bound
 * to CPU 0; the local_lock_t locks are per-CPU, as they must be.
 */
#include "kbench.h"
#include "locking/lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "vsprintf.h"

/* Each figure is the median of RUNS runs. Many short runs (well under a
 * millisecond each) rather than a few long ones: a run in which the host
 * deschedules QEMU's vCPU thread is off by the time the thread waited,
 * and on a loaded host short runs leave most runs untouched. 5,000 pairs
 * were not short with the compiler's hooks: at 400-700 cycles each, a
 * run took about a millisecond, and at host load 20 more than half the
 * runs were hit (raw_spinlock_t cached: fastest run 393 cycles, median
 * 1,746). 1,000 pairs still hide the timer reads (about 40 cycles) in
 * a hundredth of a cycle per pair. */
#define RUNS 51
#define CACHED_ITERS 1000

/* The locks, from the lock-kind pool: the cached paths' lock is number
 * 0 of its kind, the first-seen path's FS_LOCKS follow it, each given a
 * class of its own (keys). */
#define CACHED_LOCK 0
#define FS_FIRST 1
#define FS_LOCKS (LOCK_POOL_SIZE - FS_FIRST)
#define FS_ROUNDS 2

static struct lock_class_key keys[NR_LOCK_KINDS][LOCK_POOL_SIZE];

/* The outer locks. */
static DEFINE_RAW_SPINLOCK(outer_raw);
static DEFINE_MUTEX(outer_mutex);

static long shared_count;

static void init_locks(void)
{
	for (int k = 0; k < NR_LOCK_KINDS; k++)
		for (int i = 0; i < LOCK_POOL_SIZE; i++)
			lock_kinds[k].init(lock_pool(k, i), &keys[k][i]);
}

/* The outer lock for kind k: a raw spinlock for a lock that spins on
 * PREEMPT_RT too, else a mutex. */
static struct any_lock outer_of(enum lock_kind k)
{
	return lock_kinds[k].rt_sleeps ? ANY_LOCK(LOCK_MUTEX, &outer_mutex)
				       : ANY_LOCK(LOCK_RAW, &outer_raw);
}

/* Reports made while the benchmark ran. lockdep_reset() clears the
 * counters, so they are collected before each reset. */
static unsigned long reports, reports_base;
static bool validator_went_off;

static void collect_reports(void)
{
	reports += lockdep_reports_total() - reports_base;
	reports_base = 0;
	if (IS_ENABLED(CONFIG_LOCKDEP) && !lockdep_enabled())
		validator_went_off = true;
}

/* Hundredths of a cycle per pair. */
static uint64_t cached_cost(enum lock_kind k, bool nested)
{
	struct any_lock outer = outer_of(k);
	uint64_t t0, t1;

	if (nested)
		any_lock_acquire(&outer);
	/* The chain's first (validating) acquisition, then the timed ones. */
	lock_pool_pairs(k, CACHED_LOCK, 0, 1, &shared_count);
	t0 = rdtsc();
	lock_pool_pairs(k, CACHED_LOCK, 0, CACHED_ITERS, &shared_count);
	t1 = rdtsc();
	if (nested)
		any_lock_release(&outer);
	return (t1 - t0) * 100 / CACHED_ITERS;
}

static uint64_t first_seen_cost(enum lock_kind k, bool unused)
{
	struct any_lock outer = outer_of(k);
	uint64_t t0, t1, total = 0;

	for (int r = 0; r <= FS_ROUNDS; r++) {
		collect_reports();
		lockdep_reset();
		any_lock_acquire(&outer);
		t0 = rdtsc();
		lock_pool_pairs(k, FS_FIRST, 1, FS_LOCKS, &shared_count);
		t1 = rdtsc();
		any_lock_release(&outer);
		if (r > 0)
			total += t1 - t0;
	}
	return total * 100 / ((uint64_t)FS_ROUNDS * FS_LOCKS);
}

/* One figure: RUNS runs of cost(k, arg), their median and spread. */
static void report(enum lock_kind k, const char *path,
		   uint64_t (*cost)(enum lock_kind k, bool arg), bool arg)
{
	uint64_t v[RUNS];
	char name[40];

	for (int r = 0; r < RUNS; r++)
		v[r] = cost(k, arg);
	snprintf(name, sizeof(name), "%s %s", lock_kinds[k].name, path);
	kbench_report_runs("lockdep_overhead", name, 1, v, RUNS, "cycles");
}

/*
 * Per-CPU accesses through a plain pointer, which only the compiler's
 * hooks see (TSAN=1, kernel/locking/lockdep_percpu_tsan.c): ACCESS_ITERS
 * increments, a plain load and a plain store each (a compiler barrier
 * between iterations keeps both: a volatile access would be a marked one,
 * which the hooks never check), of this CPU's copy with preemption off
 * (the checker's common case: the owner again, a settled repeat), and of
 * memory outside the per-CPU areas (the inline address filter alone).
 * Hundredths of a cycle per access.
 */
#define ACCESS_ITERS 2000
static DEFINE_PER_CPU(long, bench_pcp);
static long bench_plain;

static uint64_t access_cost(enum lock_kind unused, bool percpu)
{
	long *p;
	uint64_t t0, t1;

	preempt_disable();
	p = percpu ? per_cpu_ptr(&bench_pcp, raw_smp_processor_id())
		   : &bench_plain;
	t0 = rdtsc();
	for (int i = 0; i < ACCESS_ITERS; i++) {
		(*p)++;
		barrier();
	}
	t1 = rdtsc();
	preempt_enable();
	return (t1 - t0) * 100 / (2 * ACCESS_ITERS);
}

static void report_access(const char *name, bool percpu)
{
	uint64_t v[RUNS];

	for (int r = 0; r < RUNS; r++)
		v[r] = access_cost(0, percpu);
	kbench_report_runs("lockdep_overhead", name, 1, v, RUNS, "cycles");
}

KBENCH(lockdep_overhead)
{
	if (!IS_ENABLED(CONFIG_LOCKDEP))
		kbench_note("kernel built with LOCKDEP=0: the baseline, no "
			    "validator");
	else
		kbench_note("kernel built with LOCKDEP=1: figures include the "
			    "lock validator%s",
			    lockdep_enabled() ? "" : " (which is OFF)");
	if (IS_ENABLED(CONFIG_LOCKDEP) && !lockdep_enabled())
		kbench_note("ERROR: the lock validator is off before the "
			    "benchmark starts");
	kbench_note("cycles per acquire+release on CPU %d: cached x%d, "
		    "first-seen %d locks x %d rounds", raw_smp_processor_id(),
		    CACHED_ITERS, FS_LOCKS, FS_ROUNDS);
	reports_base = lockdep_reports_total();
	if (reports_base)
		kbench_note("%lu validator report(s) before the benchmark",
			    reports_base);
	init_locks();
	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		report(k, "cached", cached_cost, true);
		report(k, "cached-solo", cached_cost, false);
		report(k, "first-seen", first_seen_cost, false);
	}
	report_access("access per-CPU", true);
	report_access("access other", false);
	collect_reports();
	if (reports)
		kbench_note("ERROR: %lu lock validator report(s) during the "
			    "benchmark", reports);
	if (validator_went_off)
		kbench_note("ERROR: the lock validator turned itself off (a "
			    "table overflowed); the LOCKDEP=1 figures are "
			    "wrong");
}
