/*
 * What RCU costs (docs/rcu.md, section 9), each figure the median of RUNS
 * runs with its smallest and largest:
 *   - rcu_read_lock()+rcu_read_unlock() against preempt_disable()+
 *     preempt_enable(), cycles per pair, and their ratio (the goal: at
 *     most 1.5x on RT=0, 2x on RT=1), each run the fastest of its bursts;
 *   - synchronize_rcu() latency, median and max, with the other CPUs idle
 *     and with a reader-and-yield load on every CPU;
 *   - call_rcu() throughput in a flood of kfree_rcu()d objects (queued
 *     per second, and invoked per second until rcu_barrier() returns), and
 *     the flood's memory high-water mark: the most objects waiting for
 *     their grace period at once, and the most callbacks queued at once
 *     (both sampled during the flood, not since boot).
 */
#include "atomic.h"
#include "kbench.h"
#include "kmalloc.h"
#include "rcupdate.h"
#include "rcutree.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "asm/processor.h"

#define RUNS 7
#define BURSTS 16
#define PAIRS 10000
#define SYNCS 15
#define FLOOD 20000

/* Loops of their own, not inlined into one function: the compiler would
 * fold the two pairs' loads of current or of the preempt count. The load
 * of gp inside each section (READ_ONCE(), as rcu_dereference()) is what a
 * reader does. */
static int *gp;
static int gp_value = 1;
static int sink; /* the sum, so that the loads are made */

static __attribute__((noinline)) uint64_t rcu_pairs(void)
{
	uint64_t t0 = rdtsc();
	int sum = 0;

	for (int i = 0; i < PAIRS; i++) {
		rcu_read_lock();
		sum += *rcu_dereference(gp);
		rcu_read_unlock();
	}
	WRITE_ONCE(sink, sum);
	return (rdtsc() - t0) * 100 / PAIRS;
}

static __attribute__((noinline)) uint64_t preempt_pairs(void)
{
	uint64_t t0 = rdtsc();
	int sum = 0;

	for (int i = 0; i < PAIRS; i++) {
		preempt_disable();
		sum += *READ_ONCE(gp);
		preempt_enable();
	}
	WRITE_ONCE(sink, sum);
	return (rdtsc() - t0) * 100 / PAIRS;
}

/*
 * One run: the fastest of BURSTS bursts of each kind, the two kinds
 * alternating. A burst during which the host took the vCPU away only
 * gets slower, so the fastest is the pair's cost, and both kinds are
 * measured under the same host.
 */
static void pair_run(uint64_t *r, uint64_t *p)
{
	*r = *p = UINT64_MAX;
	for (int b = 0; b < BURSTS; b++) {
		uint64_t x = rcu_pairs(), y = preempt_pairs();

		*r = x < *r ? x : *r;
		*p = y < *p ? y : *p;
	}
}

KBENCH(rcu_read_lock)
{
	uint64_t r[RUNS], p[RUNS], ratio[RUNS];

	rcu_assign_pointer(gp, &gp_value);
	for (int i = 0; i < RUNS; i++) {
		pair_run(&r[i], &p[i]);
		ratio[i] = r[i] * 100 / (p[i] ? p[i] : 1);
	}
	kbench_report_runs("rcu_read_lock", "rcu_read_lock+unlock", 1, r,
			   RUNS, "cycles");
	kbench_report_runs("rcu_read_lock", "preempt_disable+enable", 1, p,
			   RUNS, "cycles");
	kbench_report_runs("rcu_read_lock", "ratio rcu/preempt", 1, ratio,
			   RUNS, "x");
	kbench_note("each run the fastest of %d bursts of %d pairs; the ratio "
		    "per run; goal: at most %s", BURSTS, PAIRS,
		    IS_ENABLED(CONFIG_PREEMPT_RT) ? "2x" : "1.5x");
}

/* ---- synchronize_rcu() latency ---- */

static struct {
	int stop;
	atomic_t up;
} load;

/* Short readers, now and then a yield: every CPU busy, switching. */
static int load_fn(void *arg)
{
	int sum = 0;

	atomic_inc(&load.up);
	while (!READ_ONCE(load.stop)) {
		for (int i = 0; i < 1000; i++) {
			rcu_read_lock();
			sum += *rcu_dereference(gp);
			rcu_read_unlock();
		}
		yield();
	}
	return sum;
}

static void sync_latency(const char *variant)
{
	uint64_t us[SYNCS];

	for (int i = 0; i < SYNCS; i++) {
		uint64_t t0 = ktime_get_ns();

		synchronize_rcu();
		us[i] = (ktime_get_ns() - t0) / 10; /* us x100 */
	}
	kbench_report_runs("rcu_sync", variant, num_online_cpus(), us, SYNCS,
			   "us");
}

KBENCH(rcu_sync)
{
	static struct task_struct *t[NR_CPUS];
	int n = num_online_cpus(), started = 0;

	rcu_assign_pointer(gp, &gp_value);
	sync_latency("synchronize_rcu idle");
	WRITE_ONCE(load.stop, 0);
	atomic_set(&load.up, 0);
	for (int cpu = 0; cpu < n; cpu++) {
		t[cpu] = kthread_create(load_fn, 0, "rcu_load");
		if (t[cpu]) {
			kthread_bind(t[cpu], cpu);
			wake_up_process(t[cpu]);
			started++;
		}
	}
	while (atomic_read(&load.up) < started)
		msleep(1);
	sync_latency("synchronize_rcu loaded");
	WRITE_ONCE(load.stop, 1);
	for (int cpu = 0; cpu < n; cpu++)
		if (t[cpu])
			kthread_join(t[cpu]);
	kbench_note("median (min..max) of %d calls each; loaded: %d of %d "
		    "CPUs running readers and yielding", SYNCS, started, n);
}

/* ---- a call_rcu() flood ---- */

struct flood_obj {
	long payload[6];
	struct rcu_head rcu;
};

static int flood_class(void)
{
	int cls = 0;

	while (kmalloc_class_size(cls) < sizeof(struct flood_obj))
		cls++;
	return cls;
}

/* The callbacks queued on every CPU now, not yet invoked. */
static long cbs_queued(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c.cbs_queued;
}

/* One run: FLOOD kfree_rcu()s as fast as kmalloc gives objects, then
 * rcu_barrier(). The objects in use and the callbacks queued are sampled
 * every 64 calls (peak, cbs: the most of each, above the run's start);
 * the samples' cost, a lock and a walk of the CPUs each, is in the
 * throughput. */
static void flood_once(uint64_t *queued, uint64_t *done, uint64_t *peak,
		       uint64_t *cbs)
{
	int cls = flood_class();
	long base = kmalloc_objects_in_use(cls), most = 0;
	long cbs_base = cbs_queued(), cbs_most = 0, waiting;
	uint64_t t0 = ktime_get_ns(), t1;

	for (int i = 0; i < FLOOD; i++) {
		struct flood_obj *o = kmalloc(sizeof(*o));

		if (!o)
			break;
		kfree_rcu(o, rcu);
		if (i % 64)
			continue;
		waiting = kmalloc_objects_in_use(cls) - base;
		most = waiting > most ? waiting : most;
		waiting = cbs_queued() - cbs_base;
		cbs_most = waiting > cbs_most ? waiting : cbs_most;
	}
	t1 = ktime_get_ns();
	rcu_barrier();
	*queued = FLOOD * 100ull * 1000000 / ((t1 - t0) / 1000 + 1);
	*done = FLOOD * 100ull * 1000000 / ((ktime_get_ns() - t0) / 1000 + 1);
	*peak = (uint64_t)most * 100;
	*cbs = (uint64_t)cbs_most * 100;
}

KBENCH(rcu_flood)
{
	uint64_t queued[RUNS], done[RUNS], peak[RUNS], kib[RUNS], cbs[RUNS];
	struct rcu_counters c0, c1;

	rcu_get_counters(&c0);
	for (int i = 0; i < RUNS; i++) {
		flood_once(&queued[i], &done[i], &peak[i], &cbs[i]);
		kib[i] = peak[i] * sizeof(struct flood_obj) / 1024;
	}
	rcu_get_counters(&c1);
	kbench_report_runs("rcu_flood", "call_rcu queued", 1, queued, RUNS,
			   "cbs/s");
	kbench_report_runs("rcu_flood", "call_rcu invoked", 1, done, RUNS,
			   "cbs/s");
	kbench_report_runs("rcu_flood", "objects waiting, most", 1, peak,
			   RUNS, "objs");
	kbench_report_runs("rcu_flood", "memory waiting, most", 1, kib, RUNS,
			   "KiB");
	kbench_report_runs("rcu_flood", "callbacks waiting, most", 1, cbs,
			   RUNS, "cbs");
	kbench_report("rcu_flood", "call_rcu() waits (throttled)", 1,
		      (uint64_t)(c1.throttled - c0.throttled) * 100, "calls");
	kbench_report("rcu_flood", "grace periods", 1,
		      (uint64_t)(c1.gps_completed - c0.gps_completed) * 100,
		      "gps");
	kbench_note("%d runs of %d kfree_rcu()s of %zu-byte objects; qhimark "
		    "%ld, qovld %ld", RUNS, FLOOD, sizeof(struct flood_obj),
		    rcu_qhimark, rcu_qovld);
}
