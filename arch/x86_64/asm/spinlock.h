/*
 * arch_spinlock_t: the bare ticket lock (Mellor-Crummey and Scott,
 * "Algorithms for scalable synchronization on shared-memory
 * multiprocessors", 1991): fair, FIFO, one atomic to take it uncontended;
 * test-and-set when contended under a hypervisor (virt_spin_lock()).
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

/*
 * Under a hypervisor the host time-shares the vCPUs, and a FIFO lock
 * hands itself to a waiter whose vCPU may be off its core: everyone
 * waits for the host to run that one (lock-waiter preemption,
 * docs/locks.md). Linux's answer for a guest without paravirt spinlocks
 * is virt_spin_lock(): a contended lock is taken test-and-set, by
 * whoever runs when it is free. virt_spin_lock_on selects it: set at
 * boot from CPUID's hypervisor bit (virt_spin_lock_init(), the option
 * virt_spin_lock=0|1), before the other CPUs start; read only when the
 * lock is contended. Both spins take the same word the same way (a
 * ticket, when it is served at once or is their turn), so the flag may
 * change at any time: a test-and-set waiter never takes a lock that
 * ticket waiters queue for, since it is not free until their turn.
 */
extern bool virt_spin_lock_on;

static inline bool ticket_served_now(uint32_t val)
{
	return (uint16_t)val == (uint16_t)(val >> 16);
}

/* The lock is free: take the next ticket, served at once. A locked
 * cmpxchg is a full barrier, so acquire ordering on success. */
static inline bool arch_spin_take_free(arch_spinlock_t *l, uint32_t old)
{
	return ticket_served_now(old) &&
	       arch_try_cmpxchg(&l->val, &old, old + TICKET_NEXT_ONE);
}

/* Test-and-set: wait until the lock is free, then race for it. */
static inline void virt_spin_lock(arch_spinlock_t *l)
{
	while (!arch_spin_take_free(l, READ_ONCE(l->val)))
		cpu_relax();
}

/* FIFO: a locked xadd takes a ticket; the acquire load that sees our
 * turn come keeps the critical section after it. */
static inline void ticket_spin_lock(arch_spinlock_t *l)
{
	uint32_t old = arch_xadd(&l->val, TICKET_NEXT_ONE);
	uint16_t ticket = (uint16_t)(old >> 16);

	if ((uint16_t)old == ticket)
		return;
	smp_cond_load_acquire(&l->owner, VAL == ticket);
}

/* Uncontended: one locked cmpxchg. Contended: the spin the machine
 * calls for. */
static inline void arch_spin_lock(arch_spinlock_t *l)
{
	if (arch_spin_take_free(l, READ_ONCE(l->val)))
		return;
	if (READ_ONCE(virt_spin_lock_on))
		virt_spin_lock(l);
	else
		ticket_spin_lock(l);
}

static inline bool arch_spin_trylock(arch_spinlock_t *l)
{
	return arch_spin_take_free(l, READ_ONCE(l->val));
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
	return !ticket_served_now(READ_ONCE(l->val));
}

#endif
