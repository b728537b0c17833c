/*
 * The per-CPU checker's fast path (lockdep_percpu.c; docs/lockdep.md,
 * "The shadow"): an access that would change nothing in its copy's record
 * is recognised in a handful of instructions, with no lock, no interrupt
 * disabling and no lookup, as ThreadSanitizer's same-epoch test does.
 *
 * Every 8-byte granule of every CPU's per-CPU area has a shadow word at
 * the same offset in the second half of the CPU's slot (asm/page.h). The
 * checker's slow path, when it leaves a copy's record owned by the task
 * that just accessed it, writes there what a repeat of that access looks
 * like: a value derived from the task's epoch and state
 * (lockdep_task.percpu_key: its clock, its held-back access, the CPU it
 * last held) and the locks it holds (class, CPU and share of each), kept
 * together in held_locks.shadow_key, then whether the copy is its CPU's
 * own, the byte in the granule, and in the low bits which kinds of
 * repeat are settled (a load or also a store, at which levels of
 * "preemption off" and "IRQs off"). It clears the word before it changes
 * the record in any other way. An access whose value matches is such a
 * repeat and is skipped.
 *
 * The keys are 64-bit hashes: two different states with the same value
 * would make one access skipped wrongly, with the odds of a 64-bit hash
 * collision, as for Linux's lockdep chain keys.
 */
#ifndef LOCKDEP_PERCPU_H
#define LOCKDEP_PERCPU_H

#include <stdbool.h>
#include <stdint.h>
#include "asm/irqflags.h"
#include "asm/page.h"
#include "locking/lockdep.h"
#include "locking/lockdep_fast.h"
#include "preempt.h"
#include "rwonce.h"
#include "sched/sched.h"

#ifdef CONFIG_LOCKDEP

/*
 * The protection levels a local access can add to the locks it holds,
 * each including the one below: nothing, "preemption off", "IRQs off"
 * (which is also "preemption off"). A repeat at a higher level than one
 * already settled is settled too: it holds more, and with interrupts off
 * it needs no note of its IRQ use.
 */
enum percpu_level { PERCPU_LEVEL_NONE, PERCPU_LEVEL_PREEMPT, PERCPU_LEVEL_IRQS };

/*
 * A shadow value is the task's locks.shadow_key, xor the access's bits
 * (the byte in the granule, whether the copy is its own CPU's), xor a
 * code in the low PERCPU_CODE_BITS: which repeats are settled, and what
 * the fast path needs to tell the task's level without asking its locks
 * (the holder's wait-type counts are fixed by shadow_key).
 */
#define PERCPU_SETTLED_STORE 1u              /* stores too, not just loads */
#define PERCPU_SETTLED_AT(level) (2u << (level))
#define PERCPU_CODE_PREEMPT_SHIFT 4          /* counts.config_preempt_off */
#define PERCPU_CODE_IRQS_UNCOUNTED (1u << 9) /* counts.config_irqs_off != 0 */
#define PERCPU_CODE_BITS 10

/* CPUs whose areas (and shadows) exist. */
extern unsigned int lockdep_percpu_nr_areas;

/* Recompute t's percpu_key after a change of what it hashes (t's clock,
 * its held-back access, the CPU it held last); by t itself. */
void lockdep_percpu_key_refresh(struct task_struct *t);
/* t's place in its history, if it has one since the last reset
 * (lockdep_percpu_hb.c). */
bool lockdep_hb_peek(const struct task_struct *t, struct hb_stamp *st);

/* The shadow word of the granule holding copy address addr. */
static __always_inline uint64_t *percpu_shadow(uintptr_t addr)
{
	return (uint64_t *)((addr & ~7ul) + PERCPU_AREA_MAX);
}

/* The access's own bits of a shadow value, above the code. */
static __always_inline uint64_t percpu_shadow_bits(uintptr_t addr, bool local)
{
	return ((addr & 7) << 1 | local) << PERCPU_CODE_BITS;
}

/*
 * Whether an access to copy address addr (in CPU cpu's area) is a settled
 * repeat. Task context only: in hardirq (or RT=0 softirq) context the
 * count's bits spoil the match (a hardirq access has a context of its own and goes the slow
 * way). One branch in the common case; interrupts are read last, and
 * only when the answer depends on them: under TCG reading the flag costs
 * a helper call. The address must lie in an area that exists (its
 * shadow is read).
 */
static __always_inline bool lockdep_percpu_settled(uintptr_t addr, int cpu,
						   bool write)
{
	unsigned int pc = preempt_count(), mask, level;
	struct task_struct *t = current;
	uint64_t x;

	if (!t)
		return false; /* a CPU on its way in, before its idle task */
	x = READ_ONCE(*percpu_shadow(addr)) ^ t->lockdep.locks.shadow_key ^
	    percpu_shadow_bits(addr, cpu == raw_smp_processor_id()) ^
	    (uint64_t)(pc & LOCKDEP_NOT_TASK_MASK) << 32;
	x |= (uint64_t)(write & ~x & PERCPU_SETTLED_STORE) << PERCPU_CODE_BITS;
	if (x >> PERCPU_CODE_BITS)
		return false;
	mask = x >> 1;
	level = (pc & PREEMPT_MASK) > ((x >> PERCPU_CODE_PREEMPT_SHIFT) & 31);
	if ((mask >> level) & (mask >> PERCPU_LEVEL_IRQS) & 1)
		return true; /* settled with interrupts on or off */
	if (!(x & PERCPU_CODE_IRQS_UNCOUNTED) &&
	    arch_irqs_disabled_flags(arch_local_save_flags()))
		level = PERCPU_LEVEL_IRQS;
	return (mask >> level) & 1;
}

#endif /* CONFIG_LOCKDEP */

#endif
