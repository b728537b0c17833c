/*
 * Planted bugs that need a task kept off its CPU for a long time
 * (explore_bugs.h; docs/debugging.md): a writer retires an object a
 * reader may still hold and, instead of waiting for its readers
 * (synchronize_rcu(), a reference count), waits for something else and
 * then poisons it: a sleep ("every reader is done by then"), or another
 * task's acknowledgement. A reader that loaded the pointer just before
 * the retirement must stay off its CPU through the writer's whole wait
 * to use the poisoned object. A yield gives it the CPU back as soon as
 * the writer sleeps, and a delay lasts at most a millisecond; PCT holds
 * it while any higher task can run, so that is what finds these.
 *
 * The reader's window has several scheduling points (lookups counted
 * under a lock), as a real one would take locks between the load and
 * the use. Objects are never reused within a test, so a poisoned one
 * stays poisoned.
 */
#ifdef CONFIG_EXPLORE_BUGS
#include "explore_bugs.h"
#include "completion.h"
#include "spinlock.h"

#define RETIRE_OBJS (BUG_ITERS + 1)
#define READER_LOCKS 4          /* lock round trips between load and use */

struct retire_obj {
	int valid;
};

static struct {
	struct retire_obj objs[RETIRE_OBJS];
	struct retire_obj *cur;
	spinlock_t stats_lock;
	int lookups;
	int stale;                  /* uses of a poisoned object */
	int writer_done;
	struct completion req, ack; /* ack_as_grace_period's */
} rt = {.stats_lock = __SPIN_LOCK_UNLOCKED(rt.stats_lock)};

static void retire_reset(void)
{
	for (int i = 0; i < RETIRE_OBJS; i++)
		rt.objs[i].valid = 0;
	rt.objs[0].valid = 1;
	rt.cur = &rt.objs[0];
	rt.lookups = rt.stale = rt.writer_done = 0;
	init_completion(&rt.req);
	init_completion(&rt.ack);
}

static void count_lookup(void)
{
	spin_lock(&rt.stats_lock);
	rt.lookups++;
	spin_unlock(&rt.stats_lock);
}

/* Load the current object, take a few locks, use it; until the writer
 * has finished, sleeping a little between lookups. */
static int retire_reader(void *arg)
{
	for (int i = 0; i < BUG_ITERS && !READ_ONCE(rt.writer_done); i++) {
		struct retire_obj *o = READ_ONCE(rt.cur);

		for (int j = 0; j < READER_LOCKS; j++)
			count_lookup();
		if (!READ_ONCE(o->valid))
			rt.stale++;
		msleep(1);
	}
	return 0;
}

/* Publish the next object, wait (wait()), poison the one retired. */
static void retire_writer(void (*wait)(void))
{
	for (int i = 0; i < BUG_ITERS; i++) {
		struct retire_obj *old = READ_ONCE(rt.cur), *new = &rt.objs[i + 1];

		WRITE_ONCE(new->valid, 1);
		WRITE_ONCE(rt.cur, new);
		count_lookup();
		wait();
		WRITE_ONCE(old->valid, 0);
	}
	WRITE_ONCE(rt.writer_done, 1);
}

static void retire_run(int (*writer)(void *), int (*helper)(void *))
{
	struct task_struct *t[3];

	retire_reset();
	t[0] = ktest_spawn(retire_reader, 0, "reader", -1, SCHED_NORMAL, 0, true);
	t[1] = ktest_spawn(writer, 0, "writer", -1, SCHED_NORMAL, 0, true);
	t[2] = helper ? ktest_spawn(helper, 0, "acker", -1, SCHED_NORMAL, 0,
				    true) : 0;
	ktest_join_all(t, helper ? 3 : 2);
	ktest_log("%d lookups, %d of a poisoned object", rt.lookups, rt.stale);
	KEXPECT_EQ(rt.stale, 0);
}

static void sleep_a_millisecond(void)
{
	msleep(1); /* BUG: a sleep is no grace period */
}

static int sleeping_writer(void *arg)
{
	retire_writer(sleep_a_millisecond);
	return 0;
}

/* The writer sleeps a millisecond and poisons: a reader held off its
 * CPU across that sleep uses the poisoned object. */
KTEST(explore_bugs, sleep_as_grace_period)
{
	retire_run(sleeping_writer, 0);
}

static void ask_and_wait_for_ack(void)
{
	complete(&rt.req);
	wait_for_completion(&rt.ack); /* BUG: an ack is no grace period */
}

static int acking_writer(void *arg)
{
	retire_writer(ask_and_wait_for_ack);
	return 0;
}

/* Another task acknowledges each retirement after some work of its own
 * (a lock round trip): it knows nothing of the readers. */
static int acker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		wait_for_completion(&rt.req);
		count_lookup();
		complete(&rt.ack);
	}
	return 0;
}

/* The writer waits for a third task's acknowledgement and poisons: a
 * reader held off its CPU across the handshake uses the poisoned
 * object. */
KTEST(explore_bugs, ack_as_grace_period)
{
	retire_run(acking_writer, acker);
}
#endif /* CONFIG_EXPLORE_BUGS */
