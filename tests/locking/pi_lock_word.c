/*
 * The rt_mutex owner word (kernel/locking/rtmutex.c): the lock-free fast
 * path leaves exactly the owner (or 0) in it, a waiter sets the waiters
 * bit; a free lock with waiters can be stolen only by a task above its
 * top waiter; and a woken top waiter that loses its place before it runs
 * hands the lock over to the new top. pi_actor.h sets the stage.
 */
#include "pi_actor.h"
#include "preempt.h"

/* The uncontended lock and unlock (and trylock) leave the owner word
 * exactly current and then 0, with no waiters bit; a waiter sets the bit
 * while it waits, and after it is gone the fast path is clean again. */
KTEST(pi, fast_path_owner_word)
{
	struct actor *W = actor(0, "W", 50, 0, &lock_a), *all[] = {W};
	uintptr_t me = (uintptr_t)current, word[4], waited;
	uintptr_t after_wait = 1, relocked = 1;

	rt_mutex_init(&lock_a);
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	word[0] = lock_a.owner;
	rt_mutex_unlock(&lock_a);
	word[1] = lock_a.owner;
	KEXPECT_TRUE(rt_mutex_trylock(&lock_a));
	word[2] = lock_a.owner;
	rt_mutex_unlock(&lock_a);
	word[3] = lock_a.owner;
	KEXPECT_EQ(word[0], me);
	KEXPECT_EQ(word[1], 0);
	KEXPECT_EQ(word[2], me);
	KEXPECT_EQ(word[3], 0);
	KEXPECT_EQ(rt_mutex_owner(&lock_a), 0);

	orchestrate_begin();
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_enter(W);
	waited = lock_a.owner;
	rt_mutex_unlock(&lock_a);
	if (actor_reached(W, ST_DONE)) {
		after_wait = lock_a.owner;
		KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
		relocked = lock_a.owner;
		rt_mutex_unlock(&lock_a);
	}
	finish(all, 1);
	KEXPECT_EQ(waited, me | RT_MUTEX_HAS_WAITERS);
	KEXPECT_EQ(after_wait, 0);
	KEXPECT_EQ(relocked, me);
	KEXPECT_EQ(lock_a.owner, 0);
	expect_log(1, (int[]){50}, (int[]){50});
}

/*
 * A lock just released to a woken waiter that has not run yet is free but
 * still has waiters. A task of higher priority than that waiter takes it
 * (steals it) with rt_mutex_trylock(); one of lower priority does not, and
 * the waiter gets it.
 */
KTEST(pi, trylock_steals_only_above_top_waiter)
{
	struct actor *W = actor(0, "W", 50, 0, &lock_a), *all[] = {W};
	uintptr_t me = (uintptr_t)current, free_word, stolen_word;
	uintptr_t free_word2 = 7;
	bool stole, stole2 = true, still_blocked;

	rt_mutex_init(&lock_a);
	orchestrate_begin(); /* we are at 90, W at 50 */
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_enter(W);
	rt_mutex_unlock(&lock_a); /* wakes W, which cannot run before us */
	free_word = lock_a.owner;
	stole = rt_mutex_trylock(&lock_a);
	stolen_word = lock_a.owner;
	msleep(5); /* W runs, finds it taken, sleeps again */
	still_blocked = task_blocked(W->task) && W->state == ST_WAITING;

	if (stole) {
		/* Now below W: hand it over, then try to take it back in the
		 * window before W runs. */
		KEXPECT_EQ(sched_setscheduler(current, SCHED_NORMAL, 0), 0);
		preempt_disable();
		rt_mutex_unlock(&lock_a);
		free_word2 = lock_a.owner;
		stole2 = rt_mutex_trylock(&lock_a);
		preempt_enable(); /* W runs here */
		if (stole2)
			rt_mutex_unlock(&lock_a);
	}
	KEXPECT_TRUE(actor_reached(W, ST_DONE));
	finish(all, 1);
	ktest_log("free with a waiter: word %#lx; at 90 trylock %s (word "
		  "%#lx); at NORMAL trylock %s (word %#lx)",
		  (unsigned long)free_word, stole ? "stole it" : "failed",
		  (unsigned long)stolen_word, stole2 ? "stole it" : "failed",
		  (unsigned long)free_word2);
	KEXPECT_EQ(free_word, RT_MUTEX_HAS_WAITERS);
	KEXPECT_TRUE(stole);
	KEXPECT_EQ(stolen_word, me | RT_MUTEX_HAS_WAITERS);
	KEXPECT_TRUE(still_blocked);
	KEXPECT_EQ(free_word2, RT_MUTEX_HAS_WAITERS);
	KEXPECT_FALSE(stole2);
	KEXPECT_EQ(W->ret, 0);
	KEXPECT_EQ(lock_a.owner, 0);
	expect_log(1, (int[]){50}, (int[]){50});
}

/*
 * The top waiter W1 (50) has been woken by the unlock but has not run yet
 * when its priority drops to 30, below the other waiter W2 (40): W2 is
 * now the one entitled to the free lock and must be woken too (as Linux's
 * chain walk does for an unowned lock), else W1 runs, finds it is not the
 * top waiter, sleeps again, and nobody takes the lock. W2 then W1 must
 * get it. If they stall, the test takes the lock itself and gives it back
 * (which wakes W2), so that it ends either way.
 */
KTEST(pi, lowered_woken_waiter_hands_over_to_new_top)
{
	struct actor *W1 = actor(0, "W1", 50, 0, &lock_a);
	struct actor *W2 = actor(1, "W2", 40, 0, &lock_a), *all[] = {W1, W2};
	bool done, rescued = false;

	rt_mutex_init(&lock_a);
	orchestrate_begin();
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_enter(W1);
	actor_enter(W2);
	rt_mutex_unlock(&lock_a); /* wakes W1, which cannot run before us */
	if (W1->task)
		sched_setscheduler(W1->task, SCHED_FIFO, 30);
	done = POLL_UNTIL(load_int(&W1->state) == ST_DONE &&
			  load_int(&W2->state) == ST_DONE);
	if (!done) {
		ktest_log("stalled: lock word %#lx, W1 state %d (blocked %d), "
			  "W2 state %d (blocked %d)",
			  (unsigned long)lock_a.owner, W1->state,
			  task_blocked(W1->task), W2->state,
			  task_blocked(W2->task));
		if (rt_mutex_trylock(&lock_a)) {
			rt_mutex_unlock(&lock_a);
			rescued = true;
		}
	}
	finish(all, 2);
	KEXPECT_TRUE(done);
	KEXPECT_FALSE(rescued);
	KEXPECT_EQ(W1->ret, 0);
	KEXPECT_EQ(W2->ret, 0);
	expect_log(2, (int[]){40, 50}, (int[]){40, 30});
}
