/*
 * What RCU costs (docs/rcu.md, section 9), each figure the median of RUNS
 * runs with its smallest and largest:
 *   - rcu_read_lock()+rcu_read_unlock() against preempt_disable()+
 *     preempt_enable(), cycles per pair, and their ratio (the goal: at
 *     most 1.5x on RT=0, 2x on RT=1);
 *   - synchronize_rcu() latency, median and max, with the other CPUs idle
 *     and with a reader-and-yield load on every CPU;
 *   - call_rcu() throughput in a flood of kfree_rcu()d objects (queued
 *     per second, and invoked per second until rcu_barrier() returns), and
 *     the flood's memory high-water mark: the most objects waiting for
 *     their grace period at once, and the most callbacks on one CPU.
 */
#include "kbench.h"
#include "kmalloc.h"
#include "rcupdate.h"
#include "rcutree.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "asm/processor.h"

#define RUNS 7
#define PAIRS 200000
#define SYNCS 15
#define FLOOD 20000

/* Loops of their own, not inlined into one function: the compiler would
 * fold the two pairs' loads of current or of the preempt count. The load
 * of gp inside each section is what a reader does. */
static int *volatile gp;
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

KBENCH(rcu_read_lock)
{
	static int value = 1;
	uint64_t r[RUNS], p[RUNS], rm, pm;

	gp = &value;
	for (int i = 0; i < RUNS; i++) {
		r[i] = rcu_pairs();
		p[i] = preempt_pairs();
	}
	kbench_report_runs("rcu_read_lock", "rcu_read_lock+unlock", 1, r,
			   RUNS, "cycles");
	kbench_report_runs("rcu_read_lock", "preempt_disable+enable", 1, p,
			   RUNS, "cycles");
	rm = kbench_median(r, RUNS);
	pm = kbench_median(p, RUNS);
	kbench_report("rcu_read_lock", "ratio rcu/preempt", 1,
		      rm * 100 / (pm ? pm : 1), "x");
	kbench_note("goal: at most %s", IS_ENABLED(CONFIG_PREEMPT_RT) ? "2x"
								      : "1.5x");
}

/* ---- synchronize_rcu() latency ---- */

static struct {
	int stop;
	int up;
} load;

/* Short readers, now and then a yield: every CPU busy, switching. */
static int load_fn(void *arg)
{
	static int value;
	int sum = 0;

	gp = &value;
	__atomic_fetch_add(&load.up, 1, __ATOMIC_RELEASE);
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
	int n = num_online_cpus();

	sync_latency("synchronize_rcu idle");
	load.stop = 0;
	load.up = 0;
	for (int cpu = 0; cpu < n; cpu++) {
		t[cpu] = kthread_create(load_fn, 0, "rcu_load");
		if (t[cpu]) {
			kthread_bind(t[cpu], cpu);
			wake_up_process(t[cpu]);
		}
	}
	while (READ_ONCE(load.up) < n)
		msleep(1);
	sync_latency("synchronize_rcu loaded");
	WRITE_ONCE(load.stop, 1);
	for (int cpu = 0; cpu < n; cpu++)
		if (t[cpu])
			kthread_join(t[cpu]);
	kbench_note("median and max of %d calls each; loaded: a task per CPU "
		    "running readers and yielding", SYNCS);
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

/* One run: FLOOD kfree_rcu()s as fast as kmalloc gives objects, then
 * rcu_barrier(). The objects in use are sampled every 64 calls. */
static void flood_once(uint64_t *queued, uint64_t *done, uint64_t *peak)
{
	int cls = flood_class();
	long base = kmalloc_objects_in_use(cls), most = 0;
	uint64_t t0 = ktime_get_ns(), t1;

	for (int i = 0; i < FLOOD; i++) {
		struct flood_obj *o = kmalloc(sizeof(*o));

		if (!o)
			break;
		kfree_rcu(o, rcu);
		if (i % 64 == 0 && kmalloc_objects_in_use(cls) - base > most)
			most = kmalloc_objects_in_use(cls) - base;
	}
	t1 = ktime_get_ns();
	rcu_barrier();
	*queued = FLOOD * 100ull * 1000000 / ((t1 - t0) / 1000 + 1);
	*done = FLOOD * 100ull * 1000000 / ((ktime_get_ns() - t0) / 1000 + 1);
	*peak = (uint64_t)most * 100;
}

KBENCH(rcu_flood)
{
	uint64_t queued[RUNS], done[RUNS], peak[RUNS], kib[RUNS];
	struct rcu_counters c0, c1;

	rcu_get_counters(&c0);
	for (int i = 0; i < RUNS; i++) {
		flood_once(&queued[i], &done[i], &peak[i]);
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
	kbench_report("rcu_flood", "callbacks on one CPU, most", 1,
		      (uint64_t)c1.cbs_hiwater * 100, "cbs");
	kbench_report("rcu_flood", "call_rcu() waits (throttled)", 1,
		      (uint64_t)(c1.throttled - c0.throttled) * 100, "calls");
	kbench_report("rcu_flood", "grace periods", 1,
		      (uint64_t)(c1.gps_completed - c0.gps_completed) * 100,
		      "gps");
	kbench_note("%d runs of %d kfree_rcu()s of %zu-byte objects; qhimark "
		    "%ld, qovld %ld", RUNS, FLOOD, sizeof(struct flood_obj),
		    rcu_qhimark, rcu_qovld);
}
