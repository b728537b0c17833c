/*
 * arch_spinlock_t: the bare ticket lock (Mellor-Crummey and Scott,
 * "Algorithms for scalable synchronization on shared-memory
 * multiprocessors", 1991): fair, FIFO, one atomic to take it uncontended.
 * It neither disables preemption nor interrupts; raw_spinlock_t
 * (spinlock.h) adds that. The kernel's lowest layers (the console, the
 * page allocator, the run queues) use it directly with interrupts off.
 */
#ifndef _ASM_X86_SPINLOCK_H
#define _ASM_X86_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include "asm/atomic.h"
#include "asm/barrier.h"
#include "asm/cmpxchg.h"
#include "asm/processor.h"

/*
 * next: the ticket the next arriving CPU takes (fetch-and-add by arrivals).
 * owner: the ticket now served; written only by the holder, at release.
 * The lock is free when owner == next.
 *
 * Every access to the lock word is an atomic or a marked one
 * (READ_ONCE()/smp_load_acquire()/smp_store_release()): the word is the
 * lock's, not data it protects, and the per-CPU checker's compiler hooks,
 * which see the plain accesses of code that inlines these, must not
 * check a ticket lock inside a per-CPU struct as per-CPU data.
 */
typedef struct {
	union {
		uint32_t val;
		struct {
			uint16_t owner;
			uint16_t next;
		};
	};
} arch_spinlock_t;

#define ARCH_SPIN_LOCK_UNLOCKED {{0}}
#define TICKET_NEXT_ONE (1u << 16)

static inline void arch_spin_lock(arch_spinlock_t *l)
{
	/* A locked xadd takes the ticket; it is a full barrier on x86, and
	 * the acquire load that sees our turn come keeps the critical
	 * section after it: nothing in it may be read before the lock is
	 * ours. */
	uint32_t old = arch_xadd(&l->val, TICKET_NEXT_ONE);
	uint16_t ticket = (uint16_t)(old >> 16);

	if ((uint16_t)old == ticket)
		return;
	smp_cond_load_acquire(&l->owner, VAL == ticket);
}

static inline bool arch_spin_trylock(arch_spinlock_t *l)
{
	uint32_t old = READ_ONCE(l->val);

	if ((uint16_t)old != (uint16_t)(old >> 16))
		return false;
	/* Locked cmpxchg: a full barrier, so acquire ordering on success. */
	return arch_try_cmpxchg(&l->val, &old, old + TICKET_NEXT_ONE);
}

static inline void arch_spin_unlock(arch_spinlock_t *l)
{
	/* Only the holder writes owner, so a load and a store are safe; the
	 * release store keeps every critical-section access before it. */
	uint16_t owner = READ_ONCE(l->owner);

	smp_store_release(&l->owner, (uint16_t)(owner + 1));
}

static inline bool arch_spin_is_locked(arch_spinlock_t *l)
{
	uint32_t v = READ_ONCE(l->val);
	return (uint16_t)v != (uint16_t)(v >> 16);
}

#endif
