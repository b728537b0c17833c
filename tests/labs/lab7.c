/*
 * Lab 7's tests (docs/labs/lab7.md): the four per-CPU users of
 * tests/labs/lab7_users.c give the right results with no validator report
 * (a test outside the lockdep suites fails on any), and the checksum's
 * long section lets a more urgent task on its CPU run in the middle of
 * it on PREEMPT_RT, as a local_lock section must, and not without
 * PREEMPT_RT, where local_lock() is preempt_disable().
 */
#include "cpumask.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab7_users.h"
#include "sched.h"

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)
#define LOW_PRIO 10
#define HIGH_PRIO 50
/* How long the section looks for the urgent task, a pace and not a
 * bound on a correct kernel: on PREEMPT_RT the wakeup preempts the
 * section inside wake_up_process() itself, so the first look sees the
 * task has run, however slow the host; only a section that cannot be
 * preempted (a starter's preempt_disable()) waits it out, and fails. */
#define SECTION_LOOK_MS 2000

KTEST(lab7, rx_stats_converted)
{
	KEXPECT_EQ(lab7_rx_run(), 0);
}

KTEST(lab7, objcache_converted)
{
	KEXPECT_EQ(lab7_objcache_run(), 0);
}

KTEST(lab7, irqstat_converted)
{
	KEXPECT_EQ(lab7_irqstat_run(), 0);
}

static struct {
	struct task_struct *high;
	volatile int high_ran;
	int polls, ran_inside;
} cs;

static int high_fn(void *arg)
{
	store_int(&cs.high_ran, 1);
	return 0;
}

/* Between the checksum's blocks: wake the urgent task (bound to this CPU)
 * once, then see whether it ran while the section is still open. */
static void csum_poll(void *arg)
{
	if (cs.polls++ != 0 || !cs.high)
		return;
	wake_up_process(cs.high);
	if (RT_WORLD)
		ktest_poll_until(load_int(&cs.high_ran), SECTION_LOOK_MS,
				 POLL_SPIN);
	cs.ran_inside = load_int(&cs.high_ran);
}

/* The test task is the section's owner (SCHED_FIFO 10); a SCHED_FIFO 50
 * task on the same CPU is woken from inside the section. */
KTEST(lab7, csum_section_preemptible_on_rt)
{
	int cpu = last_cpu();
	unsigned long sum = 0;

	cs.high_ran = cs.polls = cs.ran_inside = 0;
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, LOW_PRIO), 0);
	cs.high = ktest_spawn(high_fn, 0, "csum-urgent", cpu, SCHED_FIFO,
			      HIGH_PRIO, false);
	KEXPECT_EQ(lab7_csum_run(csum_poll, 0, &sum), 0);
	/* Past the section the urgent task runs in any world: waited for. */
	KEXPECT_TRUE(ktest_poll_int(&cs.high_ran, 1, KTEST_WAIT_MS));
	become_normal();
	ktest_join(cs.high);
	set_cpus_allowed(current, cpumask_of(0));
	ktest_log("checksum %lu; the urgent task ran %s the section", sum,
		  cs.ran_inside ? "inside" : "after");
	KEXPECT_EQ(cs.ran_inside, RT_WORLD);
}
