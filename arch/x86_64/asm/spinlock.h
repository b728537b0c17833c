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
#include "asm/processor.h"

/*
 * next: the ticket the next arriving CPU takes (fetch-and-add by arrivals).
 * owner: the ticket now served; written only by the holder, at release.
 * The lock is free when owner == next.
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
	/* Acquire ordering on the loads that see our turn come: nothing in
	 * the critical section may be read before the lock is ours. */
	uint32_t old = __atomic_fetch_add(&l->val, TICKET_NEXT_ONE,
					  __ATOMIC_ACQUIRE);
	uint16_t ticket = (uint16_t)(old >> 16);

	if ((uint16_t)old == ticket)
		return;
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

static inline bool arch_spin_trylock(arch_spinlock_t *l)
{
	uint32_t old = __atomic_load_n(&l->val, __ATOMIC_RELAXED);

	if ((uint16_t)old != (uint16_t)(old >> 16))
		return false;
	return __atomic_compare_exchange_n(&l->val, &old, old + TICKET_NEXT_ONE,
					   false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void arch_spin_unlock(arch_spinlock_t *l)
{
	/* Only the holder writes owner, so a load and a store are safe; the
	 * release store keeps every critical-section access before it. The
	 * load is atomic too: the lock word is the lock's, not data it
	 * protects, and the per-CPU checker's compiler hooks (which see
	 * plain accesses in code that inlines this) must not check it. */
	uint16_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);

	__atomic_store_n(&l->owner, (uint16_t)(owner + 1), __ATOMIC_RELEASE);
}

static inline bool arch_spin_is_locked(arch_spinlock_t *l)
{
	uint32_t v = __atomic_load_n(&l->val, __ATOMIC_RELAXED);
	return (uint16_t)v != (uint16_t)(v >> 16);
}

#endif
