/* Completions (see completion.h): a counter of events on a wait queue. */
#include "sched/completion.h"

void init_completion(struct completion *c)
{
	c->done = 0;
	init_waitqueue_head(&c->wait);
}

void reinit_completion(struct completion *c)
{
	c->done = 0;
}

static void complete_n(struct completion *c, unsigned n)
{
	unsigned long flags;

	/* "Done" is news to the waiter: what the validator holds back for
	 * this task is counted before the waiter can see it. */
	lockdep_percpu_flush();
	lockdep_hb_release(c); /* before a waiter can see the event */
	raw_spin_lock_irqsave(&c->wait.lock, flags);
	if (c->done != COMPLETION_ALL)
		c->done = n == COMPLETION_ALL ? n : c->done + n;
	raw_spin_unlock_irqrestore(&c->wait.lock, flags);
	wake_up(&c->wait);
}

void complete(struct completion *c)
{
	complete_n(c, 1);
}

void complete_all(struct completion *c)
{
	complete_n(c, COMPLETION_ALL);
}

/* Consume one event if there is one. */
static bool try_consume(struct completion *c)
{
	unsigned long flags;
	bool got;

	raw_spin_lock_irqsave(&c->wait.lock, flags);
	got = c->done > 0;
	if (got && c->done != COMPLETION_ALL)
		c->done--;
	raw_spin_unlock_irqrestore(&c->wait.lock, flags);
	return got;
}

/* The completer's work happens before the waiter's, slept or not. */
void wait_for_completion(struct completion *c)
{
	might_sleep();
	wait_event(c->wait, try_consume(c));
	lockdep_hb_acquire(c);
}

bool wait_for_completion_timeout(struct completion *c, uint64_t timeout_ns)
{
	bool done;

	might_sleep();
	done = wait_event_timeout(c->wait, try_consume(c), timeout_ns);
	if (done)
		lockdep_hb_acquire(c);
	return done;
}

bool completion_done(struct completion *c)
{
	return smp_load_acquire(&c->done) > 0;
}
