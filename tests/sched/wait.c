/*
 * Sleeping and waking (kernel/time/timer.c, kernel/sched/wait.c,
 * completion.c): msleep and usleep last what they ask, wait queues and
 * completions wake their sleepers and not before, and a completion can
 * be reused.
 */
#include "completion.h"
#include "ktest_util.h"
#include "wait.h"

static struct {
	struct wait_queue_head wq;
	volatile int cond;
	volatile int woke;
	struct completion c;
	volatile int completed;
} sleeper;

static int wait_event_sleeper(void *arg)
{
	wait_event(sleeper.wq, load_int(&sleeper.cond));
	store_int(&sleeper.woke, 1);
	return 0;
}

static int completion_sleeper(void *arg)
{
	wait_for_completion(&sleeper.c);
	store_int(&sleeper.completed, 1);
	return 0;
}

/* Ticks this CPU takes beyond a sleep's own: the one that wakes it, the
 * wakeup running late behind other tasks here (time slices of 4 ticks).
 * Far below what a unit error in msleep() (a second for a millisecond)
 * would take. */
#define SLEEP_SLACK_TICKS 50

/* msleep and usleep last at least what was asked (in time, which a busy
 * host only makes longer) and not much more (in this CPU's ticks, which a
 * busy host only makes fewer); sleepers on a wait queue or a completion
 * are woken by wake_up()/complete() (and not before);
 * wait_for_completion_timeout times out when nobody completes, and
 * returns at once when the completion is already done. */
KTEST(sched, sleep_wait_and_completion)
{
	static const unsigned long ms[] = {1, 2, 5, 10, 20};
	static const unsigned long us[] = {1, 50, 500, 1500};
	struct task_struct *w, *c;
	unsigned long ticks;
	uint64_t t0, spent;
	bool timed_out_ok;

	for (unsigned i = 0; i < ARRAY_SIZE(ms); i++) {
		ticks = this_cpu_read(cpu_ticks); /* the test task is bound */
		t0 = ktime_get_ns();
		msleep(ms[i]);
		spent = ns_since(t0);
		ticks = this_cpu_read(cpu_ticks) - ticks;
		KEXPECT_GE(spent, ms[i] * NS_PER_MS);
		KEXPECT_LE(ticks, ms[i] * HZ / 1000 + SLEEP_SLACK_TICKS);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(us); i++) {
		t0 = ktime_get_ns();
		usleep(us[i]);
		KEXPECT_GE(ns_since(t0), us[i] * NS_PER_US);
	}

	init_waitqueue_head(&sleeper.wq);
	init_completion(&sleeper.c);
	sleeper.cond = sleeper.woke = sleeper.completed = 0;
	w = ktest_spawn_on(-1, wait_event_sleeper, 0, "wq-sleeper");
	c = ktest_spawn_on(-1, completion_sleeper, 0, "c-sleeper");
	msleep(20);
	KEXPECT_EQ(load_int(&sleeper.woke), 0);
	KEXPECT_EQ(load_int(&sleeper.completed), 0);
	wake_up(&sleeper.wq); /* condition still false: back to sleep */
	msleep(5);
	KEXPECT_EQ(load_int(&sleeper.woke), 0);
	store_int(&sleeper.cond, 1);
	wake_up(&sleeper.wq);
	complete(&sleeper.c);
	KEXPECT_TRUE(ktest_poll_int(&sleeper.woke, 1, KTEST_WAIT_MS));
	KEXPECT_TRUE(ktest_poll_int(&sleeper.completed, 1, KTEST_WAIT_MS));
	if (!load_int(&sleeper.woke) || !load_int(&sleeper.completed)) {
		/* Lost wakeups: free them so that they can be joined. */
		wake_up(&sleeper.wq);
		complete_all(&sleeper.c);
	}
	ktest_join(w);
	ktest_join(c);

	init_completion(&sleeper.c);
	t0 = ktime_get_ns();
	timed_out_ok = !wait_for_completion_timeout(&sleeper.c, 20 * NS_PER_MS);
	spent = ns_since(t0);
	KEXPECT_TRUE(timed_out_ok);
	KEXPECT_GE(spent, 20 * NS_PER_MS);
	KEXPECT_FALSE(completion_done(&sleeper.c));
	complete(&sleeper.c);
	KEXPECT_TRUE(completion_done(&sleeper.c));
	ticks = this_cpu_read(cpu_ticks);
	KEXPECT_TRUE(wait_for_completion_timeout(&sleeper.c, 1000 * NS_PER_MS));
	KEXPECT_LE(this_cpu_read(cpu_ticks) - ticks, SLEEP_SLACK_TICKS);
	KEXPECT_FALSE(completion_done(&sleeper.c)); /* consumed */
	KEXPECT_FALSE(wait_for_completion_timeout(&sleeper.c, 1 * NS_PER_MS));
}

/* reinit_completion() forgets what was completed, as Linux's does, so one
 * completion can signal a second round of events. */
KTEST(completion, reinit_forgets_complete_all)
{
	struct completion c;

	init_completion(&c);
	complete_all(&c);
	KEXPECT_TRUE(completion_done(&c));
	wait_for_completion(&c);         /* does not consume complete_all */
	KEXPECT_TRUE(completion_done(&c));

	reinit_completion(&c);
	KEXPECT_FALSE(completion_done(&c));
	/* Nobody completes it: the wait ends by its timeout, whatever the
	 * host's speed. */
	KEXPECT_FALSE(wait_for_completion_timeout(&c, 1000000));

	complete(&c);
	KEXPECT_TRUE(completion_done(&c));
	KEXPECT_TRUE(wait_for_completion_timeout(&c, 1000000));
	KEXPECT_FALSE(completion_done(&c)); /* the one event was consumed */
}
