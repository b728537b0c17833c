/*
 * Tests of priority inheritance in rt_mutex (kernel/locking/rtmutex.c): one donor,
 * several donors, donation along a chain of blocked owners, a donor whose
 * own priority changes while it waits, the order in which waiters get the
 * lock, the owner word of the fast path, lock stealing, the hand-over when
 * a woken waiter loses priority before it runs, deadlock detection and the
 * classic three-task inversion with and without PI. rt_mutex always does PI, so these run on
 * RT=0 and RT=1 alike; mutex (PI only on RT) has a test of its own.
 *
 * Every scenario runs on one CPU (the last online one), so that who runs
 * is decided by priority alone: the helper tasks ("actors") are bound
 * there with their SCHED_FIFO priorities, and the test task moves there
 * too, at SCHED_FIFO 90, above all of them. It wakes one actor at a time
 * and sleeps (1 ms polls) until that actor has reached a given point (holds
 * its lock, or is blocked on one); since nothing of lower priority runs
 * while it is awake, what it reads (task_prio() of each actor, the lock
 * word) is a stable snapshot. Each actor logs the order in which it
 * acquired and its priority then. The test task drops back to SCHED_NORMAL
 * before joining (kthread_join() must not out-prioritise a task on its own
 * CPU that still has to switch out for the last time).
 */
#include <stdbool.h>
#include <stdint.h>

#include "asm/processor.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "vsprintf.h"

#define MAIN_PRIO 90                /* the test task, above every actor */
#define POLL_MS 5000                /* how long the test waits for a step */
#define ACTOR_WAIT_MS 20000         /* how long an actor waits for a flag */

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)

/* ---- the acquisition log ---- */

#define LOG_MAX 16

static struct {
	volatile int n;
	int who[LOG_MAX];
	int prio[LOG_MAX];
} acq;

static void acq_reset(void)
{
	acq.n = 0;
	for (int i = 0; i < LOG_MAX; i++)
		acq.who[i] = acq.prio[i] = -1;
}

static void acq_log(int who)
{
	int i = __atomic_fetch_add(&acq.n, 1, __ATOMIC_ACQ_REL);

	if (i < LOG_MAX) {
		acq.who[i] = who;
		acq.prio[i] = task_prio(current);
	}
}

/* The log must read who[0] at prio[0], who[1] at prio[1], ... */
static void expect_log(int n, const int *who, const int *prio)
{
	char buf[160];
	int len = 0;

	for (int i = 0; i < acq.n && i < LOG_MAX && len < 140; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %d@%d",
				acq.who[i], acq.prio[i]);
	buf[len] = 0;
	ktest_log("acquisitions (id@prio):%s", buf);
	KEXPECT_EQ(acq.n, n);
	for (int i = 0; i < n && i < LOG_MAX; i++) {
		KEXPECT_EQ(acq.who[i], who[i]);
		KEXPECT_EQ(acq.prio[i], prio[i]);
	}
}

/* ---- actors ---- */

enum { ST_NEW, ST_OWN_HELD, ST_WAITING, ST_NEXT_HELD, ST_DONE };
enum { LK_RTMUTEX, LK_MUTEX };

/*
 * An actor takes own (if any) and says so; then, after go if wait_go,
 * takes next (if any) and logs it; then, after release if wait_release,
 * releases next and own and exits. A lock taken with no next to follow is
 * logged as the acquisition.
 */
struct actor {
	const char *name;
	int id, prio;             /* log id; SCHED_FIFO priority */
	int kind;                 /* LK_RTMUTEX or LK_MUTEX */
	void *own, *next;
	bool wait_go, wait_release;
	volatile int go, release, state;
	int ret;                  /* of taking next */
	uintptr_t next_word;      /* next's owner word when that failed */
	bool blocked_after_fail;
	int prio_acq, prio_after;
	struct task *task;
};

static volatile int pi_abort; /* set on cleanup: actors stop waiting */
static int pi_cpu;

static bool actor_wait(volatile int *flag)
{
	return ktest_poll_until(load_int(flag) || load_int(&pi_abort),
				ACTOR_WAIT_MS, POLL_SLEEP) &&
	       load_int(flag);
}

static int take(struct actor *a, void *l)
{
	if (a->kind == LK_MUTEX) {
		mutex_lock(l);
		return 0;
	}
	return rt_mutex_lock(l);
}

static void give(struct actor *a, void *l)
{
	if (a->kind == LK_MUTEX)
		mutex_unlock(l);
	else
		rt_mutex_unlock(l);
}

static int actor_fn(void *arg)
{
	struct actor *a = arg;
	bool go = true;

	a->ret = -1;
	if (a->own) {
		take(a, a->own);
		a->prio_acq = task_prio(current);
		if (!a->next)
			acq_log(a->id);
		store_int(&a->state, ST_OWN_HELD);
	}
	if (a->next) {
		if (a->wait_go)
			go = actor_wait(&a->go);
		if (go) {
			store_int(&a->state, ST_WAITING);
			a->ret = take(a, a->next);
			if (a->ret == 0) {
				a->prio_acq = task_prio(current);
				acq_log(a->id);
				store_int(&a->state, ST_NEXT_HELD);
			} else {
				a->next_word = __atomic_load_n(
					&((struct rt_mutex *)a->next)->owner,
					__ATOMIC_RELAXED);
				a->blocked_after_fail = current->pi_blocked_on != 0;
			}
		}
	}
	if (a->wait_release)
		actor_wait(&a->release);
	if (a->next && a->ret == 0)
		give(a, a->next);
	if (a->own)
		give(a, a->own);
	a->prio_after = task_prio(current);
	store_int(&a->state, ST_DONE);
	return 0;
}

/* The test task moves to the scenario's CPU, above every actor. */
static void orchestrate_begin(void)
{
	pi_cpu = last_cpu();
	pi_abort = 0;
	acq_reset();
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(pi_cpu)), 0);
	KEXPECT_EQ(raw_smp_processor_id(), pi_cpu);
	KEXPECT_EQ(sched_setscheduler(current, SCHED_FIFO, MAIN_PRIO), 0);
}

static struct task *start(int (*fn)(void *), void *arg, const char *name,
			  int prio)
{
	struct task *t = kthread_create(fn, arg, name);

	if (!t) {
		ktest_fail_msg(__FILE__, __LINE__, "kthread_create(%s) failed",
			       name);
		return 0;
	}
	kthread_bind(t, pi_cpu);
	if (prio)
		KEXPECT_EQ(sched_setscheduler(t, SCHED_FIFO, prio), 0);
	wake_up_process(t);
	return t;
}

static void actor_start(struct actor *a)
{
	a->go = a->release = a->state = 0;
	a->task = start(actor_fn, a, a->name, a->prio);
}

/* Poll (the test task sleeps, the actors run) until cond or timeout. */
#define POLL_UNTIL(cond) ktest_poll_until(cond, POLL_MS, POLL_SLEEP)

static bool task_blocked(struct task *t)
{
	return t && __atomic_load_n(&t->pi_blocked_on, __ATOMIC_ACQUIRE) != 0;
}

static bool actor_reached(struct actor *a, int st)
{
	bool ok = POLL_UNTIL(load_int(&a->state) >= st);

	if (!ok)
		ktest_fail_msg(__FILE__, __LINE__, "%s: state %d, wanted %d",
			       a->name, a->state, st);
	return ok;
}

static bool actor_blocked(struct actor *a)
{
	bool ok = POLL_UNTIL(load_int(&a->state) == ST_WAITING &&
			     task_blocked(a->task));

	if (!ok)
		ktest_fail_msg(__FILE__, __LINE__, "%s did not block (state %d)",
			       a->name, a->state);
	return ok;
}

static int prio_of(struct actor *a)
{
	return a->task ? task_prio(a->task) : -1;
}

/* Release everything, wait for the actors to finish, drop back to
 * SCHED_NORMAL and join them. */
static void finish(struct actor **a, int n)
{
	for (int i = 0; i < n; i++)
		store_int(&a[i]->release, 1);
	for (int i = 0; i < n; i++)
		if (a[i]->task && !POLL_UNTIL(load_int(&a[i]->state) == ST_DONE)) {
			ktest_fail_msg(__FILE__, __LINE__, "%s did not finish",
				       a[i]->name);
			store_int(&pi_abort, 1);
		}
	store_int(&pi_abort, 1);
	become_normal();
	for (int i = 0; i < n; i++)
		if (a[i]->task)
			kthread_join(a[i]->task);
	set_cpus_allowed(current, cpumask_of(0));
}

/* ---- scenarios ---- */

static struct rt_mutex lock_a, lock_b, lock_c;
static struct actor act[5];

/* L (10) holds A; H (50) blocks on A: L runs at 50 until it unlocks, then
 * at 10 again, and H has the lock. */
KTEST(pi, one_donor_boosts_owner_until_unlock)
{
	struct actor *L = &act[0], *H = &act[1], *all[] = {L, H};
	int before, boosted, h_prio, after = -1;
	uintptr_t word;

	rt_mutex_init(&lock_a);
	*L = (struct actor){.name = "L", .id = 10, .prio = 10, .own = &lock_a,
			    .wait_release = true};
	*H = (struct actor){.name = "H", .id = 50, .prio = 50, .next = &lock_a};
	orchestrate_begin();
	actor_start(L);
	actor_reached(L, ST_OWN_HELD);
	before = prio_of(L);
	actor_start(H);
	actor_blocked(H);
	boosted = prio_of(L);
	h_prio = prio_of(H);
	word = lock_a.owner;
	store_int(&L->release, 1);
	if (actor_reached(H, ST_DONE))
		after = prio_of(L);
	finish(all, 2);

	ktest_log("L: %d before, %d while H (%d) waits, %d after its unlock",
		  before, boosted, h_prio, after);
	KEXPECT_EQ(before, 10);
	KEXPECT_EQ(boosted, 50);
	KEXPECT_EQ(h_prio, 50);
	KEXPECT_EQ(word, (uintptr_t)L->task | RT_MUTEX_HAS_WAITERS);
	KEXPECT_EQ(after, 10);
	KEXPECT_EQ(L->prio_after, 10);
	KEXPECT_EQ(H->ret, 0);
	KEXPECT_EQ(lock_a.owner, 0);
	expect_log(2, (int[]){10, 50}, (int[]){10, 50});
}

/* L (10) holds A; M1 (30), M2 (40), H (60) block in turn: L climbs 30,
 * 40, 60. Released, the lock goes H, M2, M1, each owner running at its
 * own priority (above its remaining waiters): 60, 40, 30; L ends at 10. */
KTEST(pi, several_donors_highest_wins)
{
	struct actor *L = &act[0], *M1 = &act[1], *M2 = &act[2], *H = &act[3];
	struct actor *all[] = {L, M1, M2, H};
	int seen[4];

	rt_mutex_init(&lock_a);
	*L = (struct actor){.name = "L", .id = 10, .prio = 10, .own = &lock_a,
			    .wait_release = true};
	*M1 = (struct actor){.name = "M1", .id = 30, .prio = 30, .next = &lock_a};
	*M2 = (struct actor){.name = "M2", .id = 40, .prio = 40, .next = &lock_a};
	*H = (struct actor){.name = "H", .id = 60, .prio = 60, .next = &lock_a};
	orchestrate_begin();
	actor_start(L);
	actor_reached(L, ST_OWN_HELD);
	seen[0] = prio_of(L);
	actor_start(M1);
	actor_blocked(M1);
	seen[1] = prio_of(L);
	actor_start(M2);
	actor_blocked(M2);
	seen[2] = prio_of(L);
	actor_start(H);
	actor_blocked(H);
	seen[3] = prio_of(L);
	finish(all, 4);

	ktest_log("L: %d, then %d, %d, %d as M1, M2, H block; %d after",
		  seen[0], seen[1], seen[2], seen[3], L->prio_after);
	KEXPECT_EQ(seen[0], 10);
	KEXPECT_EQ(seen[1], 30);
	KEXPECT_EQ(seen[2], 40);
	KEXPECT_EQ(seen[3], 60);
	KEXPECT_EQ(L->prio_after, 10);
	expect_log(4, (int[]){10, 60, 40, 30}, (int[]){10, 60, 40, 30});
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
	actor_wait(&two.release);
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
	struct actor *M = &act[0], *H = &act[1], *all[] = {M, H};
	struct task *L;
	int seen[3];

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	two = (typeof(two)){0};
	*M = (struct actor){.name = "M", .id = 30, .prio = 30, .next = &lock_a};
	*H = (struct actor){.name = "H", .id = 60, .prio = 60, .next = &lock_b};
	orchestrate_begin();
	L = start(two_lock_holder, 0, "L", 10);
	POLL_UNTIL(load_int(&two.held));
	seen[0] = L ? task_prio(L) : -1;
	actor_start(M);
	actor_blocked(M);
	seen[1] = L ? task_prio(L) : -1;
	actor_start(H);
	actor_blocked(H);
	seen[2] = L ? task_prio(L) : -1;
	store_int(&two.release, 1);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&two.done)));
	finish(all, 2);
	if (L)
		kthread_join(L);

	ktest_log("L: %d, %d with M waiting, %d with H too; %d after giving "
		  "back B, %d after A", seen[0], seen[1], seen[2], two.mid,
		  two.after);
	KEXPECT_EQ(seen[0], 10);
	KEXPECT_EQ(seen[1], 30);
	KEXPECT_EQ(seen[2], 60);
	KEXPECT_EQ(two.mid, 30);
	KEXPECT_EQ(two.after, 10);
	expect_log(2, (int[]){60, 30}, (int[]){60, 30});
}

/* A chain: C (10) holds Lc; B (20) holds Lb and blocks on Lc; A (30) holds
 * La and blocks on Lb; H (60) blocks on La. Each block raises everybody
 * down the chain: C 20; then B and C 30; then A, B and C 60. */
KTEST(pi, nested_donation_along_chain)
{
	struct actor *C = &act[0], *B = &act[1], *A = &act[2], *H = &act[3];
	struct actor *all[] = {C, B, A, H};
	int c1, b2, c2, a3, b3, c3, h3;

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	rt_mutex_init(&lock_c);
	*C = (struct actor){.name = "C", .id = 10, .prio = 10, .own = &lock_c,
			    .wait_release = true};
	*B = (struct actor){.name = "B", .id = 20, .prio = 20, .own = &lock_b,
			    .next = &lock_c, .wait_go = true};
	*A = (struct actor){.name = "A", .id = 30, .prio = 30, .own = &lock_a,
			    .next = &lock_b, .wait_go = true};
	*H = (struct actor){.name = "H", .id = 60, .prio = 60, .next = &lock_a};
	orchestrate_begin();
	actor_start(C);
	actor_reached(C, ST_OWN_HELD);
	actor_start(B);
	actor_reached(B, ST_OWN_HELD);
	store_int(&B->go, 1);
	actor_blocked(B);
	c1 = prio_of(C);
	actor_start(A);
	actor_reached(A, ST_OWN_HELD);
	store_int(&A->go, 1);
	actor_blocked(A);
	b2 = prio_of(B);
	c2 = prio_of(C);
	actor_start(H);
	actor_blocked(H);
	a3 = prio_of(A);
	b3 = prio_of(B);
	c3 = prio_of(C);
	h3 = prio_of(H);
	finish(all, 4);

	ktest_log("B blocks: C %d; A blocks: B %d C %d; H blocks: A %d B %d "
		  "C %d (H %d)", c1, b2, c2, a3, b3, c3, h3);
	ktest_log("after: C %d B %d A %d H %d", C->prio_after, B->prio_after,
		  A->prio_after, H->prio_after);
	KEXPECT_EQ(c1, 20);
	KEXPECT_EQ(b2, 30);
	KEXPECT_EQ(c2, 30);
	KEXPECT_EQ(a3, 60);
	KEXPECT_EQ(b3, 60);
	KEXPECT_EQ(c3, 60);
	KEXPECT_EQ(h3, 60);
	KEXPECT_EQ(C->prio_after, 10);
	KEXPECT_EQ(B->prio_after, 20);
	KEXPECT_EQ(A->prio_after, 30);
	/* C gives back Lc: B gets it (still at 60, A waits on its Lb), gives
	 * both back; A gets Lb (at 60, H waits on its La); then H. */
	expect_log(4, (int[]){10, 20, 30, 60}, (int[]){10, 60, 60, 60});
}

/* L (10) holds A, D (40) waits: L follows every change of D's priority
 * made while D is blocked (up to 70, down to 20, SCHED_NORMAL, back to
 * 45), and a change of L's own priority counts only above what it
 * inherits. */
KTEST(pi, owner_follows_blocked_donor_priority_changes)
{
	struct actor *L = &act[0], *D = &act[1], *all[] = {L, D};
	int l[8], d[4];

	rt_mutex_init(&lock_a);
	*L = (struct actor){.name = "L", .id = 10, .prio = 10, .own = &lock_a,
			    .wait_release = true};
	*D = (struct actor){.name = "D", .id = 40, .prio = 40, .next = &lock_a};
	orchestrate_begin();
	actor_start(L);
	actor_reached(L, ST_OWN_HELD);
	actor_start(D);
	actor_blocked(D);
	for (int i = 0; i < 8; i++)
		l[i] = -1;
	for (int i = 0; i < 4; i++)
		d[i] = -1;
	l[0] = prio_of(L);
	if (D->task && L->task) {
		sched_setscheduler(D->task, SCHED_FIFO, 70);
		l[1] = prio_of(L);
		d[1] = prio_of(D);
		sched_setscheduler(D->task, SCHED_FIFO, 20);
		l[2] = prio_of(L);
		d[2] = prio_of(D);
		sched_setscheduler(D->task, SCHED_NORMAL, 0);
		l[3] = prio_of(L);
		d[3] = prio_of(D);
		sched_setscheduler(D->task, SCHED_FIFO, 45);
		l[4] = prio_of(L);
		sched_setscheduler(L->task, SCHED_FIFO, 5);
		l[5] = prio_of(L);
		sched_setscheduler(L->task, SCHED_FIFO, 60);
		l[6] = prio_of(L);
		sched_setscheduler(L->task, SCHED_FIFO, 10);
		l[7] = prio_of(L);
	}
	KEXPECT_TRUE(task_blocked(D->task));
	finish(all, 2);

	ktest_log("L: %d; D 70 -> %d, D 20 -> %d, D NORMAL -> %d, D 45 -> %d",
		  l[0], l[1], l[2], l[3], l[4]);
	ktest_log("L's own 5 -> %d, 60 -> %d, 10 -> %d; D was %d, %d, %d",
		  l[5], l[6], l[7], d[1], d[2], d[3]);
	KEXPECT_EQ(l[0], 40);
	KEXPECT_EQ(l[1], 70);
	KEXPECT_EQ(d[1], 70);
	KEXPECT_EQ(l[2], 20);
	KEXPECT_EQ(d[2], 20);
	KEXPECT_EQ(l[3], 10);
	KEXPECT_EQ(d[3], 0);
	KEXPECT_EQ(l[4], 45);
	KEXPECT_EQ(l[5], 45);
	KEXPECT_EQ(l[6], 60);
	KEXPECT_EQ(l[7], 45);
	KEXPECT_EQ(L->prio_after, 10);
	expect_log(2, (int[]){10, 40}, (int[]){10, 45});
}

/* Run L (10) holding lock, then waiters of the given priorities blocking
 * one after the other; fill owner_prio[i] with L's priority after the
 * i-th blocked. */
static void run_waiters(int kind, void *lock, const int *prios, int n,
			int *owner_prio)
{
	struct actor *L = &act[0], *all[4];

	*L = (struct actor){.name = "L", .id = 10, .prio = 10, .kind = kind,
			    .own = lock, .wait_release = true};
	all[0] = L;
	for (int i = 0; i < n; i++) {
		act[1 + i] = (struct actor){.name = "W", .id = 100 + i,
					    .prio = prios[i], .kind = kind,
					    .next = lock};
		all[1 + i] = &act[1 + i];
	}
	orchestrate_begin();
	actor_start(L);
	actor_reached(L, ST_OWN_HELD);
	for (int i = 0; i < n; i++) {
		actor_start(&act[1 + i]);
		actor_blocked(&act[1 + i]);
		owner_prio[i] = prio_of(L);
	}
	finish(all, 1 + n);
}

/* Waiters of priority 20, 50 and 35 arrive in that order: they get the
 * lock by priority, 50, 35, 20. */
KTEST(pi, waiters_acquire_in_priority_order)
{
	int seen[3];

	rt_mutex_init(&lock_a);
	run_waiters(LK_RTMUTEX, &lock_a, (int[]){20, 50, 35}, 3, seen);
	ktest_log("owner at %d, %d, %d as 20, 50, 35 arrive", seen[0],
		  seen[1], seen[2]);
	KEXPECT_EQ(seen[0], 20);
	KEXPECT_EQ(seen[1], 50);
	KEXPECT_EQ(seen[2], 50);
	/* ids 100, 101, 102 arrived at 20, 50, 35 */
	expect_log(4, (int[]){10, 101, 102, 100}, (int[]){10, 50, 35, 20});
}

/* Three waiters of priority 30 get the lock in the order they came. */
KTEST(pi, equal_priority_waiters_fifo)
{
	int seen[3];

	rt_mutex_init(&lock_a);
	run_waiters(LK_RTMUTEX, &lock_a, (int[]){30, 30, 30}, 3, seen);
	KEXPECT_EQ(seen[2], 30);
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
	int seen[3];

	mutex_init(&m);
	run_waiters(LK_MUTEX, &m, (int[]){20, 50, 35}, 3, seen);
	ktest_log("RT=%d: mutex owner at %d, %d, %d as 20, 50, 35 arrive",
		  RT_WORLD, seen[0], seen[1], seen[2]);
	for (int i = 0; i < 3; i++)
		KEXPECT_EQ(seen[i], mutex_expect[RT_WORLD].seen[i]);
	expect_log(4, mutex_expect[RT_WORLD].who, mutex_expect[RT_WORLD].prio);
	KEXPECT_FALSE(mutex_is_locked(&m));
}

/* ---- lock word, fast path, stealing ---- */

/* The uncontended lock and unlock (and trylock) leave the owner word
 * exactly current and then 0, with no waiters bit; a waiter sets the bit
 * while it waits, and after it is gone the fast path is clean again. */
KTEST(pi, fast_path_owner_word)
{
	struct actor *W = &act[0], *all[] = {W};
	uintptr_t me = (uintptr_t)current, locked, unlocked, tried, untried;
	uintptr_t waited, after_wait = 1, relocked = 1;

	rt_mutex_init(&lock_a);
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	locked = lock_a.owner;
	rt_mutex_unlock(&lock_a);
	unlocked = lock_a.owner;
	KEXPECT_TRUE(rt_mutex_trylock(&lock_a));
	tried = lock_a.owner;
	rt_mutex_unlock(&lock_a);
	untried = lock_a.owner;
	KEXPECT_EQ(locked, me);
	KEXPECT_EQ(unlocked, 0);
	KEXPECT_EQ(tried, me);
	KEXPECT_EQ(untried, 0);
	KEXPECT_EQ(rt_mutex_owner(&lock_a), 0);

	*W = (struct actor){.name = "W", .id = 50, .prio = 50, .next = &lock_a};
	orchestrate_begin();
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_start(W);
	actor_blocked(W);
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
	struct actor *W = &act[0], *all[] = {W};
	uintptr_t me = (uintptr_t)current, free_word, stolen_word;
	uintptr_t free_word2 = 7;
	bool stole, stole2 = true, still_blocked;

	rt_mutex_init(&lock_a);
	*W = (struct actor){.name = "W", .id = 50, .prio = 50, .next = &lock_a};
	orchestrate_begin(); /* we are at 90, W at 50 */
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_start(W);
	actor_blocked(W);
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
	struct actor *W1 = &act[0], *W2 = &act[1], *all[] = {W1, W2};
	bool done, rescued = false;

	rt_mutex_init(&lock_a);
	*W1 = (struct actor){.name = "W1", .id = 50, .prio = 50, .next = &lock_a};
	*W2 = (struct actor){.name = "W2", .id = 40, .prio = 40, .next = &lock_a};
	orchestrate_begin();
	KEXPECT_EQ(rt_mutex_lock(&lock_a), 0);
	actor_start(W1);
	actor_blocked(W1);
	actor_start(W2);
	actor_blocked(W2);
	rt_mutex_unlock(&lock_a); /* wakes W1, which cannot run before us */
	if (W1->task)
		sched_setscheduler(W1->task, SCHED_FIFO, 30);
	done = POLL_UNTIL(load_int(&W1->state) == ST_DONE &&
			  load_int(&W2->state) == ST_DONE);
	if (!done) {
		ktest_log("stalled: lock word %#lx, W1 state %d (blocked %d), "
			  "W2 state %d (blocked %d)", (unsigned long)lock_a.owner,
			  W1->state, task_blocked(W1->task), W2->state,
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

/* ---- deadlock detection ---- */

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

/* X holds L1 and waits for L2; Y holds L2 and asks for L1: Y gets
 * -EDEADLK at once (L1 untouched: still X's, no waiter queued), gives
 * back L2, and X gets it: both finish. */
KTEST(pi, abba_deadlock_detected_and_recovered)
{
	struct actor *X = &act[0], *Y = &act[1], *all[] = {X, Y};

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	*X = (struct actor){.name = "X", .id = 1, .prio = 20, .own = &lock_a,
			    .next = &lock_b, .wait_go = true};
	*Y = (struct actor){.name = "Y", .id = 2, .prio = 30, .own = &lock_b,
			    .next = &lock_a, .wait_go = true};
	orchestrate_begin();
	actor_start(X);
	actor_reached(X, ST_OWN_HELD);
	actor_start(Y);
	actor_reached(Y, ST_OWN_HELD);
	store_int(&X->go, 1);
	actor_blocked(X);
	store_int(&Y->go, 1);
	actor_reached(Y, ST_DONE);
	finish(all, 2);

	ktest_log("Y: rt_mutex_lock(L1) = %d; X: rt_mutex_lock(L2) = %d",
		  Y->ret, X->ret);
	KEXPECT_EQ(Y->ret, -EDEADLK);
	KEXPECT_EQ(Y->next_word, (uintptr_t)X->task);
	KEXPECT_FALSE(Y->blocked_after_fail);
	KEXPECT_EQ(X->ret, 0);
	KEXPECT_EQ(lock_a.owner, 0);
	KEXPECT_EQ(lock_b.owner, 0);
	expect_log(1, (int[]){1}, (int[]){20});
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_CIRCULAR, 1);
}

/* The same with a cycle of three: X (L1 -> L2), Y (L2 -> L3), Z (L3 ->
 * L1): Z's request is the one that closes the cycle and is refused. */
KTEST(pi, three_task_cycle_detected)
{
	struct actor *X = &act[0], *Y = &act[1], *Z = &act[2];
	struct actor *all[] = {X, Y, Z};

	rt_mutex_init(&lock_a);
	rt_mutex_init(&lock_b);
	rt_mutex_init(&lock_c);
	*X = (struct actor){.name = "X", .id = 1, .prio = 20, .own = &lock_a,
			    .next = &lock_b, .wait_go = true};
	*Y = (struct actor){.name = "Y", .id = 2, .prio = 30, .own = &lock_b,
			    .next = &lock_c, .wait_go = true};
	*Z = (struct actor){.name = "Z", .id = 3, .prio = 40, .own = &lock_c,
			    .next = &lock_a, .wait_go = true};
	orchestrate_begin();
	for (int i = 0; i < 3; i++) {
		actor_start(all[i]);
		actor_reached(all[i], ST_OWN_HELD);
	}
	store_int(&X->go, 1);
	actor_blocked(X);
	store_int(&Y->go, 1);
	actor_blocked(Y);
	store_int(&Z->go, 1);
	actor_reached(Z, ST_DONE);
	finish(all, 3);

	ktest_log("X %d, Y %d, Z %d", X->ret, Y->ret, Z->ret);
	KEXPECT_EQ(Z->ret, -EDEADLK);
	KEXPECT_EQ(Z->next_word, (uintptr_t)X->task);
	KEXPECT_FALSE(Z->blocked_after_fail);
	KEXPECT_EQ(X->ret, 0);
	KEXPECT_EQ(Y->ret, 0);
	/* Y (boosted by nobody above it: X is 20) gets L3 first, then X. */
	expect_log(2, (int[]){2, 1}, (int[]){30, 20});
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_CIRCULAR, 1);
}

/* ---- the classic inversion ---- */

#define MEDIUM_SPIN_MS 1000

static struct {
	struct rt_mutex lock;
	volatile int low_held, go_work, high_got, medium_started, medium_done;
	volatile int seq;
	int high_seq, medium_done_seq;
	bool medium_saw_high;
	uint64_t medium_spun_ns;
	int high_prio_acq;
} inv;

static int inv_low(void *arg)
{
	uint64_t t0;

	rt_mutex_lock(&inv.lock);
	store_int(&inv.low_held, 1);
	ktest_poll_until(load_int(&inv.go_work) || load_int(&pi_abort), 10000,
			 POLL_SPIN);
	t0 = ktime_get_ns();
	while (ns_since(t0) < 2 * NS_PER_MS) /* the work under the lock */
		cpu_relax();
	rt_mutex_unlock(&inv.lock);
	return 0;
}

static int inv_high(void *arg)
{
	rt_mutex_lock(&inv.lock);
	inv.high_prio_acq = task_prio(current);
	inv.high_seq = __atomic_fetch_add(&inv.seq, 1, __ATOMIC_ACQ_REL);
	store_int(&inv.high_got, 1);
	rt_mutex_unlock(&inv.lock);
	return 0;
}

static int inv_medium(void *arg)
{
	uint64_t t0 = ktime_get_ns();

	store_int(&inv.medium_started, 1);
	while (ns_since(t0) < MEDIUM_SPIN_MS * NS_PER_MS) {
		if (load_int(&inv.high_got)) {
			inv.medium_saw_high = true;
			break;
		}
		cpu_relax();
	}
	inv.medium_spun_ns = ns_since(t0);
	inv.medium_done_seq = __atomic_fetch_add(&inv.seq, 1, __ATOMIC_ACQ_REL);
	store_int(&inv.medium_done, 1);
	return 0;
}

/* low (10) holds the lock, medium (30) spins, high (50) blocks on the
 * lock, all on one CPU. Returns low's priority while high waits. */
static int run_inversion(bool pi)
{
	struct task *low, *medium, *high;
	int low_prio = -1;

	rt_mutex_init(&inv.lock);
	inv.low_held = inv.go_work = inv.high_got = 0;
	inv.medium_started = inv.medium_done = 0;
	inv.seq = 0;
	inv.high_seq = inv.medium_done_seq = -1;
	inv.medium_saw_high = false;
	inv.medium_spun_ns = 0;
	inv.high_prio_acq = -1;
	rt_mutex_pi_enabled = pi;
	orchestrate_begin();
	low = start(inv_low, 0, "low", 10);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.low_held)));
	medium = start(inv_medium, 0, "medium", 30);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.medium_started)));
	high = start(inv_high, 0, "high", 50);
	KEXPECT_TRUE(POLL_UNTIL(task_blocked(high)));
	if (low)
		low_prio = task_prio(low);
	store_int(&inv.go_work, 1);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.medium_done) &&
				load_int(&inv.high_got)));
	store_int(&pi_abort, 1);
	become_normal();
	if (high)
		kthread_join(high);
	if (medium)
		kthread_join(medium);
	if (low)
		kthread_join(low);
	rt_mutex_pi_enabled = true;
	set_cpus_allowed(current, cpumask_of(0));
	ktest_log("PI %s: low at %d while high waits; high got the lock as "
		  "event %d (at %d), medium ended as event %d after %lu ms, %s",
		  pi ? "on" : "off", low_prio, inv.high_seq, inv.high_prio_acq,
		  inv.medium_done_seq,
		  (unsigned long)(inv.medium_spun_ns / NS_PER_MS),
		  inv.medium_saw_high ? "having seen high through"
				      : "never seeing high through");
	return low_prio;
}

/* With PI, low runs at high's priority above medium, releases, and high
 * gets the lock while medium is still spinning: medium sees it done. */
KTEST(pi, inversion_bounded_by_inheritance)
{
	int low_prio = run_inversion(true);

	KEXPECT_TRUE(rt_mutex_pi_enabled);
	KEXPECT_EQ(low_prio, 50);
	KEXPECT_TRUE(inv.medium_saw_high);
	KEXPECT_LT(inv.medium_spun_ns, MEDIUM_SPIN_MS * NS_PER_MS);
	KEXPECT_EQ(inv.high_seq, 0);
	KEXPECT_EQ(inv.medium_done_seq, 1);
	KEXPECT_EQ(inv.high_prio_acq, 50);
	KEXPECT_FALSE(rt_mutex_is_locked(&inv.lock));
}

/* Without PI, low stays at 10 below medium, so high (above medium!)
 * waits for all of medium's spin: the unbounded inversion that PI
 * prevents, shown within a 1 s bound. */
KTEST(pi, inversion_unbounded_without_inheritance)
{
	int low_prio = run_inversion(false);

	KEXPECT_TRUE(rt_mutex_pi_enabled); /* restored */
	KEXPECT_EQ(low_prio, 10);
	KEXPECT_FALSE(inv.medium_saw_high);
	KEXPECT_GE(inv.medium_spun_ns, MEDIUM_SPIN_MS * NS_PER_MS);
	KEXPECT_EQ(inv.medium_done_seq, 0);
	KEXPECT_EQ(inv.high_seq, 1);
	KEXPECT_FALSE(rt_mutex_is_locked(&inv.lock));
}
