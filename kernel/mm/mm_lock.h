/*
 * The allocators' shared locks, kmalloc_lock and page_lock: the lock
 * behind the per-CPU caches, taken for a refill, a flush, and every call
 * that may not use a cache.
 *
 * RT=0: a raw spinlock taken with interrupts off, so that every context,
 * hard interrupts included, may allocate and free.
 *
 * RT=1: a spinlock_t, as Linux's SLUB list_lock and zone->lock are: it
 * sleeps, with priority inheritance, and leaves interrupts on. A task
 * that waits for another CPU's refill no longer waits with interrupts
 * off, and a higher-priority task preempts a holder, so the allocator
 * busy on every CPU no longer holds off a realtime task
 * (docs/realtime.md). The price is Linux's too: a context that cannot
 * sleep (a hard interrupt, interrupts or preemption off, a raw lock
 * held) may not take it. There an allocation is refused (NULL), with
 * the validator's wait-context report, and a free is deferred to the
 * CPU's next allocator call that may sleep (defer_free.c).
 */
#ifndef MM_LOCK_H
#define MM_LOCK_H

#include "init.h"
#include "locking/spinlock.h"
#include "mm/mm_stat.h"
#include "preempt.h"
#include "rwonce.h"

#ifdef CONFIG_PREEMPT_RT
typedef spinlock_t mm_lock_t;
#define DEFINE_MM_LOCK(name) DEFINE_SPINLOCK(name)

/* Before the scheduler runs (SYSTEM_BOOTING) the boot CPU is alone, with
 * interrupts off: nothing to exclude, and no task yet that could sleep
 * (the page tables are built before current exists). No allocator lock
 * is held when kmain() leaves that state. */
static __always_inline unsigned long mm_lock_irqsave(mm_lock_t *l)
{
	if (READ_ONCE(system_state) != SYSTEM_BOOTING)
		spin_lock(l);
	return 0;
}

static __always_inline void mm_unlock_irqrestore(mm_lock_t *l,
						 unsigned long flags)
{
	if (READ_ONCE(system_state) != SYSTEM_BOOTING)
		spin_unlock(l);
}
#else
typedef raw_spinlock_t mm_lock_t;
#define DEFINE_MM_LOCK(name) DEFINE_RAW_SPINLOCK(name)

static __always_inline unsigned long mm_lock_irqsave(mm_lock_t *l)
{
	unsigned long flags;

	raw_spin_lock_irqsave(l, flags);
	return flags;
}

static __always_inline void mm_unlock_irqrestore(mm_lock_t *l,
						 unsigned long flags)
{
	raw_spin_unlock_irqrestore(l, flags);
}
#endif

/* mm_lock_irqsave() of a shared allocator lock, counted on this CPU.
 * Evaluates to the saved flags. The count is one %gs instruction, which
 * neither an interrupt nor a preemption (RT=1: migration is off while
 * the lock is held) can split. */
#define mm_lock_irqsave_counted(lock, name)                                   \
	({                                                                    \
		unsigned long mm_flags_ = mm_lock_irqsave(lock);              \
		this_cpu_inc(name);                                           \
		mm_flags_;                                                    \
	})

/* Whether this context may take a shared allocator lock: always on
 * RT=0; on RT=1 where it may sleep. */
static inline bool mm_lock_allowed(void)
{
#ifdef CONFIG_PREEMPT_RT
	return preemptible() || READ_ONCE(system_state) == SYSTEM_BOOTING;
#else
	return true;
#endif
}

#endif
