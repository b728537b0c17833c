/*
 * Priority inheritance in rt_mutex (kernel/locking/rtmutex.c): one donor,
 * several donors, the stepwise deboost, donation along a chain of blocked
 * owners, a donor whose priority changes while it waits, the order in
 * which waiters get the lock, and mutex (PI only on RT). rt_mutex always
 * does PI, so these run on RT=0 and RT=1 alike; pi_actor.h sets the stage.
 */
#include "mutex.h"
#include "pi_actor.h"

/* L (10) holds A; H (50) blocks on A: L runs at 50 until it unlocks, then
 * at 10 again, and H has the lock. */
KTEST(pi, one_donor_boosts_owner_until_unlock)
{
	struct actor *L = actor(0, "L", 10, &lock_a, 0);
	struct actor *H = actor(1, "H", 50, 0, &lock_a), *all[] = {L, H};
	int seen[4] = {-1, -1, -1, -1};
	uintptr_t word;

	rt_mutex_init(&lock_a);
	orchestrate_begin();
	actor_enter(L);
	seen[0] = prio_of(L);
	actor_enter(H);
	seen[1] = prio_of(L);
	seen[2] = prio_of(H);
	word = lock_a.owner;
	store_int(&L->release, 1);
	if (actor_reached(H, ST_DONE))
		seen[3] = prio_of(L);
	finish(all, 2);

	expect_ints("L before, while H waits; H; L after its unlock", seen,
		    (int[]){10, 50, 50, 10}, 4);
	KEXPECT_EQ(word, (uintptr_t)L->task | RT_MUTEX_HAS_WAITERS);
	KEXPECT_EQ(L->prio_after, 10);
	KEXPECT_EQ(H->ret, 0);
	KEXPECT_EQ(lock_a.owner, 0);
	expect_log(2, (int[]){10, 50}, (int[]){10, 50});
}

/* L (10) holds A; waiters of 30, 40, 60 block in turn: L climbs 30, 40,
 * 60. Released, the lock goes 60, 40, 30, each owner running at its own
 * priority (above its remaining waiters); L ends at 10. */
KTEST(pi, several_donors_highest_wins)
{
	struct actor *L;
	int seen[4];

	rt_mutex_init(&lock_a);
	L = run_waiters(LOCK_RTMUTEX, &lock_a, (int[]){30, 40, 60}, 3, seen);
	expect_ints("L as 30, 40, 60 block", seen, (int[]){10, 30, 40, 60}, 4);
	KEXPECT_EQ(L->prio_after, 10);
	expect_log(4, (int[]){10, 102, 101, 100}, (int[]){10, 60, 40, 30});
}

static struct {
	volatile int held, release, done;
	int mid, after;
} two;

/* Holds A and B; at release, gives B back first, then A. */
static int two_lock_holder(void *arg)
{
	rt_mutex_lock(&lock_a);
	rt_mutex_lock(&lock_b);
	store_int(&two.held, 1);
	ktest_helper_wait(load_int(&two.release) || load_int(&pi_abort),
			  POLL_SLEEP);
	rt_mutex_unlock(&lock_b);
	two.mid = task_prio(current);
	rt_mutex_unlock(&lock_a);
	two.after = task_prio(current);
	store_int(&two.done, 1);
	return 0;
}

/* L (10) holds A and B; M (30) waits for A, H (60) for B: L runs at 60.
 * Giving back B drops it to 30 (A's waiter still donates), giving back A
 * to 10: the owner's priority comes down step by step. */
KTEST(pi, deboost_stepwise_per_released_lock)
{
	struct actor *M = actor(0, "M", 30, 0, &lock_a);
	struct actor *H = actor(1, "H", 60, 0, &lock_b), *all[] = {M, H};
	struct task_struct *L;
	int seen[5];

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	two = (typeof(two)){0};
	orchestrate_begin();
	L = pi_start(two_lock_holder, 0, "L", 10);
	POLL_UNTIL(load_int(&two.held));
	seen[0] = L ? task_prio(L) : -1;
	actor_enter(M);
	seen[1] = L ? task_prio(L) : -1;
	actor_enter(H);
	seen[2] = L ? task_prio(L) : -1;
	store_int(&two.release, 1);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&two.done)));
	finish(all, 2);
	if (L)
		kthread_join(L);

	seen[3] = two.mid;
	seen[4] = two.after;
	expect_ints("L alone, with M waiting, with H too; after giving back B, "
		    "after A", seen, (int[]){10, 30, 60, 30, 10}, 5);
	expect_log(2, (int[]){60, 30}, (int[]){60, 30});
}

/* A chain: C (10) holds Lc; B (20) holds Lb and blocks on Lc; A (30) holds
 * La and blocks on Lb; H (60) blocks on La. Each block raises everybody
 * down the chain: C 20; then B and C 30; then A, B and C 60. */
KTEST(pi, nested_donation_along_chain)
{
	struct actor *C = actor(0, "C", 10, &lock_c, 0);
	struct actor *B = actor(1, "B", 20, &lock_b, &lock_c);
	struct actor *A = actor(2, "A", 30, &lock_a, &lock_b);
	struct actor *H = actor(3, "H", 60, 0, &lock_a), *all[] = {C, B, A, H};
	int seen[7], after[3];

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	rt_mutex_init(&lock_c);
	orchestrate_begin();
	actor_enter(C);
	actor_enter(B);
	store_int(&B->go, 1);
	actor_blocked(B);
	seen[0] = prio_of(C);
	actor_enter(A);
	store_int(&A->go, 1);
	actor_blocked(A);
	seen[1] = prio_of(B);
	seen[2] = prio_of(C);
	actor_enter(H);
	seen[3] = prio_of(A);
	seen[4] = prio_of(B);
	seen[5] = prio_of(C);
	seen[6] = prio_of(H);
	finish(all, 4);

	expect_ints("B blocks: C; A blocks: B C; H blocks: A B C (H)", seen,
		    (int[]){20, 30, 30, 60, 60, 60, 60}, 7);
	after[0] = C->prio_after;
	after[1] = B->prio_after;
	after[2] = A->prio_after;
	expect_ints("after: C B A", after, (int[]){10, 20, 30}, 3);
	/* C gives back Lc: B gets it (still at 60, A waits on its Lb), gives
	 * both back; A gets Lb (at 60, H waits on its La); then H. */
	expect_log(4, (int[]){10, 20, 30, 60}, (int[]){10, 60, 60, 60});
}

/* L (10) holds A, D (40) waits: L follows every change of D's priority
 * made while D is blocked (up to 70, down to 20, SCHED_NORMAL, back to
 * 45), and a change of L's own priority counts only above what it
 * inherits. Each step: whose priority is set to what, then L's (and D's)
 * priority. */
KTEST(pi, owner_follows_blocked_donor_priority_changes)
{
	static const struct {
		bool of_l;
		int policy, prio, want_l, want_d;
	} steps[] = {
		{false, SCHED_FIFO, 70, 70, 70},
		{false, SCHED_FIFO, 20, 20, 20},
		{false, SCHED_NORMAL, 0, 10, 0},
		{false, SCHED_FIFO, 45, 45, 45},
		{true, SCHED_FIFO, 5, 45, 45},
		{true, SCHED_FIFO, 60, 60, 45},
		{true, SCHED_FIFO, 10, 45, 45},
	};
	struct actor *L = actor(0, "L", 10, &lock_a, 0);
	struct actor *D = actor(1, "D", 40, 0, &lock_a), *all[] = {L, D};
	int first;

	rt_mutex_init(&lock_a);
	orchestrate_begin();
	actor_enter(L);
	actor_enter(D);
	first = prio_of(L);
	for (unsigned int i = 0; L->task && D->task && i < ARRAY_SIZE(steps);
	     i++) {
		int got[2], want[2] = {steps[i].want_l, steps[i].want_d};

		sched_setscheduler(steps[i].of_l ? L->task : D->task,
				   steps[i].policy, steps[i].prio);
		got[0] = prio_of(L);
		got[1] = prio_of(D);
		expect_ints(steps[i].of_l ? "L set: L, D" : "D set: L, D", got,
			    want, 2);
	}
	KEXPECT_TRUE(task_blocked(D->task));
	finish(all, 2);

	KEXPECT_EQ(first, 40);
	KEXPECT_EQ(L->prio_after, 10);
	expect_log(2, (int[]){10, 40}, (int[]){10, 45});
}

/* Waiters of priority 20, 50 and 35 arrive in that order: they get the
 * lock by priority, 50, 35, 20. */
KTEST(pi, waiters_acquire_in_priority_order)
{
	int seen[4];

	rt_mutex_init(&lock_a);
	run_waiters(LOCK_RTMUTEX, &lock_a, (int[]){20, 50, 35}, 3, seen);
	expect_ints("owner as 20, 50, 35 arrive", seen + 1,
		    (int[]){20, 50, 50}, 3);
	/* ids 100, 101, 102 arrived at 20, 50, 35 */
	expect_log(4, (int[]){10, 101, 102, 100}, (int[]){10, 50, 35, 20});
}

/* Three waiters of priority 30 get the lock in the order they came. */
KTEST(pi, equal_priority_waiters_fifo)
{
	int seen[4];

	rt_mutex_init(&lock_a);
	run_waiters(LOCK_RTMUTEX, &lock_a, (int[]){30, 30, 30}, 3, seen);
	KEXPECT_EQ(seen[3], 30);
	expect_log(4, (int[]){10, 100, 101, 102}, (int[]){10, 30, 30, 30});
}

/* mutex: on RT it is an rt_mutex with PI (owner boosted, waiters by
 * priority); on RT=0 a FIFO sleeping lock without PI (owner stays at its
 * priority, waiters served in arrival order). */
static const struct {
	int seen[3];          /* the owner's priority as each waiter arrives */
	int who[4], prio[4];  /* the acquisitions, in order */
} mutex_expect[2] = {
	/* RT=0: FIFO, and no owner inherits from the waiters behind it. */
	[0] = {{10, 10, 10}, {10, 100, 101, 102}, {10, 20, 50, 35}},
	/* RT=1: the owner inherits the top waiter's priority. */
	[1] = {{20, 50, 50}, {10, 101, 102, 100}, {10, 50, 35, 20}},
};

KTEST(pi, mutex_inherits_only_on_rt)
{
	static struct mutex m;
	int rt = IS_ENABLED(CONFIG_PREEMPT_RT), seen[4];

	mutex_init(&m);
	run_waiters(LOCK_MUTEX, &m, (int[]){20, 50, 35}, 3, seen);
	expect_ints(rt ? "RT=1: mutex owner as 20, 50, 35 arrive"
		       : "RT=0: mutex owner as 20, 50, 35 arrive",
		    seen + 1, mutex_expect[rt].seen, 3);
	expect_log(4, mutex_expect[rt].who, mutex_expect[rt].prio);
	KEXPECT_FALSE(mutex_is_locked(&m));
}
