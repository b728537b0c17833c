/* Completions (see completion.h): a counter of events on a wait queue. */
#include "completion.h"

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
	local_irq_save(flags);

	arch_spin_lock(&c->wait.lock);
	if (c->done != COMPLETION_ALL)
		c->done = n == COMPLETION_ALL ? n : c->done + n;
	arch_spin_unlock(&c->wait.lock);
	local_irq_restore(flags);
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

	local_irq_save(flags);
	arch_spin_lock(&c->wait.lock);
	got = c->done > 0;
	if (got && c->done != COMPLETION_ALL)
		c->done--;
	arch_spin_unlock(&c->wait.lock);
	local_irq_restore(flags);
	return got;
}

void wait_for_completion(struct completion *c)
{
	might_sleep();
	wait_event(c->wait, try_consume(c));
}

bool wait_for_completion_timeout(struct completion *c, uint64_t timeout_ns)
{
	might_sleep();
	return wait_event_timeout(c->wait, try_consume(c), timeout_ns);
}

bool completion_done(struct completion *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) > 0;
}
