/*
 * Readers preempted inside their section, and boosting (docs/rcu.md,
 * section 5). A reader (SCHED_FIFO 1) on its own CPU wakes a spinner of
 * higher priority (SCHED_FIFO 10) there. On RT=1 the reader is preempted
 * at once, queued as blocked, and holds every grace period up for as long
 * as the spinner keeps it off the CPU: without boosting for ever, with
 * boosting only until the grace period has waited rcu_boost_delay_ms. On
 * RT=0 the reader has preemption off: the spinner runs only once it has
 * left, and nothing blocks. The waits count the grace-period kthread's
 * scans (each at least its period after the last); the time bounds only
 * end a broken test.
 */
#include "ktest_util.h"
#include "rcupdate.h"
#include "rcutree.h"

#define SPINNER_PRIO 10

static struct {
	struct task_struct *spinner;
	int in_section;
	int stop;            /* the spinner stops */
	int unlocking;       /* the reader reached the end of its section */
	int left_while_spun; /* ... while the spinner still spun */
} pr;

static struct rcu_counters counters(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c;
}

static int spinner_fn(void *arg)
{
	while (!READ_ONCE(pr.stop))
		cpu_relax();
	return 0;
}

static int reader_fn(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(pr.in_section, 1);
	wake_up_process(pr.spinner); /* RT=1: preempted right here */
	WRITE_ONCE(pr.left_while_spun, !READ_ONCE(pr.stop));
	WRITE_ONCE(pr.unlocking, 1);
	/* Once out of a boost, preempted again until the spinner stops. */
	rcu_read_unlock();
	return 0;
}

/* The reader and the spinner on the last CPU, the reader running. */
static struct task_struct *start_pair(void)
{
	int cpu = last_cpu();

	pr = (typeof(pr)){0};
	pr.spinner = ktest_spawn(spinner_fn, 0, "rcu_spinner", cpu, SCHED_FIFO,
				 SPINNER_PRIO, false);
	return ktest_spawn(reader_fn, 0, "rcu_reader", cpu, SCHED_FIFO, 1,
			   true);
}

static void stop_pair(struct task_struct *reader)
{
	WRITE_ONCE(pr.stop, 1);
	ktest_join(pr.spinner);
	ktest_join(reader);
}

/* n more scans of the grace-period kthread than at c. */
static bool scans(const struct rcu_counters *c, unsigned long n)
{
	return ktest_poll_until(counters().fqs >= c->fqs + n, KTEST_WAIT_MS,
				POLL_SLEEP);
}

KTEST_CPUS(rcu_preempt, preempted_reader_queued_as_blocked, 2)
{
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	struct rcu_counters c0 = counters();
	struct task_struct *r;
	unsigned long s;

	rcu_boost_enabled = false;
	r = start_pair();
	KASSERT_TRUE(r && pr.spinner);
	KEXPECT_TRUE(ktest_poll_until(READ_ONCE(pr.in_section),
				      KTEST_WAIT_MS, POLL_SLEEP));
	if (rt) {
		KEXPECT_TRUE(ktest_poll_until(rcu_blocked_readers() == 1,
					      KTEST_WAIT_MS, POLL_SLEEP));
		s = start_poll_synchronize_rcu();
		KEXPECT_TRUE(scans(&c0, 10));
		KEXPECT_FALSE(poll_state_synchronize_rcu(s));
		KEXPECT_FALSE(READ_ONCE(pr.unlocking));
	} else {
		/* Through its section before the spinner could run. */
		KEXPECT_TRUE(ktest_poll_until(READ_ONCE(pr.unlocking),
					      KTEST_WAIT_MS, POLL_SLEEP));
		KEXPECT_TRUE(pr.left_while_spun);
		s = start_poll_synchronize_rcu();
	}
	stop_pair(r);
	KEXPECT_TRUE(ktest_poll_until(poll_state_synchronize_rcu(s),
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(rcu_blocked_readers(), 0);
	KEXPECT_EQ(counters().blocked - c0.blocked, rt ? 1 : 0);
	rcu_boost_enabled = true;
}

/*
 * The stall and its end. Boosting off, the grace period waits through
 * three boost delays' worth of scans with the reader off the CPU; turned
 * on, the next scan boosts the reader above the spinner: it leaves its
 * section while the spinner still spins, and the grace period ends.
 */
KTEST_CPUS(rcu_preempt, boost_ends_the_stall, 2)
{
	bool rt = IS_ENABLED(CONFIG_PREEMPT_RT);
	struct rcu_counters c0 = counters(), c1;
	struct task_struct *r;
	unsigned long s;

	rcu_boost_enabled = false;
	r = start_pair();
	KASSERT_TRUE(r && pr.spinner);
	KEXPECT_TRUE(ktest_poll_until(READ_ONCE(pr.in_section),
				      KTEST_WAIT_MS, POLL_SLEEP));
	/* RT=1: preempted and blocked. RT=0: never preempted. */
	KEXPECT_TRUE(ktest_poll_until(rt ? rcu_blocked_readers() == 1
					 : READ_ONCE(pr.unlocking) == 1,
				      KTEST_WAIT_MS, POLL_SLEEP));
	s = start_poll_synchronize_rcu();
	c1 = counters();
	if (rt) {
		/* Stalled, unboosted, through every scan it makes. */
		KEXPECT_TRUE(scans(&c1, 3 * rcu_boost_delay_ms + 1));
		KEXPECT_FALSE(poll_state_synchronize_rcu(s));
		KEXPECT_FALSE(READ_ONCE(pr.unlocking));
	} else {
		/* Nothing blocks it: the kthread ends it and stops scanning. */
		KEXPECT_TRUE(ktest_poll_until(poll_state_synchronize_rcu(s),
					      KTEST_WAIT_MS, POLL_SLEEP));
	}
	KEXPECT_EQ(counters().boosts, c0.boosts);
	rcu_boost_enabled = true;
	KEXPECT_TRUE(ktest_poll_until(poll_state_synchronize_rcu(s),
				      KTEST_WAIT_MS, POLL_SLEEP));
	/* Read after the grace period, which the write came before. */
	KEXPECT_TRUE(READ_ONCE(pr.left_while_spun));
	KEXPECT_EQ(counters().boosts - c0.boosts, rt ? 1 : 0);
	stop_pair(r);
}
