/*
 * local_lock_t: a lock that protects this CPU's copy of some per-CPU data,
 * named so that the protection is visible (and checkable) where the data
 * is used. As in Linux:
 *
 *   without PREEMPT_RT  local_lock() disables preemption (and
 *                       local_lock_irqsave() interrupts); nothing else on
 *                       this CPU can run, so the copy is ours.
 *   with PREEMPT_RT     local_lock() disables migration and takes this
 *                       CPU's spinlock_t (a sleeping lock): another task on
 *                       this CPU may preempt us, but blocks on the lock if
 *                       it wants the same copy; priority inheritance keeps
 *                       the wait bounded.
 *
 * local_lock_nested_bh() is for per-CPU data used in softirq context,
 * called with BHs off: free without PREEMPT_RT (softirqs of a CPU run
 * one at a time), this CPU's lock with it, which is what lets PREEMPT_RT
 * drop the BH lock (docs/softirq.md). Called outside softirq context it
 * is reported (lockdep_assert_in_softirq()).
 *
 * The argument names a per-CPU local_lock_t, usually a member of a per-CPU
 * struct:  static DEFINE_PER_CPU(struct s, pcp) = {.lock = INIT_LOCAL_LOCK(lock)};
 *          local_lock(&pcp.lock);
 */
#ifndef LOCAL_LOCK_H
#define LOCAL_LOCK_H

#include "percpu.h"
#include "sched/sched.h"
#include "locking/spinlock.h"

#ifdef CONFIG_PREEMPT_RT

typedef spinlock_t local_lock_t;

#define INIT_LOCAL_LOCK(name) __SPIN_LOCK_UNLOCKED(name)

/* raw_cpu_ptr: forming the lock's address is not a data access. */
#define local_lock(l)                                                         \
	do {                                                                  \
		migrate_disable();                                            \
		spin_lock(raw_cpu_ptr(l));                                    \
	} while (0)

/* A release the validator refuses leaves migration as it was. */
#define local_unlock(l)                                                       \
	do {                                                                  \
		if (__spin_unlock(raw_cpu_ptr(l)))                            \
			migrate_enable();                                     \
	} while (0)

#define local_lock_irqsave(l, flags)                                          \
	do {                                                                  \
		(flags) = 0;                                                  \
		local_lock(l);                                                \
	} while (0)

#define local_unlock_irqrestore(l, flags)                                     \
	do {                                                                  \
		(void)(flags);                                                \
		local_unlock(l);                                              \
	} while (0)

/* Softirq context has migration off already (local_bh_disable()): only
 * this CPU's lock, which serialises the softirq users of the data once
 * the BH lock no longer does. */
#define local_lock_nested_bh(l)                                               \
	do {                                                                  \
		lockdep_assert_in_softirq();                                  \
		spin_lock(raw_cpu_ptr(l));                                    \
	} while (0)

#define local_unlock_nested_bh(l) ((void)__spin_unlock(raw_cpu_ptr(l)))

#else /* !CONFIG_PREEMPT_RT */

/* No state of its own but the validator's: the protection is the CPU
 * itself. Checked as a lock that sleeps on PREEMPT_RT (LD_WAIT_CONFIG). */
typedef struct local_lock {
	struct lockdep_map dep_map;
} local_lock_t;

#define INIT_LOCAL_LOCK(name)                                                 \
	{.dep_map = LOCKDEP_MAP_INIT(name, LD_WAIT_CONFIG)}

/* This CPU's copy of the lock, for the validator: compiled away with
 * LOCKDEP=0 (it costs a %gs: load). A release the validator refuses
 * leaves preemption and interrupts as they were. */
#ifdef CONFIG_LOCKDEP
#define __local_lock_acquire(l, flags)                                        \
	lock_acquire(&raw_cpu_ptr(l)->dep_map, 0, (flags), 0)
#define __local_lock_release(l) lock_release(&raw_cpu_ptr(l)->dep_map, 0)
#else
#define __local_lock_acquire(l, flags) ((void)(l))
#define __local_lock_release(l) ((void)(l), true)
#endif

#define local_lock(l)                                                         \
	do {                                                                  \
		preempt_disable();                                            \
		__local_lock_acquire(l, LOCK_PREEMPT_OFF);                    \
	} while (0)

#define local_unlock(l)                                                       \
	do {                                                                  \
		if (__local_lock_release(l))                                  \
			preempt_enable();                                     \
	} while (0)

#define local_lock_irqsave(l, flags)                                          \
	do {                                                                  \
		local_irq_save(flags);                                        \
		__local_lock_acquire(l, irqs_disabled_flags(flags) ?          \
						0 : LOCK_IRQS_OFF);           \
	} while (0)

#define local_unlock_irqrestore(l, flags)                                     \
	do {                                                                  \
		if (__local_lock_release(l))                                  \
			local_irq_restore(flags);                             \
	} while (0)

/* Softirq context already excludes every other user of this CPU's copy
 * (BHs off, preemption off): nothing to do but tell the validator, which
 * checks the caller is in softirq context. */
#define local_lock_nested_bh(l)                                               \
	do {                                                                  \
		lockdep_assert_in_softirq();                                  \
		__local_lock_acquire(l, 0);                                   \
	} while (0)

#define local_unlock_nested_bh(l) ((void)__local_lock_release(l))

#endif /* CONFIG_PREEMPT_RT */

#endif
