/*
 * The lock validator's view of what a task holds: releases of locks not
 * held (LOCKDEP_BAD_UNLOCK), a held lock initialised again
 * (LOCKDEP_HELD_REINIT), lockdep_assert_held() and exit with locks held
 * (LOCKDEP_HELD_AT_EXIT) (lockdep_suite.h has the rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* ======================= LOCKDEP_BAD_UNLOCK ======================= */

/* Released without being held: refused, and what the release would have
 * undone (preemption, migration) stays as it was; still a working lock
 * after, with its usual context inside. */
static void check_unlock_never_locked(struct any_lock l)
{
	struct lock_ctx c0 = lock_ctx_now(), none = {0}, refused, inside, after;
	struct rt_mutex *rtm = any_lock_rtmutex(&l);
	bool has_state = any_lock_ops(&l)->is_locked;

	any_lock_release(&l);
	refused = lock_ctx_now();
	KEXPECT_HELD_CTX(refused, c0, &none);
	if (has_state)
		KEXPECT_FALSE(any_lock_is_locked(&l));
	KEXPECT_EQ(any_lock_acquire(&l), 0);
	inside = lock_ctx_now();
	KEXPECT_HELD_CTX(inside, c0, any_lock_held_ctx(&l));
	if (has_state)
		KEXPECT_TRUE(any_lock_is_locked(&l));
	if (rtm)
		KEXPECT_TRUE(rt_mutex_owner(rtm) == current);
	any_lock_release(&l);
	after = lock_ctx_now();
	KEXPECT_HELD_CTX(after, c0, &none);
	if (has_state)
		KEXPECT_FALSE(any_lock_is_locked(&l));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_RAW_SPINLOCK(bad_raw);
static DEFINE_SPINLOCK(bad_spin);
static DEFINE_MUTEX(bad_mutex);
static DEFINE_RT_MUTEX(bad_rtm);

KTEST(lockdep, bad_unlock_raw_never_locked)
{
	check_unlock_never_locked(R(bad_raw));
}

KTEST(lockdep, bad_unlock_spinlock_never_locked)
{
	check_unlock_never_locked(S(bad_spin));
}

KTEST(lockdep, bad_unlock_mutex_never_locked)
{
	check_unlock_never_locked(M(bad_mutex));
}

KTEST(lockdep, bad_unlock_rt_mutex_never_locked)
{
	check_unlock_never_locked(RT(bad_rtm));
}

/* Released twice: the second release is the bad one. */
static DEFINE_MUTEX(bad_twice);

KTEST(lockdep, bad_unlock_double_unlock)
{
	mutex_lock(&bad_twice);
	mutex_unlock(&bad_twice);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	mutex_unlock(&bad_twice);
	KEXPECT_FALSE(mutex_is_locked(&bad_twice));
	mutex_lock(&bad_twice);
	mutex_unlock(&bad_twice);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

/* A local_lock released without being held: refused, and what the lock
 * would have undone (migration on RT=1, preemption on RT=0) stays as it
 * was. */
struct bad_ll_pcp {
	local_lock_t lock;
};
static DEFINE_PER_CPU(struct bad_ll_pcp, bad_ll) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, bad_unlock_local_lock)
{
	check_unlock_never_locked(L(bad_ll.lock));
}

/* Held by a helper task: our unlock is refused, the helper keeps it (for
 * the locks built on an rt_mutex: stays its owner). */
static void check_unlock_of_held_by_other(struct any_lock l)
{
	struct lock_holder h = {.lock = l};
	struct rt_mutex *rtm = any_lock_rtmutex(&l);
	struct task_struct *t;

	t = ktest_spawn_on(last_cpu(), lock_holder_fn, &h, "ld-holder");
	KASSERT_TRUE(t);
	KEXPECT_TRUE(ktest_poll_int(&h.held, 1, KTEST_WAIT_MS));
	any_lock_release(&l);
	KEXPECT_TRUE(rtm ? rt_mutex_owner(rtm) == t : any_lock_is_locked(&l));
	store_int(&h.release, 1);
	kthread_join(t);
	KEXPECT_TRUE(h.held_at_release);
	KEXPECT_FALSE(any_lock_is_locked(&l));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_MUTEX(bad_other_mutex);

KTEST(lockdep, bad_unlock_mutex_held_by_other_task)
{
	check_unlock_of_held_by_other(M(bad_other_mutex));
}

static DEFINE_RAW_SPINLOCK(bad_other_raw);

KTEST_CPUS(lockdep, bad_unlock_raw_held_by_other_task, 2)
{
	check_unlock_of_held_by_other(R(bad_other_raw));
}

static DEFINE_SPINLOCK(bad_other_spin);

KTEST_CPUS(lockdep, bad_unlock_spinlock_held_by_other_task, 2)
{
	check_unlock_of_held_by_other(S(bad_other_spin));
}

/* Releasing in another order than taking is not a bad unlock. */
static DEFINE_MUTEX(bad_ooo_a);
static DEFINE_MUTEX(bad_ooo_b);
static DEFINE_MUTEX(bad_ooo_c);

KTEST(lockdep, bad_unlock_out_of_order_silent)
{
	mutex_lock(&bad_ooo_a);
	mutex_lock(&bad_ooo_b);
	mutex_lock(&bad_ooo_c);
	mutex_unlock(&bad_ooo_a);
	mutex_unlock(&bad_ooo_c);
	mutex_unlock(&bad_ooo_b);
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_a));
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_b));
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_c));
	/* The stack of held locks is still right: the same again. */
	mutex_lock(&bad_ooo_a);
	mutex_lock(&bad_ooo_b);
	mutex_unlock(&bad_ooo_a);
	mutex_unlock(&bad_ooo_b);
	KEXPECT_LOCKDEP_NONE();
}

/* lockdep_reset() forgets the graph and the counters, not what is held:
 * a lock taken before it is released quietly after it. */
static DEFINE_SPINLOCK(bad_reset_held);

KTEST(lockdep, bad_unlock_reset_keeps_held_locks)
{
	spin_lock(&bad_reset_held);
	lockdep_reset();
	spin_unlock(&bad_reset_held);
	KEXPECT_FALSE(spin_is_locked(&bad_reset_held));
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_HELD_REINIT ======================= */

/* A held lock initialised again: refused and reported; it stays held
 * (by us) and is released as usual. */
static void check_reinit_held(struct any_lock l)
{
	struct rt_mutex *rtm = any_lock_rtmutex(&l);

	KEXPECT_EQ(any_lock_acquire(&l), 0);
	any_lock_ops(&l)->init(l.lock, 0);
	KEXPECT_TRUE(rtm ? rt_mutex_owner(rtm) == current
			 : any_lock_is_locked(&l));
	KEXPECT_EQ(lockdep_reports(LOCKDEP_HELD_REINIT), 1);
	any_lock_release(&l);
	KEXPECT_FALSE(any_lock_is_locked(&l));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_REINIT, 1);
}

static DEFINE_SPINLOCK(reinit_spin);
static DEFINE_RAW_SPINLOCK(reinit_raw);
static DEFINE_MUTEX(reinit_mutex);
static DEFINE_RT_MUTEX(reinit_rtm);

KTEST(lockdep, reinit_held_spinlock)
{
	check_reinit_held(S(reinit_spin));
}

KTEST(lockdep, reinit_held_raw_spinlock)
{
	check_reinit_held(R(reinit_raw));
}

KTEST(lockdep, reinit_held_mutex)
{
	check_reinit_held(M(reinit_mutex));
}

KTEST(lockdep, reinit_held_rt_mutex)
{
	check_reinit_held(RT(reinit_rtm));
}

/* Initialising a free lock again is allowed. */
static DEFINE_SPINLOCK(reinit_free);

KTEST(lockdep, reinit_free_lock_silent)
{
	spin_lock(&reinit_free);
	spin_unlock(&reinit_free);
	spin_lock_init(&reinit_free);
	spin_lock(&reinit_free);
	spin_unlock(&reinit_free);
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= lockdep_assert_held ======================= */

/* The validator knows which locks the task holds, whatever their type;
 * the assertion is silent while they are held. */
static DEFINE_RAW_SPINLOCK(assert_raw);
static DEFINE_SPINLOCK(assert_spin);
static DEFINE_MUTEX(assert_mutex);

KTEST(lockdep, assert_held_knows_what_is_held)
{
	KEXPECT_FALSE(lock_is_held(&assert_mutex.dep_map));
	mutex_lock(&assert_mutex);
	spin_lock(&assert_spin);
	raw_spin_lock(&assert_raw);
	KEXPECT_TRUE(lock_is_held(&assert_raw.dep_map));
	KEXPECT_TRUE(lock_is_held(&assert_spin.dep_map));
	KEXPECT_TRUE(lock_is_held(&assert_mutex.dep_map));
	lockdep_assert_held(&assert_raw);
	lockdep_assert_held(&assert_spin);
	lockdep_assert_held(&assert_mutex);
	raw_spin_unlock(&assert_raw);
	KEXPECT_FALSE(lock_is_held(&assert_raw.dep_map));
	spin_unlock(&assert_spin);
	mutex_unlock(&assert_mutex);
	KEXPECT_FALSE(lock_is_held(&assert_spin.dep_map));
	KEXPECT_FALSE(lock_is_held(&assert_mutex.dep_map));
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= the hardirq stack ======================= */

/* A hardirq handler's locks go on its CPU's stack, not on the task it
 * interrupted (what lets the task's fast path leave interrupts on): the
 * task's stack is as it was, and the handler sees both its own locks and
 * the task's as held. */
static DEFINE_RAW_SPINLOCK(stack_task);
static DEFINE_RAW_SPINLOCK(stack_irq);

struct stack_probe {
	bool irq_held, task_held, irq_held_after;
	int task_depth;              /* the task's stack, seen by the handler */
};

static void stack_irq_fn(void *arg)
{
	struct stack_probe *p = arg;

	raw_spin_lock(&stack_irq);
	p->task_depth = current->lockdep.locks.depth;
	p->irq_held = lock_is_held(&stack_irq.dep_map);
	p->task_held = lock_is_held(&stack_task.dep_map);
	raw_spin_unlock(&stack_irq);
	p->irq_held_after = lock_is_held(&stack_irq.dep_map);
}

KTEST(lockdep, hardirq_locks_on_their_own_stack)
{
	struct stack_probe p = {0};
	int depth;

	raw_spin_lock(&stack_task);
	depth = current->lockdep.locks.depth;
	ktest_in_hardirq(stack_irq_fn, &p);
	KEXPECT_EQ(p.task_depth, depth);
	KEXPECT_EQ(current->lockdep.locks.depth, depth);
	KEXPECT_TRUE(p.irq_held);
	KEXPECT_TRUE(p.task_held);
	KEXPECT_FALSE(p.irq_held_after);
	KEXPECT_FALSE(lock_is_held(&stack_irq.dep_map));
	raw_spin_unlock(&stack_task);
	KEXPECT_FALSE(lock_is_held(&stack_task.dep_map));
	KEXPECT_LOCKDEP_NONE();
}

/* The task's lock is not the handler's to release: refused, reported,
 * and still the task's. */
static void release_in_hardirq_fn(void *arg)
{
	raw_spin_unlock(arg);
}

KTEST(lockdep, bad_unlock_in_hardirq_of_task_lock)
{
	raw_spin_lock(&stack_task);
	ktest_in_hardirq(release_in_hardirq_fn, &stack_task);
	KEXPECT_TRUE(raw_spin_is_locked(&stack_task));
	KEXPECT_TRUE(lock_is_held(&stack_task.dep_map));
	raw_spin_unlock(&stack_task);
	KEXPECT_FALSE(raw_spin_is_locked(&stack_task));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

/* ======================= LOCKDEP_HELD_AT_EXIT ======================= */

/* Nothing takes this mutex again: its owner is gone for good. */
static DEFINE_MUTEX(exit_abandoned);
static DEFINE_MUTEX(exit_released);

static int exit_holding_fn(void *arg)
{
	mutex_lock(arg);
	return 0;
}

static int exit_released_fn(void *arg)
{
	mutex_lock(arg);
	mutex_unlock(arg);
	return 0;
}

KTEST(lockdep, exit_holding_mutex)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_fn, &exit_abandoned,
			  "ld-exit"), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_AT_EXIT, 1);
}

/* A raw spinlock left held also leaves preemption off: the exit report
 * covers that, and the task's last schedule() does not report it again
 * as sleeping in atomic context. */
static DEFINE_RAW_SPINLOCK(exit_abandoned_raw);

static int exit_holding_raw_fn(void *arg)
{
	raw_spin_lock(arg);
	return 0;
}

KTEST(lockdep, exit_holding_raw_spinlock)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_raw_fn,
				&exit_abandoned_raw, "ld-exit-raw"), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_AT_EXIT, 1);
}

/* Exiting with a mutex held and a stray preempt_disable(): the mutex
 * explains no preemption, so the final schedule() is reported too. */
static DEFINE_MUTEX(exit_abandoned_leak);

static int exit_holding_and_leaking_fn(void *arg)
{
	mutex_lock(arg);
	preempt_disable();
	return 0;
}

KTEST(lockdep, exit_holding_mutex_preempt_leak)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_and_leaking_fn,
				&exit_abandoned_leak, "ld-exit-leak"), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_HELD_AT_EXIT), 1);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 1);
	KEXPECT_EQ(lockdep_reports_total(), 2);
}

KTEST(lockdep, exit_after_unlock_silent)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_released_fn, &exit_released,
			  "ld-exit"), 0);
	KEXPECT_FALSE(mutex_is_locked(&exit_released));
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
