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
#include "local_lock.h"
#include "locking/lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "rtmutex.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "vsprintf.h"

/* Each figure is the median of RUNS runs. Many short runs (well under a
 * millisecond each) rather than a few long ones: a run in which the host
 * deschedules QEMU's vCPU thread is off by the time the thread waited,
 * and on a loaded host short runs leave most runs untouched. */
#define RUNS 31
#define CACHED_ITERS 5000
#define FS_LOCKS 128
#define FS_ROUNDS 2

struct pcp_lock {
	local_lock_t lock;
};

/* The cached paths' locks: one of each type, a class each. */
static DEFINE_RAW_SPINLOCK(c_raw);
static DEFINE_SPINLOCK(c_spin);
static DEFINE_MUTEX(c_mutex);
static DEFINE_RT_MUTEX(c_rtmutex);
static DEFINE_PER_CPU(struct pcp_lock, c_local) = {
	.lock = INIT_LOCAL_LOCK(c_local)};

/* The outer locks. */
static DEFINE_RAW_SPINLOCK(outer_raw);
static DEFINE_MUTEX(outer_mutex);

/* The first-seen path's locks: FS_LOCKS of each type, each given a class
 * of its own (fs_keys) once initialised. */
static raw_spinlock_t fs_raw[FS_LOCKS];
static spinlock_t fs_spin[FS_LOCKS];
static struct mutex fs_mutex[FS_LOCKS];
static struct rt_mutex fs_rtmutex[FS_LOCKS];
static DEFINE_PER_CPU(struct pcp_lock[FS_LOCKS], fs_local) = {
	[0 ... FS_LOCKS - 1] = {.lock = INIT_LOCAL_LOCK(fs_local)}};
static struct lock_class_key fs_keys[NR_LOCK_KINDS][FS_LOCKS];

static long shared_count;

/* n acquire+release pairs; L is the lock and may use the index i. */
#define PAIRS(n, lock_fn, unlock_fn, L)                                       \
	for (int i = 0; i < (n); i++) {                                       \
		lock_fn(L);                                                   \
		shared_count++;                                               \
		unlock_fn(L);                                                 \
	}

static void __attribute__((noinline)) cached_pairs(enum lock_kind k, int n)
{
	switch (k) {
	case LOCK_RAW:
		PAIRS(n, raw_spin_lock, raw_spin_unlock, &c_raw);
		break;
	case LOCK_SPIN:
		PAIRS(n, spin_lock, spin_unlock, &c_spin);
		break;
	case LOCK_LOCAL:
		PAIRS(n, local_lock, local_unlock, &c_local.lock);
		break;
	case LOCK_MUTEX:
		PAIRS(n, mutex_lock, mutex_unlock, &c_mutex);
		break;
	default:
		PAIRS(n, rt_mutex_lock, rt_mutex_unlock, &c_rtmutex);
		break;
	}
}

static void __attribute__((noinline)) first_seen_pairs(enum lock_kind k)
{
	switch (k) {
	case LOCK_RAW:
		PAIRS(FS_LOCKS, raw_spin_lock, raw_spin_unlock, &fs_raw[i]);
		break;
	case LOCK_SPIN:
		PAIRS(FS_LOCKS, spin_lock, spin_unlock, &fs_spin[i]);
		break;
	case LOCK_LOCAL:
		PAIRS(FS_LOCKS, local_lock, local_unlock, &fs_local[i].lock);
		break;
	case LOCK_MUTEX:
		PAIRS(FS_LOCKS, mutex_lock, mutex_unlock, &fs_mutex[i]);
		break;
	default:
		PAIRS(FS_LOCKS, rt_mutex_lock, rt_mutex_unlock, &fs_rtmutex[i]);
		break;
	}
}

static void outer_lock(enum lock_kind k)
{
	if (k == LOCK_RAW)
		raw_spin_lock(&outer_raw);
	else
		mutex_lock(&outer_mutex);
}

static void outer_unlock(enum lock_kind k)
{
	if (k == LOCK_RAW)
		raw_spin_unlock(&outer_raw);
	else
		mutex_unlock(&outer_mutex);
}

static void init_first_seen_locks(void)
{
	int cpu;

	for (int i = 0; i < FS_LOCKS; i++) {
		raw_spin_lock_init(&fs_raw[i]);
		lockdep_set_class(&fs_raw[i], &fs_keys[LOCK_RAW][i]);
		spin_lock_init(&fs_spin[i]);
		lockdep_set_class(&fs_spin[i], &fs_keys[LOCK_SPIN][i]);
		mutex_init(&fs_mutex[i]);
		lockdep_set_class(&fs_mutex[i], &fs_keys[LOCK_MUTEX][i]);
		rt_mutex_init(&fs_rtmutex[i]);
		lockdep_set_class(&fs_rtmutex[i], &fs_keys[LOCK_RTMUTEX][i]);
		for_each_possible_cpu(cpu) {
			local_lock_t *l = per_cpu_ptr(&fs_local[i].lock, cpu);

			lockdep_set_class(l, &fs_keys[LOCK_LOCAL][i]);
		}
	}
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
	uint64_t t0, t1;

	if (nested)
		outer_lock(k);
	cached_pairs(k, 1); /* the chain's first (validating) acquisition */
	t0 = rdtsc();
	cached_pairs(k, CACHED_ITERS);
	t1 = rdtsc();
	if (nested)
		outer_unlock(k);
	return (t1 - t0) * 100 / CACHED_ITERS;
}

static uint64_t first_seen_cost(enum lock_kind k, bool unused)
{
	uint64_t t0, t1, total = 0;

	for (int r = 0; r <= FS_ROUNDS; r++) {
		collect_reports();
		lockdep_reset();
		outer_lock(k);
		t0 = rdtsc();
		first_seen_pairs(k);
		t1 = rdtsc();
		outer_unlock(k);
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
	init_first_seen_locks();
	for (int k = 0; k < NR_LOCK_KINDS; k++) {
		report(k, "cached", cached_cost, true);
		report(k, "cached-solo", cached_cost, false);
		report(k, "first-seen", first_seen_cost, false);
	}
	collect_reports();
	if (reports)
		kbench_note("ERROR: %lu lock validator report(s) during the "
			    "benchmark", reports);
	if (validator_went_off)
		kbench_note("ERROR: the lock validator turned itself off (a "
			    "table overflowed); the LOCKDEP=1 figures are "
			    "wrong");
}
