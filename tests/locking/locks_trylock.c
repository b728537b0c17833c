/*
 * trylock for each lock type, through the lock-kind table: a free lock is
 * taken with the context its type gives, one held by ourselves or by
 * another task is not (and changes nothing), and a spinning lock can be
 * tried from a hardirq on the CPU of its holder.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "ktest_util.h"
#include "lock_kind.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"

/* This file's lock of kind k: pool lock 0, set up afresh. */
static struct any_lock fresh_lock(enum lock_kind k)
{
	struct any_lock h = ANY_LOCK(k, lock_pool(k, 0));

	lock_kinds[k].init(h.lock, 0);
	return h;
}

/* Held by another task (on another CPU if it spins): each try fails and
 * changes nothing here; afterwards the lock is free and usable. */
static void check_trylock_held_by_other(struct any_lock *h,
					const struct lock_ctx *base)
{
	struct lock_holder hd = {.lock = *h};
	struct rt_mutex *rtm = any_lock_rtmutex(h);
	struct task_struct *t = ktest_spawn(lock_holder_fn, &hd, "holder", last_cpu(),
				     SCHED_NORMAL, 0, true);
	bool held = ktest_poll_int(&hd.held, 1, KTEST_WAIT_MS), got;

	KEXPECT_TRUE(held);
	for (int i = 0; held && i < 3; i++) {
		bool stolen = any_lock_trylock(h);
		struct lock_ctx now = lock_ctx_now();

		KEXPECT_FALSE(stolen);
		KEXPECT_EQ(now.preempt, base->preempt);
		KEXPECT_EQ(now.migrate, base->migrate);
		KEXPECT_TRUE(any_lock_is_locked(h));
		if (rtm)
			KEXPECT_EQ(rtm->owner, (uintptr_t)t);
		if (stolen)
			any_lock_release(h);
	}
	store_int(&hd.release, 1);
	KEXPECT_TRUE(ktest_poll_int(&hd.done, 1, KTEST_WAIT_MS));
	ktest_join(t);
	KEXPECT_FALSE(any_lock_is_locked(h));
	/* The failures left it usable: taken again at once. */
	got = any_lock_trylock(h);
	KEXPECT_TRUE(got);
	if (got)
		any_lock_release(h);
}

static void check_trylock(enum lock_kind k)
{
	struct lock_ctx base = lock_ctx_now(), none = {0}, in, again_ctx, after;
	struct any_lock h = fresh_lock(k);
	struct rt_mutex *rtm = any_lock_rtmutex(&h);
	bool got, again;

	/* Free: taken, with the context the lock type gives. */
	got = any_lock_trylock(&h);
	in = lock_ctx_now();
	KEXPECT_TRUE(got);
	if (!got)
		return;
	KEXPECT_TRUE(any_lock_is_locked(&h));
	KEXPECT_HELD_CTX(in, base, any_lock_held_ctx(&h));
	if (rtm)
		KEXPECT_EQ(rtm->owner, (uintptr_t)current);

	/* Held by ourselves: fails (no recursion, no deadlock) and changes
	 * nothing. */
	again = any_lock_trylock(&h);
	again_ctx = lock_ctx_now();
	KEXPECT_FALSE(again);
	KEXPECT_EQ(again_ctx.preempt, in.preempt);
	KEXPECT_EQ(again_ctx.migrate, in.migrate);
	if (again)
		any_lock_release(&h);
	any_lock_release(&h);
	after = lock_ctx_now();
	KEXPECT_FALSE(any_lock_is_locked(&h));
	KEXPECT_HELD_CTX(after, base, &none);
	if (rtm)
		KEXPECT_EQ(rtm->owner, 0);

	if (lock_kinds[k].sleeps || num_online_cpus() >= 2)
		check_trylock_held_by_other(&h, &base);

	/* And the blocking forms still work. */
	for (int v = 0; v < NR_LOCK_FORMS; v++) {
		h.form = v;
		any_lock_acquire(&h);
		KEXPECT_TRUE(any_lock_is_locked(&h));
		any_lock_release(&h);
	}
	after = lock_ctx_now();
	KEXPECT_FALSE(any_lock_is_locked(&h));
	KEXPECT_HELD_CTX(after, base, &none);
}

struct irq_try {
	struct any_lock *lock;
	bool got;
	bool in_irq;
};

static void try_in_hardirq(void *arg)
{
	struct irq_try *r = arg;

	r->in_irq = in_hardirq();
	r->got = any_lock_trylock(r->lock);
	if (r->got)
		any_lock_release(r->lock);
}

/* A spinning lock held by this task fails a trylock from an interrupt on
 * this CPU (another context, so this works on one CPU too), and a free one
 * succeeds there. A sleeping lock may not be taken in hardirq at all. */
static void check_trylock_from_hardirq(enum lock_kind k)
{
	struct any_lock h = fresh_lock(k);
	struct irq_try held = {.lock = &h}, free = {.lock = &h};

	if (lock_kinds[k].sleeps)
		return;
	any_lock_acquire(&h);
	ktest_in_hardirq(try_in_hardirq, &held);
	KEXPECT_TRUE(any_lock_is_locked(&h));
	any_lock_release(&h);
	ktest_in_hardirq(try_in_hardirq, &free);
	KEXPECT_TRUE(held.in_irq);
	KEXPECT_FALSE(held.got);
	KEXPECT_TRUE(free.in_irq);
	KEXPECT_TRUE(free.got);
	KEXPECT_FALSE(any_lock_is_locked(&h));
}

KTEST(locks, raw_spin_trylock_semantics)
{
	check_trylock(LOCK_RAW);
	check_trylock_from_hardirq(LOCK_RAW);
}

KTEST(locks, spin_trylock_semantics)
{
	check_trylock(LOCK_SPIN);
	check_trylock_from_hardirq(LOCK_SPIN);
}

KTEST(locks, rt_mutex_trylock_semantics)
{
	check_trylock(LOCK_RTMUTEX);
}

KTEST(locks, mutex_trylock_semantics)
{
	check_trylock(LOCK_MUTEX);
}
