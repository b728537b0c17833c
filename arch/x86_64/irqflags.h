/*
 * Interrupt enable flag (RFLAGS.IF) control, with Linux's names. The
 * "memory" clobbers make each one a compiler barrier: no access may move
 * into or out of an interrupts-off section.
 */
#ifndef ARCH_IRQFLAGS_H
#define ARCH_IRQFLAGS_H

#include <stdbool.h>
#include "cpu.h"

static inline void local_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void local_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline unsigned long arch_local_save_flags(void)
{
	return read_rflags();
}

static inline bool irqs_disabled_flags(unsigned long flags)
{
	return !(flags & RFLAGS_IF);
}

static inline bool irqs_disabled(void)
{
	return irqs_disabled_flags(arch_local_save_flags());
}

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = arch_local_save_flags();
	local_irq_disable();
	return flags;
}

static inline void local_irq_restore(unsigned long flags)
{
	if (!irqs_disabled_flags(flags))
		local_irq_enable();
}

#define local_irq_save(flags) ((flags) = arch_local_irq_save())

/* Enable interrupts and halt in one step: sti's one-instruction shadow
 * guarantees no interrupt is taken between the two. */
static inline void safe_halt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

#endif
