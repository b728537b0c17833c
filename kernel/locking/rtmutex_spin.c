/*
 * Adaptive spinning for rt_mutex (and so for mutex and, on PREEMPT_RT,
 * spinlock_t and local_lock_t), as Linux's mutex optimistic spinning and
 * rtmutex_spin_on_owner() do it.
 *
 * The problem: a waiter that always sleeps pays a sleep and a wakeup (two
 * context switches, run-queue locks, an IPI) for a critical section that
 * is often a few hundred instructions long and whose owner is running on
 * another CPU right now. The rule: while the owner is running on another
 * CPU it will release the lock soon, so spin; when it is not running
 * (preempted, or asleep itself), spinning only burns the CPU, so sleep.
 *
 * Spinning stops as soon as any of these holds:
 *  - the lock's owner changed (released, or handed on): try to take it;
 *  - the owner is not on a CPU, or is on ours (it needs our CPU);
 *  - need_resched(): a task of higher priority wants this CPU, and the
 *    spin runs with preemption off, so it must not hold that task up;
 *  - before queueing only: queued waiters exist (they go first), or the
 *    spinner is of higher priority than the owner on a PI lock. Such a
 *    waiter must queue, so that the owner inherits its priority (the
 *    optimistic spin does not donate); it may then spin as the top
 *    waiter, with the owner boosted, as PREEMPT_RT does.
 *
 * Reading owner->on_cpu safely: the owner may release the lock, exit and
 * be freed while a spinner looks at it. As in Linux, the spinner reads
 * it inside an RCU reader: a task's memory goes back only a grace period
 * after its last reference (docs/rcu.md), so an owner loaded from the
 * lock word inside the reader stays readable until the reader ends,
 * even if it has released the lock, exited and been put meanwhile. Each
 * iteration checks that it still owns the lock, so a spinner whose owner
 * went stops within one iteration.
 */
#include "locking/rtmutex.h"
#include "atomic.h"
#include "percpu.h"
#include "preempt.h"
#include "rcu/rcupdate.h"
#include "sched/sched.h"

/* Whether owner (read inside the reader) runs on another CPU, where it
 * will soon release the lock. Preemption off: our CPU stays ours. */
static bool owner_running_elsewhere(const struct task_struct *owner)
{
	return READ_ONCE(owner->on_cpu) &&
	       task_cpu(owner) != raw_smp_processor_id();
}

bool rt_mutex_optimistic_spin(struct rt_mutex *lock)
{
	bool taken = false;

	preempt_disable(); /* need_resched() ends the spin */
	rcu_read_lock();   /* the owner we look at stays readable */
	while (!need_resched()) {
		uintptr_t word = READ_ONCE(lock->owner);
		struct task_struct *owner = (struct task_struct *)(word & ~RT_MUTEX_HAS_WAITERS);
		uintptr_t free = 0;

		if (word & RT_MUTEX_HAS_WAITERS)
			break; /* queued waiters go first: the slow path */
		if (!owner) {
			if (try_cmpxchg(&lock->owner, &free,
					(uintptr_t)current)) {
				taken = true;
				break;
			}
			continue;
		}
		if (!owner_running_elsewhere(owner))
			break;
		if (!lock->no_pi && rt_mutex_pi_enabled &&
		    current->prio < READ_ONCE(owner->prio))
			break; /* it must inherit our priority: queue */
		cpu_relax();
	}
	rcu_read_unlock();
	preempt_enable();
	return taken;
}

/* owner was read from the lock under the chain lock, which releasing a
 * lock with waiters takes: it owned the lock then, so it was alive, and
 * the caller's RCU reader began before the chain lock was dropped. */
bool rt_mutex_spin_on_owner(struct rt_mutex *lock, struct task_struct *owner)
{
	bool changed = false;

	preempt_disable(); /* need_resched() ends the spin */
	while (!need_resched()) {
		if (rt_mutex_owner(lock) != owner) {
			changed = true;
			break;
		}
		if (!owner_running_elsewhere(owner))
			break;
		cpu_relax();
	}
	preempt_enable();
	return changed;
}
