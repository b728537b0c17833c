/*
 * A pending affinity change carried out by migrate_enable() (or by the
 * preempt_enable() that ends a spinning lock's section) runs inside
 * whatever its caller was doing, and on RT=1 that may be the unlock in
 * the middle of a wait loop:
 *
 *	set_current_state(TASK_UNINTERRUPTIBLE);
 *	spin_unlock(&l);     <- on RT=1 this is where migrate_enable() runs
 *	schedule();
 *
 * The failure this guards against: the task sleeps inside the unlock,
 * the lock still held, and no wakeup comes; or it comes out of the
 * unlock without the state it set. Here a task on the last CPU takes a
 * lock of each kind (plainly, and inside a migrate_disable() section, so
 * that the sleeping locks are pinned too), moves its own affinity to
 * CPU 0, sets TASK_UNINTERRUPTIBLE and unlocks. Expected: the unlock
 * returns, the task is on CPU 0 still in TASK_UNINTERRUPTIBLE, then it
 * sleeps in its own schedule() until the test wakes it.
 */
#include "ktest.h"
#include "ktest_util.h"
#include "locking/lock_kind.h"
#include "local_lock.h"
#include "mutex.h"
#include "percpu.h"
#include "rtmutex.h"
#include "sched.h"
#include "spinlock.h"

static DEFINE_RAW_SPINLOCK(ms_raw);
static DEFINE_SPINLOCK(ms_spin);
static DEFINE_PER_CPU(local_lock_t, ms_local) = INIT_LOCAL_LOCK(ms_local);
static DEFINE_MUTEX(ms_mutex);
static DEFINE_RT_MUTEX(ms_rtmutex);

static void *const ms_locks[NR_LOCK_KINDS] = {
	[LOCK_RAW] = &ms_raw,
	[LOCK_SPIN] = &ms_spin,
	[LOCK_LOCAL] = &ms_local,
	[LOCK_MUTEX] = &ms_mutex,
	[LOCK_RTMUTEX] = &ms_rtmutex,
};

struct state_case {
	struct any_lock lock;
	bool pinned;
	volatile int unlocked, woken;
	int cpu_after, state_after;
};

static int unlock_in_state(void *arg)
{
	struct state_case *sc = arg;

	if (sc->pinned)
		migrate_disable();
	any_lock_acquire(&sc->lock);
	set_cpus_allowed(current, cpumask_of(0));
	set_current_state(TASK_UNINTERRUPTIBLE);
	any_lock_release(&sc->lock);
	if (sc->pinned)
		migrate_enable();
	sc->cpu_after = raw_smp_processor_id();
	sc->state_after = get_current_state();
	store_int(&sc->unlocked, 1);
	schedule(); /* the sleep the task asked for */
	store_int(&sc->woken, 1);
	return 0;
}

/* Wake t until it says so: a broken kernel may have put it to sleep at
 * an earlier place, and the test must still end. */
static void wake_until(struct task_struct *t, volatile int *flag)
{
	for (int i = 0; i < 10000 && !load_int(flag); i++) {
		wake_up_process(t);
		msleep(1);
	}
}

static void run_case(enum lock_kind kind, bool pinned)
{
	struct state_case sc = {.lock = ANY_LOCK(kind, ms_locks[kind]),
				.pinned = pinned, .cpu_after = -1};
	const struct lock_kind_ops *ops = &lock_kinds[kind];
	struct task_struct *t;

	t = ktest_spawn(unlock_in_state, &sc, "unlock-state", last_cpu(),
			SCHED_NORMAL, 0, true);
	KASSERT_TRUE(t);
	if (!ktest_poll_int(&sc.unlocked, 1, KTEST_WAIT_MS)) {
		ktest_fail_msg(__FILE__, __LINE__, "%s%s: the unlock did not "
			       "return (slept in it?)", ops->name,
			       pinned ? " pinned" : "");
		wake_until(t, &sc.unlocked);
	}
	/* Now it sleeps in its own schedule(), where nobody wakes it. */
	KEXPECT_TRUE(ktest_poll_until(!t->on_rq && !t->on_cpu, KTEST_WAIT_MS,
				      POLL_SLEEP));
	KEXPECT_EQ(sc.cpu_after, 0);
	KEXPECT_EQ(sc.state_after, TASK_UNINTERRUPTIBLE);
	KEXPECT_EQ(task_cpu(t), 0);
	KEXPECT_EQ(READ_ONCE(t->__state), TASK_UNINTERRUPTIBLE);
	KEXPECT_EQ(load_int(&sc.woken), 0);
	if (ops->is_locked)
		KEXPECT_FALSE(ops->is_locked(ms_locks[kind]));
	wake_until(t, &sc.woken);
	KEXPECT_EQ(ktest_join(t), 0);
	if (sc.cpu_after != 0 || sc.state_after != TASK_UNINTERRUPTIBLE)
		ktest_log("%s%s: after the unlock on CPU %d in state %d",
			  ops->name, pinned ? " pinned" : "", sc.cpu_after,
			  sc.state_after);
}

KTEST_CPUS(migrate, pending_move_keeps_task_state, 2)
{
	for (int kind = 0; kind < NR_LOCK_KINDS; kind++) {
		run_case(kind, false);
		run_case(kind, true);
	}
}
