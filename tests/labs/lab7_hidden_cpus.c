/*
 * Lab 7's hidden check (docs/labs/lab7.md): a local_lock section excludes
 * only the users of its own CPU's copy. While the test task is inside the
 * checksum's section on one CPU, a task on another CPU runs the same
 * section from start to end. A conversion to one global lock instead of
 * the per-CPU local_lock passes the visible tests and fails here.
 */
#include "cpumask.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab7_users.h"
#include "sched.h"

static struct {
	struct task_struct *other;
	volatile int other_done;
	int polls, done_inside;
} two;

static void no_poll(void *arg)
{
}

static int other_fn(void *arg)
{
	unsigned long sum;

	lab7_csum_run(no_poll, 0, &sum);
	store_int(&two.other_done, 1);
	return 0;
}

/* Inside the section: start the other CPU's run, wait for its end. */
static void wait_for_other(void *arg)
{
	if (two.polls++ != 0 || !two.other)
		return;
	wake_up_process(two.other);
	two.done_inside = ktest_poll_until(load_int(&two.other_done),
					   KTEST_WAIT_MS, POLL_SPIN);
}

KTEST_CPUS(lab7_hidden, sections_on_two_cpus_independent, 2)
{
	unsigned long sum;

	two.other_done = two.polls = two.done_inside = 0;
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(last_cpu())), 0);
	two.other = ktest_spawn(other_fn, 0, "csum-other", 0, SCHED_NORMAL, 0,
				false);
	KEXPECT_EQ(lab7_csum_run(wait_for_other, 0, &sum), 0);
	KEXPECT_TRUE(ktest_poll_int(&two.other_done, 1, KTEST_WAIT_MS));
	ktest_join(two.other);
	set_cpus_allowed(current, cpumask_of(0));
	KEXPECT_TRUE(two.done_inside);
}
