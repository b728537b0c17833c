/*
 * The interrupt flag (RFLAGS.IF): the arch half of Linux's irqflags. The
 * core calls the local_irq_*() names of kernel/irqflags.h; these are what
 * they compile to. The "memory" clobbers make each one a compiler barrier:
 * no access may move into or out of an interrupts-off section.
 */
#ifndef _ASM_X86_IRQFLAGS_H
#define _ASM_X86_IRQFLAGS_H

#include <stdbool.h>
#include "asm/processor.h"

static inline void arch_local_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline void arch_local_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline unsigned long arch_local_save_flags(void)
{
	return read_rflags();
}

static inline bool arch_irqs_disabled_flags(unsigned long flags)
{
	return !(flags & RFLAGS_IF);
}

static inline unsigned long arch_local_irq_save(void)
{
	unsigned long flags = arch_local_save_flags();

	arch_local_irq_disable();
	return flags;
}

static inline void arch_local_irq_restore(unsigned long flags)
{
	if (!arch_irqs_disabled_flags(flags))
		arch_local_irq_enable();
}

/* Enable interrupts and halt in one step: sti's one-instruction shadow
 * guarantees no interrupt is taken between the two. */
static inline void arch_safe_halt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

#endif
