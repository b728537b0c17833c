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
 * be freed while a spinner looks at it. Linux reads it under RCU. Here
 * each CPU publishes the one task its spinner is about to read (a hazard
 * pointer, spin_owner), then checks again that this task still owns the
 * lock; the task's memory is freed only once no CPU publishes it
 * (rt_mutex_spin_forget(), from kthread.c's task_free()). A task owns no
 * lock once it is dead, so the check fails for a task on its way to be
 * freed, and a spinner that published it before the free leaves its spin
 * within one iteration (the owner does not run).
 */
#include "locking/rtmutex.h"
#include "atomic.h"
#include "percpu.h"
#include "preempt.h"
#include "sched/sched.h"

/* The task this CPU's spinner may read, or NULL; written by that spinner
 * with preemption off, read by any CPU freeing a task: unchecked. */
static DEFINE_PER_CPU_UNCHECKED(struct task_struct *, spin_owner);

/* Publish owner, then check that it still owns lock: only then may the
 * caller read it, until spin_release(). A store, then a load of another
 * location: smp_store_mb() orders the publication before the check,
 * against the freeing CPU's release of the lock (long before the free)
 * and its scan in rt_mutex_spin_forget(), which makes the mirror image
 * (a full barrier, then the loads of every slot). */
static bool spin_protect(struct rt_mutex *lock, struct task_struct *owner)
{
	struct task_struct **slot = raw_cpu_ptr(&spin_owner);

	if (*slot != owner)
		smp_store_mb(*slot, owner);
	return rt_mutex_owner(lock) == owner;
}

/* Release: our reads of the owner are done before the slot says so. */
static void spin_release(void)
{
	smp_store_release(raw_cpu_ptr(&spin_owner), NULL);
}

void rt_mutex_spin_forget(struct task_struct *t)
{
	int cpu;

	smp_mb(); /* t owns no lock any more: before the scan */
	for_each_possible_cpu(cpu)
		smp_cond_load_acquire(raw_per_cpu_ptr(&spin_owner, cpu),
				      VAL != t);
}

/* Whether owner (protected, see above) runs on another CPU, where it
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
		if (!spin_protect(lock, owner)) {
			spin_release(); /* so its free need not wait */
			continue;       /* it changed hands: look again */
		}
		if (!owner_running_elsewhere(owner))
			break;
		if (!lock->no_pi && rt_mutex_pi_enabled &&
		    current->prio < READ_ONCE(owner->prio))
			break; /* it must inherit our priority: queue */
		cpu_relax();
	}
	spin_release();
	preempt_enable();
	return taken;
}

bool rt_mutex_spin_on_owner(struct rt_mutex *lock, struct task_struct *owner)
{
	bool changed = false;

	preempt_disable(); /* need_resched() ends the spin */
	while (!need_resched()) {
		if (!spin_protect(lock, owner)) {
			changed = true;
			break;
		}
		if (!owner_running_elsewhere(owner))
			break;
		cpu_relax();
	}
	spin_release();
	preempt_enable();
	return changed;
}
