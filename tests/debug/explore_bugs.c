/*
 * Planted bugs, locking and waiting (explore_bugs.h): a read outside the
 * lock, a lost wake-up, a priority-inheritance walk that stops one level
 * early, double-checked initialisation published too soon, a write after
 * the unlock, and an ABBA lock order.
 */
#ifdef CONFIG_EXPLORE_BUGS
#include "explore_bugs.h"
#include "completion.h"
#include "explore.h"
#include "mutex.h"
#include "rtmutex.h"
#include "spinlock.h"

/* A counter read before its lock is taken: an update made meanwhile is
 * lost. */
static DEFINE_SPINLOCK(ml_lock);
static volatile int ml_count;

static int missing_lock_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		int v = ml_count;  /* BUG: belongs under ml_lock */

		spin_lock(&ml_lock);
		ml_count = v + 1;
		spin_unlock(&ml_lock);
	}
	return 0;
}

KTEST(explore_bugs, missing_lock)
{
	ml_count = 0;
	bug_run_pair(missing_lock_worker);
	KEXPECT_EQ(ml_count, 2 * BUG_ITERS);
}

/* A consumer that checks for work and only then says it is going to
 * sleep: a producer's wake-up in between finds it running, is lost, and
 * the consumer sleeps until its timeout. One item per round, so that each
 * round has the window once. */
#define LW_ROUNDS 20
#define LW_TIMEOUT_NS 100000000ull
static struct {
	spinlock_t lock;
	int posted;
	int timeouts;
	struct task_struct *consumer;
} lw = {.lock = __SPIN_LOCK_UNLOCKED(lw.lock)};

static bool lw_ready(void)
{
	bool ready;

	spin_lock(&lw.lock);
	ready = lw.posted;
	spin_unlock(&lw.lock);
	return ready;
}

static int lw_consumer(void *arg)
{
	while (!lw_ready()) {
		/* BUG: the state belongs before the check */
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!schedule_timeout(LW_TIMEOUT_NS))
			lw.timeouts++;
	}
	return 0;
}

static int lw_producer(void *arg)
{
	spin_lock(&lw.lock);
	lw.posted = 1;
	spin_unlock(&lw.lock);
	wake_up_process(lw.consumer);
	return 0;
}

KTEST(explore_bugs, lost_wakeup)
{
	lw.timeouts = 0;
	for (int r = 0; r < LW_ROUNDS; r++) {
		struct task_struct *p;

		lw.posted = 0;
		lw.consumer = ktest_spawn(lw_consumer, 0, "consumer", -1,
					  SCHED_NORMAL, 0, true);
		p = ktest_spawn(lw_producer, 0, "producer", -1, SCHED_NORMAL, 0,
				true);
		ktest_join(p);
		ktest_join(lw.consumer);
	}
	KEXPECT_EQ(lw.timeouts, 0);
}

/*
 * A PI chain walk that stops one level early (rtmutex.c, under
 * explore_bug_pi_chain): L (FIFO 10) holds A; M (FIFO 20) holds B and
 * waits for A; H (FIFO 30) waits for B. L must run at 30. The walk
 * reaches L only through M when H blocks after M did; if H blocks first,
 * M's own block carries 30 to L in one step. Which comes first is up to
 * two SCHED_NORMAL starters, released together: S1 wakes M (which takes B
 * and waits for its go), notes it, and wakes H; S2 gives M its go. S1
 * then S2 is the harmless order. A few rounds, a window each.
 */
#define PC_ROUNDS 4
static DEFINE_SPINLOCK(pc_stat_lock);
static struct {
	struct rt_mutex a, b;
	struct completion l_has_a, start, go_a, check;
	struct task_struct *m, *h;
	int l_prio, started;
} pc;

static int pc_l(void *arg)
{
	rt_mutex_lock(&pc.a);
	complete(&pc.l_has_a);
	wait_for_completion(&pc.check);
	pc.l_prio = task_prio(current);
	rt_mutex_unlock(&pc.a);
	return 0;
}

static int pc_m(void *arg)
{
	rt_mutex_lock(&pc.b);
	wait_for_completion(&pc.go_a);
	rt_mutex_lock(&pc.a);
	rt_mutex_unlock(&pc.a);
	rt_mutex_unlock(&pc.b);
	return 0;
}

static int pc_h(void *arg)
{
	rt_mutex_lock(&pc.b);
	rt_mutex_unlock(&pc.b);
	return 0;
}

static int pc_s1(void *arg)
{
	wait_for_completion(&pc.start);
	wake_up_process(pc.m);
	spin_lock(&pc_stat_lock);
	pc.started++;
	spin_unlock(&pc_stat_lock);
	wake_up_process(pc.h);
	return 0;
}

static int pc_s2(void *arg)
{
	wait_for_completion(&pc.start);
	complete(&pc.go_a);
	return 0;
}

static int pi_chain_round(void)
{
	struct task_struct *l, *s1, *s2;

	init_completion(&pc.l_has_a);
	init_completion(&pc.start);
	init_completion(&pc.go_a);
	init_completion(&pc.check);
	pc.l_prio = 0;
	l = ktest_spawn(pc_l, 0, "pi_L", 0, SCHED_FIFO, 10, true);
	wait_for_completion(&pc.l_has_a);
	pc.m = ktest_spawn(pc_m, 0, "pi_M", 0, SCHED_FIFO, 20, false);
	pc.h = ktest_spawn(pc_h, 0, "pi_H", 0, SCHED_FIFO, 30, false);
	s1 = ktest_spawn(pc_s1, 0, "pi_S1", 0, SCHED_NORMAL, 0, true);
	s2 = ktest_spawn(pc_s2, 0, "pi_S2", 0, SCHED_NORMAL, 0, true);
	complete_all(&pc.start);
	ktest_join(s1);
	ktest_join(s2);
	complete(&pc.check);
	ktest_join(l);
	ktest_join(pc.m);
	ktest_join(pc.h);
	return pc.l_prio;
}

KTEST(explore_bugs, pi_chain)
{
	int short_walks = 0;

	rt_mutex_init(&pc.a);
	rt_mutex_init(&pc.b);
	explore_bug_pi_chain = true;
	for (int r = 0; r < PC_ROUNDS; r++)
		short_walks += pi_chain_round() != 30;
	explore_bug_pi_chain = false;
	KEXPECT_EQ(short_walks, 0);
}

/* Double-checked initialisation that publishes the flag before the
 * object: a reader between the two sees "ready" and a zero value. */
#define DCI_ROUNDS 5
static DEFINE_MUTEX(dci_lock);
static DEFINE_SPINLOCK(dci_stat_lock);
static struct {
	volatile int ready, value;
	int inits, bad;
} dci;

static int dci_get(void)
{
	if (!dci.ready) {
		mutex_lock(&dci_lock);
		if (!dci.ready) {
			dci.ready = 1;  /* BUG: published before the value */
			spin_lock(&dci_stat_lock);
			dci.inits++;
			spin_unlock(&dci_stat_lock);
			dci.value = 42;
		}
		mutex_unlock(&dci_lock);
	}
	return dci.value;
}

static int dci_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++)
		if (dci_get() != 42)
			__atomic_fetch_add(&dci.bad, 1, __ATOMIC_RELAXED);
	return 0;
}

KTEST(explore_bugs, double_checked_init)
{
	dci.bad = dci.inits = 0;
	for (int r = 0; r < DCI_ROUNDS; r++) {
		dci.ready = dci.value = 0;
		bug_run_pair(dci_worker);
	}
	KEXPECT_EQ(dci.inits, DCI_ROUNDS);
	KEXPECT_EQ(dci.bad, 0);
}

/* Two fields kept equal under a lock, the second written after the
 * unlock: a holder of the lock in between sees them differ. */
static struct {
	spinlock_t lock;
	volatile int a, b;
	int torn;
} ub = {.lock = __SPIN_LOCK_UNLOCKED(ub.lock)};

static int ub_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		spin_lock(&ub.lock);
		if (ub.a != ub.b)
			ub.torn++;
		ub.a++;
		spin_unlock(&ub.lock);
		ub.b++;  /* BUG: belongs before the unlock */
	}
	return 0;
}

KTEST(explore_bugs, unlock_before_last_use)
{
	ub.a = ub.b = ub.torn = 0;
	bug_run_pair(ub_worker);
	KEXPECT_EQ(ub.torn, 0);
}

/* A and B taken in opposite orders: a preemption between the two locks
 * of one task lets the other close the cycle. The rt_mutex reports the
 * deadlock and refuses the lock; each task checks it got both. */
static DEFINE_MUTEX(ab_a);
static DEFINE_MUTEX(ab_b);
static int ab_refused;

static int abba_worker(void *arg)
{
	struct mutex *first = arg ? &ab_b : &ab_a, *second = arg ? &ab_a : &ab_b;

	for (int i = 0; i < BUG_ITERS; i++) {
		mutex_lock(first);
		mutex_lock(second);  /* BUG: the other worker's order differs */
		if (rt_mutex_owner(&second->rtmutex) != current) {
			__atomic_fetch_add(&ab_refused, 1, __ATOMIC_RELAXED);
			mutex_unlock(first);
			return 1;
		}
		mutex_unlock(second);
		mutex_unlock(first);
	}
	return 0;
}

KTEST(explore_bugs, abba_deadlock)
{
	ab_refused = 0;
	bug_run_pair(abba_worker);
	KEXPECT_EQ(ab_refused, 0);
}
#endif /* CONFIG_EXPLORE_BUGS */
