/*
 * User programs and the RT priorities (kernel/user/rlimit.c,
 * kernel/sched/rt_bandwidth.c): under the default RLIMIT_RTPRIO a program
 * gets -EPERM for any RT policy; and one that the kernel lets become
 * SCHED_FIFO 99 and that spins for ever on every CPU at once still leaves
 * each CPU to its NORMAL tasks about 5% of the time. This test's own task
 * is such a NORMAL task, on CPU 0 (where the test runner, FIFO 99 too,
 * waits): that it finishes at all is part of the check.
 */
#include "ktest_util.h"
#include "process.h"
#include "rlimit.h"
#include "sched/sched_util.h" /* the RT bandwidth for the test */
#include "shm.h"
#include "string.h"
#include "timer.h"
#include "user_util.h"
#include "vsprintf.h"

/* Whether the spinners' processes end when told is not in doubt, but
 * whether this task runs to tell them is what the test checks: on a
 * kernel without throttling only a timer, run from the tick whatever
 * the CPU runs, can stop them. It fires just before the runner's bound
 * on the test (300 s), which only a broken kernel comes near. */
#define BACKSTOP_NS (285000 * NS_PER_MS)
/* Throttlings each CPU must show while watched. Throttling counts periods
 * in ticks, and a vCPU the host does not run takes none: with 8 vCPUs on
 * 2 host cores busy with other QEMUs, a CPU was seen taking 33 ticks a
 * second. So the test runs on 200-tick periods
 * (rt_throttle_test_bandwidth()), and the watch gives up in ticks too:
 * once every CPU has taken two periods more than it needs. */
#define SPIN_PERIODS 3
#define WATCH_TICKS ((SPIN_PERIODS + 2) * RT_TEST_PERIOD_TICKS)

KTEST(user, rt_policy_needs_rlimit)
{
	KEXPECT_EQ(RUN_USER(0, "usertest", "rtlimit"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "RT priorities refused"));
}

static struct {
	struct rt_spin_page *pg;
	struct timer_list backstop;
	volatile int stop;               /* the NORMAL counters' */
	volatile long count[NR_CPUS];
	/* Per CPU, here and not on the test's stack (NR_CPUS of each):
	 * the spinner's process, the NORMAL counter, its count at the
	 * watch's start and end. */
	struct process *p[NR_CPUS];
	struct task_struct *counter[NR_CPUS];
	long c0[NR_CPUS], c1[NR_CPUS];
} rs;

static void rs_backstop(struct timer_list *t)
{
	(void)t;
	store_int(&rs.pg->stop, 1);
}

/* A NORMAL task bound to a CPU with a spinner: counts its iterations. */
static int rs_counter(void *arg)
{
	volatile long *count = arg;
	unsigned long test = ktest_number();

	while (!load_int(&rs.stop) && !ktest_ended(test)) {
		__atomic_store_n(count, *count + 1, __ATOMIC_RELEASE);
		cpu_relax();
	}
	return 0;
}

static bool all_cpus(bool (*fn)(int cpu))
{
	int cpu;

	for_each_online_cpu(cpu)
		if (!fn(cpu))
			return false;
	return true;
}

static bool any_spinner_exited(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (!rs.p[cpu] || process_exited(rs.p[cpu]))
			return true;
	return false;
}

static bool asked(int cpu)
{
	return load_int(&rs.pg->denied[cpu]) != 1;
}

static bool ready(int cpu)
{
	return load_int(&rs.pg->ready[cpu]);
}

/* Until every CPU's spinner has done fn, or one has ended (a kernel that
 * killed it: it never will), or KTEST_WAIT_MS; whether all have. */
static bool spinners_all(bool (*fn)(int cpu))
{
	(void)ktest_poll_until(all_cpus(fn) || any_spinner_exited(), KTEST_WAIT_MS,
			 POLL_SLEEP);
	return all_cpus(fn);
}

static struct rt_bandwidth_stat s0[NR_CPUS], s1[NR_CPUS];
/* Every CPU's ticks at the watch's start: it gives up once each has
 * taken WATCH_TICKS. */
static struct tick_watch watch;

/* Every CPU's counts taken again: each throttled SPIN_PERIODS times? */
static bool all_throttled_enough(void)
{
	bool all = true;
	int cpu;

	for_each_online_cpu(cpu) {
		sched_rt_stat(cpu, &s1[cpu]);
		all &= s1[cpu].nr_throttled - s0[cpu].nr_throttled >=
		       SPIN_PERIODS;
	}
	return all;
}

KTEST(user, fifo99_spinner_on_every_cpu_is_throttled)
{
	struct rlimit rt99 = {99, 99};
	struct process_output *out = process_output_alloc();
	struct process **p = rs.p;
	struct task_struct **counter = rs.counter;
	long *c0 = rs.c0, *c1 = rs.c1;
	char slot[8];
	int cpu;
	bool ok;

	/* One slot of the shared page per CPU. */
	KASSERT_LE(nr_cpu_ids, RT_SPIN_SLOTS);
	rs.pg = shm_page(RT_SPIN_KEY);
	KASSERT_TRUE(rs.pg && out);
	KASSERT_EQ(rt_throttle_test_bandwidth(), 0);
	memset(rs.pg, 0, sizeof(*rs.pg));
	rs.stop = 0;
	memset(rs.p, 0, sizeof(rs.p));
	memset(rs.counter, 0, sizeof(rs.counter));
	for_each_online_cpu(cpu) {
		char *argv[] = {"rtspin", slot, slot};

		rs.count[cpu] = 0;
		rs.pg->denied[cpu] = 1; /* not asked yet */
		counter[cpu] = ktest_spawn_on(cpu, rs_counter,
					      (void *)&rs.count[cpu], "rs-count");
		snprintf(slot, sizeof(slot), "%d", cpu);
		KEXPECT_EQ(process_spawn("rtspin", 3, argv, out, &p[cpu]), 0);
	}
	timer_setup(&rs.backstop, rs_backstop);
	add_timer(&rs.backstop, ktime_get_ns() + BACKSTOP_NS);
	/* Each asked for FIFO 99 under the default limit; now grant it. */
	KEXPECT_TRUE(spinners_all(asked));
	for_each_online_cpu(cpu)
		if (p[cpu])
			KEXPECT_EQ(process_setrlimit(p[cpu], RLIMIT_RTPRIO,
						     &rt99), 0);
	store_int(&rs.pg->go, 1);
	ok = spinners_all(ready);
	KEXPECT_TRUE(ok);
	/* From here every CPU runs a FIFO 99 spinner: this task and the
	 * counters run only while their CPU's spinner is throttled. */
	for_each_online_cpu(cpu) {
		sched_rt_stat(cpu, &s0[cpu]);
		s1[cpu] = s0[cpu];
		c0[cpu] = load_long(&rs.count[cpu]);
	}
	tick_watch_start(&watch);
	if (ok)
		ktest_wait_until(all_throttled_enough() ||
					 tick_watch_passed(&watch, WATCH_TICKS),
				 POLL_SLEEP);
	ok = all_throttled_enough();
	for_each_online_cpu(cpu)
		c1[cpu] = load_long(&rs.count[cpu]);
	store_int(&rs.pg->stop, 1);
	del_timer(&rs.backstop);
	rt_throttle_default_bandwidth();
	KEXPECT_TRUE(ok);
	for_each_online_cpu(cpu) {
		unsigned long ran = s1[cpu].rt_ticks - s0[cpu].rt_ticks;
		unsigned long waited = s1[cpu].throttled_ticks -
				       s0[cpu].throttled_ticks;
		long permille = ran + waited ? (long)(waited * 1000 / (ran + waited))
					     : -1;
		long counted = c1[cpu] - c0[cpu];

		ktest_log("CPU %d: spinner ran %lu ticks, throttled %lu (%ld "
			  "per mille, %lu times); NORMAL task counted %ld",
			  cpu, ran, waited, permille,
			  s1[cpu].nr_throttled - s0[cpu].nr_throttled, counted);
		KEXPECT_EQ(rs.pg->denied[cpu], -EPERM);
		KEXPECT_GT(counted, 0);
		/* 50 nominal; a watch that starts and ends inside periods
		 * moves it, the bounds are generous. */
		KEXPECT_GE(permille, 15);
		KEXPECT_LE(permille, 100);
	}
	store_int(&rs.stop, 1);
	for_each_online_cpu(cpu) {
		if (p[cpu])
			KEXPECT_EQ(process_wait(p[cpu]), 0);
		ktest_join(counter[cpu]);
	}
	ktest_log("%s", out->buf);
	process_output_put(out);
}
