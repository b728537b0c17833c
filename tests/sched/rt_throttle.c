/*
 * RT throttling (kernel/sched/rt_bandwidth.c): a FIFO task that spins on
 * a CPU for ever leaves that CPU's SCHED_NORMAL tasks the part of every
 * period its RT runtime does not cover. A NORMAL task bound there goes on
 * counting while the FIFO task spins, and the CPU's own tick counts show
 * the FIFO task throttled for about 5% of its ticks. The tests set the
 * sysctls' 5% on a shorter period (190 of every 200 ms, as writing
 * sched_rt_period_us would in Linux) so that a watch of several periods
 * stays short on a loaded host, and put the defaults back.
 * Everything checked is counted by the kernel: the NORMAL task's
 * iterations and the CPU's ticks, never the time on the clock.
 */
#include "sched_util.h"
#include "rt_bandwidth.h"

/* Throttling periods the FIFO task must go through while watched.
 * Periods are counted in ticks, and a vCPU the host does not run takes
 * none: under load a period can take several seconds, so the waits for
 * them give up in ticks too, never after a time. */
#define RTT_PERIODS 3

static struct {
	volatile int stop;
	volatile int fifo_running;
	volatile long normal_count;
} rtt;

/* The FIFO task: spins, never sleeping, until told (or its test ends). */
static int rtt_fifo(void *arg)
{
	(void)arg;
	store_int(&rtt.fifo_running, 1);
	ktest_helper_wait(load_int(&rtt.stop), POLL_SPIN);
	return 0;
}

/* The NORMAL task on the same CPU: counts its iterations. */
static int rtt_normal(void *arg)
{
	unsigned long test = ktest_number();

	(void)arg;
	while (!load_int(&rtt.stop) && !ktest_ended(test)) {
		inc_long(&rtt.normal_count);
		cpu_relax();
	}
	return 0;
}

/* The throttled share of cpu's RT demand between two snapshots, in per
 * mille of the ticks RT tasks ran or waited throttled. */
static long throttled_permille(const struct rt_bandwidth_stat *a,
			       const struct rt_bandwidth_stat *b)
{
	unsigned long ran = b->rt_ticks - a->rt_ticks;
	unsigned long waited = b->throttled_ticks - a->throttled_ticks;

	return ran + waited ? (long)(waited * 1000 / (ran + waited)) : -1;
}

/* Wait (sleeping) until cpu's RT tasks have been throttled n times since
 * from, and take *to then; false if cpu took n + 2 periods' worth of
 * ticks without that (however long a busy host made those take). */
static bool rtt_wait_throttled(int cpu, const struct rt_bandwidth_stat *from,
			       unsigned long n, struct rt_bandwidth_stat *to)
{
	unsigned long base = from->nr_throttled;
	unsigned long t0 = per_cpu(cpu_ticks, cpu);

	ktest_wait_until((sched_rt_stat(cpu, to),
			  to->nr_throttled - base >= n ||
				  per_cpu(cpu_ticks, cpu) - t0 >=
					  (n + 2) * RT_TEST_PERIOD_TICKS),
			 POLL_SLEEP);
	return to->nr_throttled - base >= n;
}

KTEST(sched, rt_throttle_leaves_room_for_normal)
{
	int cpu = last_cpu();
	struct rt_bandwidth_stat s0, s1;
	struct task_struct *fifo, *normal;
	long c0, c1, permille;
	bool periods;

	KASSERT_EQ(rt_throttle_test_bandwidth(), 0);
	rtt.stop = rtt.fifo_running = 0;
	rtt.normal_count = 0;
	normal = ktest_spawn_on(cpu, rtt_normal, 0, "rtt-normal");
	KEXPECT_TRUE(ktest_poll_long(&rtt.normal_count, 1, KTEST_WAIT_MS));
	sched_rt_stat(cpu, &s0);
	fifo = ktest_spawn(rtt_fifo, 0, "rtt-fifo", cpu, SCHED_FIFO, 50, true);
	KEXPECT_TRUE(ktest_poll_int(&rtt.fifo_running, 1, KTEST_WAIT_MS));
	/* Measured from the start of one throttling to the start of the
	 * RTT_PERIODS-th after it: whole periods, 950 ticks run and 50
	 * throttled each. Meanwhile the NORMAL task runs only while the
	 * FIFO task is throttled. */
	periods = rtt_wait_throttled(cpu, &s0, 1, &s0);
	c0 = load_long(&rtt.normal_count);
	periods &= rtt_wait_throttled(cpu, &s0, RTT_PERIODS, &s1);
	c1 = load_long(&rtt.normal_count);
	store_int(&rtt.stop, 1);
	ktest_join(fifo);
	ktest_join(normal);
	rt_throttle_default_bandwidth();
	permille = throttled_permille(&s0, &s1);
	ktest_log("CPU %d: FIFO ran %lu ticks, throttled %lu ticks (%ld per "
		  "mille), %lu throttlings; NORMAL task counted %ld meanwhile",
		  cpu, s1.rt_ticks - s0.rt_ticks,
		  s1.throttled_ticks - s0.throttled_ticks, permille,
		  s1.nr_throttled - s0.nr_throttled, c1 - c0);
	KEXPECT_TRUE(periods);
	KEXPECT_GT(c1 - c0, 0);
	/* 50 per mille nominal; the polls see each throttling a tick or two
	 * late (10 of 200 ticks a period are throttled). */
	KEXPECT_GE(permille, 30);
	KEXPECT_LE(permille, 80);
}

/* A setting the kernel cannot honour is refused whole, and changes
 * nothing: the test runner itself is RT, so a runtime of 0 (Linux's "RT
 * never runs") would stop it. */
KTEST(sched, rt_bandwidth_settings_checked)
{
	static const long bad[][2] = {
		{0, 1000000},       /* RT never runs */
		{999, 1000000},     /* under a tick */
		{1000001, 1000000}, /* over the period */
		{-2, 1000000},      /* only -1 means no limit */
		{500, 999},         /* period under a tick */
		{950000, 20000000}, /* period over 10 s */
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		KEXPECT_EQ(sched_rt_set_bandwidth(bad[i][0], bad[i][1]),
			   -EINVAL);
		KEXPECT_EQ(sysctl_sched_rt_runtime, 950000);
		KEXPECT_EQ(sysctl_sched_rt_period, 1000000);
	}
	KEXPECT_EQ(sched_rt_set_bandwidth(RUNTIME_INF, 1000000), 0);
	KEXPECT_EQ(sysctl_sched_rt_runtime, RUNTIME_INF);
	KEXPECT_EQ(rt_throttle_default_bandwidth(), 0);
	KEXPECT_EQ(sysctl_sched_rt_runtime, 950000);
}
