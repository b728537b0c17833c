/*
 * Spinlocks, in Linux's two kinds (see docs/locks.md):
 *
 * raw_spinlock_t always spins, with preemption off while held (and
 * interrupts too in the _irq/_irqsave forms). For code that must never
 * sleep, such as interrupt handlers. (The scheduler, the lock code and the
 * allocators use the bare arch_spinlock_t under it, with interrupts off.)
 *
 * spinlock_t is what the rest of the kernel uses. Without PREEMPT_RT it
 * is a raw spinlock. With PREEMPT_RT (RT=1) it is a sleeping lock built on
 * rt_mutex, so it inherits priority, taken with migration disabled and
 * preemption left on; its _irq/_irqsave forms leave interrupts on, as in
 * RT Linux (the interrupt handlers that would need them off run in
 * threads there).
 *
 * Every operation tells the lock validator (lockdep.h) what it does; with
 * LOCKDEP=0 those calls compile away. The *_nested() forms take a second
 * lock of a class already held, for a documented nesting (subclass > 0).
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "compiler.h"
#include <stddef.h>
#include "asm/spinlock.h"
#include "locking/lockdep_fast.h"
#include "preempt.h"
#include "locking/rtmutex.h"
#include "sched/sched.h"

/* Whether contended locks spin test-and-set (asm/spinlock.h): from the
 * CPU and the option virt_spin_lock=, before the other CPUs start. */
void virt_spin_lock_init(void);

typedef struct raw_spinlock {
	arch_spinlock_t raw_lock;
	struct lockdep_map dep_map;
} raw_spinlock_t;

#define __RAW_SPIN_LOCK_INIT(name, wt)                                        \
	{.raw_lock = ARCH_SPIN_LOCK_UNLOCKED,                                 \
	 .dep_map = LOCKDEP_MAP_INIT(name, wt)}
#define __RAW_SPIN_LOCK_UNLOCKED(name) __RAW_SPIN_LOCK_INIT(name, LD_WAIT_SPIN)
#define DEFINE_RAW_SPINLOCK(name) raw_spinlock_t name = __RAW_SPIN_LOCK_UNLOCKED(name)

/* Each *_init() call site is a class of its own (its static key). A held
 * lock is not re-initialised: the validator reports and refuses. */
static inline void __raw_spin_lock_init(raw_spinlock_t *l, const char *name,
					struct lock_class_key *key, int wt)
{
	if (!lockdep_init_ok(&l->dep_map))
		return;
	l->raw_lock = (arch_spinlock_t)ARCH_SPIN_LOCK_UNLOCKED;
	lockdep_init_map(&l->dep_map, name, key, wt);
}

#define raw_spin_lock_init(l)                                                 \
	do {                                                                  \
		static struct lock_class_key __key;                           \
		__raw_spin_lock_init((l), #l, &__key, LD_WAIT_SPIN);          \
	} while (0)

/* The validator sees the acquisition after the lock's own preemption and
 * interrupt disabling (flags say which), before the wait: a deadlock it
 * predicts is reported before it hangs. */
static __always_inline void __raw_spin_lock(raw_spinlock_t *l,
					    unsigned int subclass,
					    unsigned int flags)
{
	explore_point(EXPLORE_RAW_SPIN_LOCK);
	preempt_disable();
	lock_acquire(&l->dep_map, subclass, LOCK_PREEMPT_OFF | flags, 0);
	arch_spin_lock(&l->raw_lock);
}

static __always_inline void raw_spin_lock(raw_spinlock_t *l)
{
	__raw_spin_lock(l, 0, 0);
}

static __always_inline void raw_spin_lock_nested(raw_spinlock_t *l,
						 unsigned int subclass)
{
	__raw_spin_lock(l, subclass, 0);
}

/* A release the validator refuses (not held by us) leaves the lock alone:
 * unlocking someone else's lock would break it for everyone. */
static __always_inline void raw_spin_unlock(raw_spinlock_t *l)
{
	if (!lock_release(&l->dep_map, 0))
		return;
	arch_spin_unlock(&l->raw_lock);
	preempt_enable();
	explore_point(EXPLORE_RAW_SPIN_UNLOCK);
}

static __always_inline bool raw_spin_trylock(raw_spinlock_t *l)
{
	lockdep_trylock(&l->dep_map);
	preempt_disable();
	if (arch_spin_trylock(&l->raw_lock)) {
		lock_acquire(&l->dep_map, 0, LOCK_PREEMPT_OFF | LOCK_TRYLOCK,
			     0);
		return true;
	}
	preempt_enable();
	return false;
}

static __always_inline void raw_spin_lock_irq(raw_spinlock_t *l)
{
	local_irq_disable();
	__raw_spin_lock(l, 0, LOCK_IRQS_OFF);
}

/* Interrupts back on before the preemption count drops: a wakeup made
 * inside the section preempts us here, not at some later interrupt. */
static __always_inline void raw_spin_unlock_irq(raw_spinlock_t *l)
{
	if (!lock_release(&l->dep_map, 0))
		return;
	arch_spin_unlock(&l->raw_lock);
	local_irq_enable();
	preempt_enable();
	explore_point(EXPLORE_RAW_SPIN_UNLOCK);
}

static __always_inline unsigned long _raw_spin_lock_irqsave(raw_spinlock_t *l)
{
	unsigned long flags;

	local_irq_save(flags);
	/* Only what this lock turned off is its own (if the caller had
	 * IRQs off already, that stays the caller's). */
	__raw_spin_lock(l, 0, irqs_disabled_flags(flags) ? 0 : LOCK_IRQS_OFF);
	return flags;
}

static __always_inline void raw_spin_unlock_irqrestore(raw_spinlock_t *l,
						       unsigned long flags)
{
	if (!lock_release(&l->dep_map, 0))
		return;
	arch_spin_unlock(&l->raw_lock);
	local_irq_restore(flags);
	preempt_enable();
	explore_point(EXPLORE_RAW_SPIN_UNLOCK);
}

#define raw_spin_lock_irqsave(l, flags) ((flags) = _raw_spin_lock_irqsave(l))

static inline bool raw_spin_is_locked(raw_spinlock_t *l)
{
	return arch_spin_is_locked(&l->raw_lock);
}

#ifdef CONFIG_PREEMPT_RT

/* dep_map aliases the rt_mutex's, so that (lock)->dep_map names it for
 * every lock type (lockdep_set_class()). */
typedef struct spinlock {
	union {
		struct rt_mutex lock;
		struct {
			char __pad[offsetof(struct rt_mutex, dep_map)];
			struct lockdep_map dep_map;
		};
	};
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)                                            \
	{.lock = __RT_MUTEX_INIT(name, LD_WAIT_CONFIG)}

static inline void __spin_lock_init(spinlock_t *l, const char *name,
				    struct lock_class_key *key)
{
	__rt_mutex_init(&l->lock, name, key, LD_WAIT_CONFIG);
}

/* Lock first, then pin: the task may move while it waits, but not while
 * it holds the lock and touches the data the lock covers. */
static __always_inline void spin_lock_nested(spinlock_t *l,
					     unsigned int subclass)
{
	explore_point(EXPLORE_SPIN_LOCK);
	lock_acquire(&l->dep_map, subclass, 0, 0);
	__rt_mutex_lock(&l->lock);
	migrate_disable();
}

static __always_inline void spin_lock(spinlock_t *l)
{
	spin_lock_nested(l, 0);
}

/* False when the validator refused the release (the caller did not
 * hold the lock): nothing was undone. */
static __always_inline bool __spin_unlock(spinlock_t *l)
{
	if (!lock_release(&l->dep_map, 0))
		return false;
	migrate_enable();
	__rt_mutex_unlock(&l->lock);
	explore_point(EXPLORE_SPIN_UNLOCK);
	return true;
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	__spin_unlock(l);
}

static __always_inline bool spin_trylock(spinlock_t *l)
{
	lockdep_trylock(&l->dep_map);
	if (!__rt_mutex_trylock(&l->lock))
		return false;
	lock_acquire(&l->dep_map, 0, LOCK_TRYLOCK, 0);
	migrate_disable();
	return true;
}

static __always_inline void spin_lock_irq(spinlock_t *l)
{
	spin_lock_nested(l, 0);
}

static __always_inline void spin_unlock_irq(spinlock_t *l)
{
	spin_unlock(l);
}

static __always_inline unsigned long _spin_lock_irqsave(spinlock_t *l)
{
	spin_lock_nested(l, 0);
	return 0;
}

static __always_inline void spin_unlock_irqrestore(spinlock_t *l,
						   unsigned long flags)
{
	spin_unlock(l);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return rt_mutex_is_locked(&l->lock);
}

#else /* !CONFIG_PREEMPT_RT */

/* The raw lock, checked as a lock that would sleep on PREEMPT_RT
 * (LD_WAIT_CONFIG); dep_map aliases the raw lock's. */
typedef struct spinlock {
	union {
		raw_spinlock_t rlock;
		struct {
			char __pad[offsetof(raw_spinlock_t, dep_map)];
			struct lockdep_map dep_map;
		};
	};
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)                                            \
	{.rlock = __RAW_SPIN_LOCK_INIT(name, LD_WAIT_CONFIG)}

static inline void __spin_lock_init(spinlock_t *l, const char *name,
				    struct lock_class_key *key)
{
	__raw_spin_lock_init(&l->rlock, name, key, LD_WAIT_CONFIG);
}

static __always_inline void spin_lock(spinlock_t *l)
{
	raw_spin_lock(&l->rlock);
}

static __always_inline void spin_lock_nested(spinlock_t *l,
					     unsigned int subclass)
{
	raw_spin_lock_nested(&l->rlock, subclass);
}

static __always_inline void spin_unlock(spinlock_t *l)
{
	raw_spin_unlock(&l->rlock);
}

static __always_inline bool spin_trylock(spinlock_t *l)
{
	return raw_spin_trylock(&l->rlock);
}

static __always_inline void spin_lock_irq(spinlock_t *l)
{
	raw_spin_lock_irq(&l->rlock);
}

static __always_inline void spin_unlock_irq(spinlock_t *l)
{
	raw_spin_unlock_irq(&l->rlock);
}

static __always_inline unsigned long _spin_lock_irqsave(spinlock_t *l)
{
	return _raw_spin_lock_irqsave(&l->rlock);
}

static __always_inline void spin_unlock_irqrestore(spinlock_t *l,
						   unsigned long flags)
{
	raw_spin_unlock_irqrestore(&l->rlock, flags);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return raw_spin_is_locked(&l->rlock);
}

#endif /* CONFIG_PREEMPT_RT */

#define spin_lock_init(l)                                                     \
	do {                                                                  \
		static struct lock_class_key __key;                           \
		__spin_lock_init((l), #l, &__key);                            \
	} while (0)
#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define spin_lock_irqsave(l, flags) ((flags) = _spin_lock_irqsave(l))

#endif
