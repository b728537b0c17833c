/*
 * Contended sleeping locks against a raw spinlock: the figure adaptive
 * spinning (kernel/locking/rtmutex_spin.c) is for. One task per CPU, bound and
 * SCHED_FIFO so that each owns its CPU, all increment one shared counter
 * under the lock for RUN_MS; RUNS runs per lock type, reported as the
 * median with the smallest and largest run. Then the ratio raw/lock of
 * the medians: a waiter that always slept made it 50-400x; the goal is
 * <= 3x at 2 CPUs for spinlock_t (RT=1: an rt_mutex) and mutex.
 */
#include "kbench.h"
#include "mutex.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"
#include "vsprintf.h"

#define RUNS 5
#define RUN_MS 50

enum spin_kind { K_RAW, K_SPIN, K_MUTEX, K_RTMUTEX, NR_SPIN_KINDS };

static const char *const spin_names[NR_SPIN_KINDS] = {
	"raw_spinlock_t", "spinlock_t", "mutex", "rt_mutex",
};

static DEFINE_RAW_SPINLOCK(s_raw);
static DEFINE_SPINLOCK(s_spin);
static DEFINE_MUTEX(s_mutex);
static DEFINE_RT_MUTEX(s_rtmutex);
static long s_count;

static void spin_op(enum spin_kind k)
{
	switch (k) {
	case K_RAW:
		raw_spin_lock(&s_raw);
		s_count++;
		raw_spin_unlock(&s_raw);
		break;
	case K_SPIN:
		spin_lock(&s_spin);
		s_count++;
		spin_unlock(&s_spin);
		break;
	case K_MUTEX:
		mutex_lock(&s_mutex);
		s_count++;
		mutex_unlock(&s_mutex);
		break;
	default:
		rt_mutex_lock(&s_rtmutex);
		s_count++;
		rt_mutex_unlock(&s_rtmutex);
		break;
	}
}

static struct {
	enum spin_kind kind;
	volatile int ready;
	volatile bool go;
	uint64_t deadline;
	long ops[NR_CPUS];
} sr;

static int spin_hammer(void *arg)
{
	long ops = 0;

	__atomic_fetch_add(&sr.ready, 1, __ATOMIC_SEQ_CST);
	while (!sr.go)
		cpu_relax();
	while (ktime_get_ns() < sr.deadline) {
		spin_op(sr.kind);
		ops++;
	}
	sr.ops[(long)arg] = ops;
	return 0;
}

/* One run: kops/s x100 of all ncpus hammers together. */
static uint64_t spin_run(enum spin_kind kind, int ncpus)
{
	struct task *t[NR_CPUS];
	long total = 0;

	sr.kind = kind;
	sr.ready = 0;
	sr.go = false;
	for (int i = 0; i < ncpus; i++) {
		t[i] = kthread_create(spin_hammer, (void *)(long)i, "spin_hammer");
		kthread_bind(t[i], i);
		sched_setscheduler(t[i], SCHED_FIFO, 10);
		wake_up_process(t[i]);
	}
	while (sr.ready < ncpus)
		msleep(1);
	sr.deadline = ktime_get_ns() + RUN_MS * 1000000ul;
	__atomic_store_n(&sr.go, true, __ATOMIC_SEQ_CST);
	for (int i = 0; i < ncpus; i++) {
		kthread_join(t[i]);
		total += sr.ops[i];
	}
	return (uint64_t)total * 100 / RUN_MS;
}

KBENCH(locks_spin)
{
	int ncpus = num_online_cpus() < 2 ? num_online_cpus() : 2;
	uint64_t median[NR_SPIN_KINDS];

	/* Above the hammers, which wait at the start line on our CPU too. */
	sched_setscheduler(current, SCHED_FIFO, 20);
	kbench_note("%d runs of %d ms each, one bound SCHED_FIFO task per CPU",
		    RUNS, RUN_MS);
	for (int k = 0; k < NR_SPIN_KINDS; k++) {
		uint64_t runs[RUNS];

		for (int r = 0; r < RUNS; r++)
			runs[r] = spin_run(k, ncpus);
		kbench_report_runs("locks_spin", spin_names[k], ncpus, runs,
				   RUNS, "kops/s");
		median[k] = runs[RUNS / 2];
	}
	for (int k = K_SPIN; k < NR_SPIN_KINDS; k++) {
		char variant[32];

		snprintf(variant, sizeof(variant), "raw/%s", spin_names[k]);
		kbench_report("locks_spin", variant, ncpus,
			      median[K_RAW] * 100 / (median[k] ? median[k] : 1),
			      "x");
	}
	sched_setscheduler(current, SCHED_NORMAL, 0);
}
