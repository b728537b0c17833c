/*
 * rt_mutex deadlock detection (kernel/locking/rtmutex.c): a lock taken
 * again by its owner, and a request that would close a cycle of owners
 * and waiters, are refused with -EDEADLK at once, and the validator saw
 * them coming. pi_actor.h sets the stage.
 */
#include "pi_actor.h"

/* Locking an rt_mutex one already holds is reported and refused. */
KTEST(pi, self_deadlock_returns_edeadlk)
{
	uintptr_t me = (uintptr_t)current, word;
	int second;
	bool blocked;

	rt_mutex_init(&lock_a);
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	second = rt_mutex_lock(&lock_a);
	word = lock_a.owner;
	blocked = current->pi_blocked_on != 0;
	if (second == 0)
		rt_mutex_unlock(&lock_a); /* it took it twice: undo one */
	rt_mutex_unlock(&lock_a);
	KEXPECT_EQ(second, -EDEADLK);
	KEXPECT_EQ(word, me);
	KEXPECT_FALSE(blocked);
	KEXPECT_EQ(lock_a.owner, 0);
	KEXPECT_EQ(task_prio(current), 0);
	/* The validator saw it coming, before the lock code refused it. */
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RECURSIVE, 1);
}

/*
 * A cycle of n actors (prio 20, 30, ...): actor i holds lock i and then
 * asks for lock i + 1, the last for lock 0, in that order. The last
 * request closes the cycle: it gets -EDEADLK at once (the lock untouched:
 * still the first actor's, no waiter queued), the last actor gives back
 * its own lock, and the others get theirs in turn: all finish.
 */
static void run_cycle(int n)
{
	static const char *const names[] = {"X", "Y", "Z"};
	struct rt_mutex *locks[] = {&lock_a, &lock_b, &lock_c};
	struct actor *all[3];

	/* Three init sites: three classes, or the validator sees recursion. */
	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	rt_mutex_init(&lock_c);
	for (int i = 0; i < n; i++) {
		all[i] = actor(i, names[i], 20 + 10 * i, locks[i],
			       locks[(i + 1) % n]);
	}
	orchestrate_begin();
	for (int i = 0; i < n; i++)
		actor_enter(all[i]);
	for (int i = 0; i < n; i++) {
		store_int(&all[i]->go, 1);
		if (i < n - 1)
			actor_blocked(all[i]);
		else
			actor_reached(all[i], ST_DONE);
	}
	finish(all, n);

	KEXPECT_EQ(all[n - 1]->ret, -EDEADLK);
	KEXPECT_EQ(all[n - 1]->next_word, (uintptr_t)all[0]->task);
	KEXPECT_FALSE(all[n - 1]->blocked_after_fail);
	for (int i = 0; i < n; i++) {
		if (i < n - 1)
			KEXPECT_EQ(all[i]->ret, 0);
		KEXPECT_EQ(locks[i]->owner, 0);
	}
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_CIRCULAR, 1);
}

/* X holds L1 and waits for L2; Y holds L2 and asks for L1: refused, and
 * X gets L2. */
KTEST(pi, abba_deadlock_detected_and_recovered)
{
	run_cycle(2);
	expect_log(1, (int[]){20}, (int[]){20});
}

/* The same with a cycle of three: X (L1 -> L2), Y (L2 -> L3), Z (L3 ->
 * L1): Z's request is the one that closes the cycle and is refused. Y
 * (boosted by nobody above it: X is 20) gets L3 first, then X. */
KTEST(pi, three_task_cycle_detected)
{
	run_cycle(3);
	expect_log(2, (int[]){30, 20}, (int[]){30, 20});
}
