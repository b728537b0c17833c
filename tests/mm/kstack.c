/*
 * The kernel-stack drain (kernel/mm/stack.c) against a realtime task. A
 * task that frees a stack when the batch of freed stacks is full must
 * wait for the drainer; when that task is realtime and the drainer a
 * normal task it preempted on the same CPU, a wait by spinning (the
 * drainer's flag it once was) never ends: the drainer never runs again.
 * The drainer's lock sleeps, so the realtime task sleeps, the drainer
 * (boosted on PREEMPT_RT) finishes, and the realtime task goes on.
 */
#include "ktest_util.h"
#include "mutex.h"
#include "rtmutex.h"
#include "stack.h"

/* More stacks than one batch holds (KSTACK_LAZY_MAX, 32). */
#define FREES 96

struct drain_race {
	volatile int held;      /* the drainer holds the lock */
	volatile int rt_done;   /* the realtime task freed all its stacks */
	bool saw_waiter;
};

static bool drain_lock_contended(void)
{
	return __atomic_load_n(&kstack_drain_lock.rtmutex.owner,
			       __ATOMIC_ACQUIRE) & RT_MUTEX_HAS_WAITERS;
}

/* The drainer: holds the lock and spins, preemptible, until someone
 * queues on the lock; the realtime task preempts it meanwhile. */
static int drainer_fn(void *arg)
{
	struct drain_race *r = arg;

	mutex_lock(&kstack_drain_lock);
	store_int(&r->held, 1);
	r->saw_waiter = ktest_poll_until(drain_lock_contended(), KTEST_WAIT_MS,
					 POLL_SPIN);
	mutex_unlock(&kstack_drain_lock);
	return 0;
}

static int nothing(void *arg)
{
	return 0;
}

/* The realtime task: each join frees a stack. Its children run on CPU 0,
 * away from it: a joiner of higher priority on the joined task's CPU
 * would keep it from its last switch (ktest_util.h, become_normal()). */
static int rt_freer_fn(void *arg)
{
	struct drain_race *r = arg;

	for (int i = 0; i < FREES; i++)
		ktest_join(ktest_spawn_on(0, nothing, 0, "drain-child"));
	store_int(&r->rt_done, 1);
	return 0;
}

KTEST_CPUS(mm, kstack_drain_rt_waiter_preempted_drainer, 2)
{
	struct drain_race r = {0};
	int cpu = last_cpu();
	struct task_struct *drainer, *rt;

	drainer = ktest_spawn(drainer_fn, &r, "drainer", cpu, SCHED_NORMAL, 0,
			      true);
	KASSERT_TRUE(drainer);
	KASSERT_TRUE(ktest_poll_int(&r.held, 1, KTEST_WAIT_MS));
	rt = ktest_spawn(rt_freer_fn, &r, "rt-freer", cpu, SCHED_FIFO, 50,
			 true);
	KEXPECT_TRUE(ktest_poll_int(&r.rt_done, 1, KTEST_WAIT_MS));
	ktest_join(rt);
	ktest_join(drainer);
	KEXPECT_TRUE(r.saw_waiter);
}
