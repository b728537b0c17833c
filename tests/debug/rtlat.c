/*
 * The in-kernel cyclictest (kernel/debug/rtlat.c) works: the measuring task
 * wakes once per period for the number of loops asked, both latency
 * series count every wake-up, their histograms hold every sample, the
 * measuring task's own BH section ran at each (the BH load), and the
 * background load ran (the kmalloc load on every CPU, freeing all it
 * allocated). No latency figure is asserted: those depend on the
 * host (make rtlat measures them, in a deterministic mode).
 */
#include "kmalloc.h"
#include "ktest_util.h"
#include "rtlat.h"
#include "smp.h"

#define LOOPS 5

static struct rtlat_result res;

static unsigned long hist_total(const struct rtlat_series *s)
{
	unsigned long n = s->overflows;

	for (int i = 0; i < RTLAT_HIST_US; i++)
		n += s->hist[i];
	return n;
}

static void check_series(const struct rtlat_series *s)
{
	KEXPECT_EQ(s->count, LOOPS);
	KEXPECT_EQ(hist_total(s), LOOPS);
	KEXPECT_LE(s->min, s->max);
	KEXPECT_LE(s->min * LOOPS, s->sum);
	KEXPECT_LE(s->sum, s->max * LOOPS);
}

static void run(enum rtlat_protect protect)
{
	struct rtlat_config cfg = {
		.cpu = (int)num_online_cpus() - 1, .period_ns = 1000000,
		.section_ns = 100000, .protect = protect, .loops = LOOPS,
		.prio = 99,
	};

	KASSERT_EQ(rtlat_run(&cfg, &res), 0);
	check_series(&res.thread);
	check_series(&res.irq);
	if (protect != RTLAT_IDLE)
		KEXPECT_GT(res.sections, 0);
	else
		KEXPECT_EQ(res.sections, 0);
	KEXPECT_EQ(res.own_bh, protect == RTLAT_BH ? LOOPS : 0);
	rtlat_print(&cfg, &res);
}

KTEST(rtlat, idle_counts_every_wakeup)
{
	run(RTLAT_IDLE);
}

KTEST(rtlat, preempt_disable_load_counts_every_wakeup)
{
	run(RTLAT_PREEMPT_DISABLE);
}

KTEST(rtlat, local_lock_load_counts_every_wakeup)
{
	run(RTLAT_LOCAL_LOCK);
}

KTEST(rtlat, migrate_disable_load_counts_every_wakeup)
{
	run(RTLAT_MIGRATE_DISABLE);
}

/* BH sections as the load, and one in the measuring task per wake-up. */
KTEST(rtlat, bh_load_counts_every_wakeup)
{
	run(RTLAT_BH);
}

/* The kmalloc loads run on their CPUs and free what they allocate: the
 * objects in use are back to their count. The first run counts only
 * the wake-ups (it may start more tasks than the tests before it, and
 * fill caches); after the second, a task struct whose last reference
 * dropped waits for a grace period, so the count is waited for. */
static bool kmalloc_back_to(const long *in_use)
{
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		if (kmalloc_objects_in_use(cls) != in_use[cls])
			return false;
	return true;
}

static void run_kmalloc(enum rtlat_protect protect, int load_cpus)
{
	long in_use[KMALLOC_NR_CLASSES];

	run(protect);
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		in_use[cls] = kmalloc_objects_in_use(cls);
	run(protect);
	KEXPECT_EQ(res.load_cpus, load_cpus);
	KEXPECT_TRUE(ktest_poll_until(kmalloc_back_to(in_use), KTEST_WAIT_MS,
				      POLL_SLEEP));
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		KEXPECT_EQ(kmalloc_objects_in_use(cls), in_use[cls]);
}

KTEST(rtlat, kmalloc_this_cpu_load_counts_every_wakeup)
{
	run_kmalloc(RTLAT_KMALLOC_LOCAL, 1);
}

KTEST(rtlat, kmalloc_all_cpus_load_counts_every_wakeup)
{
	run_kmalloc(RTLAT_KMALLOC_ALL, (int)num_online_cpus());
}

/* A CPU that is not online is refused, not waited for. */
KTEST(rtlat, offline_cpu_refused)
{
	struct rtlat_config cfg = {
		.cpu = (int)num_online_cpus(), .period_ns = 1000000,
		.loops = 1, .prio = 99, .protect = RTLAT_IDLE,
	};

	KEXPECT_EQ(rtlat_run(&cfg, &res), -1);
}
