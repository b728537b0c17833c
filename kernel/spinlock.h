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
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "arch_spinlock.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"

typedef struct raw_spinlock {
	arch_spinlock_t raw_lock;
} raw_spinlock_t;

#define __RAW_SPIN_LOCK_UNLOCKED(name) {.raw_lock = ARCH_SPIN_LOCK_UNLOCKED}
#define DEFINE_RAW_SPINLOCK(name) raw_spinlock_t name = __RAW_SPIN_LOCK_UNLOCKED(name)

static inline void raw_spin_lock_init(raw_spinlock_t *l)
{
	*l = (raw_spinlock_t)__RAW_SPIN_LOCK_UNLOCKED(l);
}

static inline void raw_spin_lock(raw_spinlock_t *l)
{
	preempt_disable();
	arch_spin_lock(&l->raw_lock);
}

static inline void raw_spin_unlock(raw_spinlock_t *l)
{
	arch_spin_unlock(&l->raw_lock);
	preempt_enable();
}

static inline bool raw_spin_trylock(raw_spinlock_t *l)
{
	preempt_disable();
	if (arch_spin_trylock(&l->raw_lock))
		return true;
	preempt_enable();
	return false;
}

static inline void raw_spin_lock_irq(raw_spinlock_t *l)
{
	local_irq_disable();
	raw_spin_lock(l);
}

/* Interrupts back on before the preemption count drops: a wakeup made
 * inside the section preempts us here, not at some later interrupt. */
static inline void raw_spin_unlock_irq(raw_spinlock_t *l)
{
	arch_spin_unlock(&l->raw_lock);
	local_irq_enable();
	preempt_enable();
}

static inline unsigned long _raw_spin_lock_irqsave(raw_spinlock_t *l)
{
	unsigned long flags = arch_local_irq_save();

	raw_spin_lock(l);
	return flags;
}

static inline void raw_spin_unlock_irqrestore(raw_spinlock_t *l,
					      unsigned long flags)
{
	arch_spin_unlock(&l->raw_lock);
	local_irq_restore(flags);
	preempt_enable();
}

#define raw_spin_lock_irqsave(l, flags) ((flags) = _raw_spin_lock_irqsave(l))

static inline bool raw_spin_is_locked(raw_spinlock_t *l)
{
	return arch_spin_is_locked(&l->raw_lock);
}

#ifdef CONFIG_PREEMPT_RT

typedef struct spinlock {
	struct rt_mutex lock;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name) {.lock = __RT_MUTEX_INITIALIZER(name)}

static inline void spin_lock_init(spinlock_t *l)
{
	rt_mutex_init(&l->lock);
}

/* Lock first, then pin: the task may move while it waits, but not while
 * it holds the lock and touches the data the lock covers. */
static inline void spin_lock(spinlock_t *l)
{
	rt_mutex_lock(&l->lock);
	migrate_disable();
}

static inline void spin_unlock(spinlock_t *l)
{
	migrate_enable();
	rt_mutex_unlock(&l->lock);
}

static inline bool spin_trylock(spinlock_t *l)
{
	if (!rt_mutex_trylock(&l->lock))
		return false;
	migrate_disable();
	return true;
}

static inline void spin_lock_irq(spinlock_t *l)
{
	spin_lock(l);
}

static inline void spin_unlock_irq(spinlock_t *l)
{
	spin_unlock(l);
}

static inline unsigned long _spin_lock_irqsave(spinlock_t *l)
{
	spin_lock(l);
	return 0;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return rt_mutex_is_locked(&l->lock);
}

#else /* !CONFIG_PREEMPT_RT */

typedef struct spinlock {
	raw_spinlock_t rlock;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name) {.rlock = __RAW_SPIN_LOCK_UNLOCKED(name)}

static inline void spin_lock_init(spinlock_t *l)
{
	raw_spin_lock_init(&l->rlock);
}

static inline void spin_lock(spinlock_t *l)
{
	raw_spin_lock(&l->rlock);
}

static inline void spin_unlock(spinlock_t *l)
{
	raw_spin_unlock(&l->rlock);
}

static inline bool spin_trylock(spinlock_t *l)
{
	return raw_spin_trylock(&l->rlock);
}

static inline void spin_lock_irq(spinlock_t *l)
{
	raw_spin_lock_irq(&l->rlock);
}

static inline void spin_unlock_irq(spinlock_t *l)
{
	raw_spin_unlock_irq(&l->rlock);
}

static inline unsigned long _spin_lock_irqsave(spinlock_t *l)
{
	return _raw_spin_lock_irqsave(&l->rlock);
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	raw_spin_unlock_irqrestore(&l->rlock, flags);
}

static inline bool spin_is_locked(spinlock_t *l)
{
	return raw_spin_is_locked(&l->rlock);
}

#endif /* CONFIG_PREEMPT_RT */

#define DEFINE_SPINLOCK(name) spinlock_t name = __SPIN_LOCK_UNLOCKED(name)
#define spin_lock_irqsave(l, flags) ((flags) = _spin_lock_irqsave(l))

#endif
