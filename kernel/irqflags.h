/*
 * Turning this CPU's interrupts off and on, with Linux's names. Each is a
 * compiler barrier (see asm/irqflags.h). local_irq_save() is a macro, as
 * in Linux, because it stores into its argument.
 *
 * With LOCKDEP=1, turning interrupts back on is an event the validator
 * sees (lockdep_hardirqs_on(), as Linux's): every lock still held is then
 * held with interrupts on, which is wrong for a lock an interrupt handler
 * takes. The raw_local_irq_*() forms are not seen: for the validator's
 * own code and for the lowest layers below it.
 */
#ifndef IRQFLAGS_H
#define IRQFLAGS_H

#include <stdbool.h>
#include "locking/lockdep.h"
#include "asm/irqflags.h"

#define raw_local_irq_save(flags)                                             \
	do {                                                                  \
		(flags) = arch_local_irq_save();                              \
	} while (0)

static inline void raw_local_irq_restore(unsigned long flags)
{
	arch_local_irq_restore(flags);
}

static inline void local_irq_disable(void)
{
	arch_local_irq_disable();
}

static inline void local_irq_enable(void)
{
	lockdep_hardirqs_on(_RET_IP_);
	arch_local_irq_enable();
}

#define local_irq_save(flags) raw_local_irq_save(flags)

static inline void local_irq_restore(unsigned long flags)
{
	if (!arch_irqs_disabled_flags(flags))
		lockdep_hardirqs_on(_RET_IP_);
	arch_local_irq_restore(flags);
}

static inline bool irqs_disabled_flags(unsigned long flags)
{
	return arch_irqs_disabled_flags(flags);
}

static inline bool irqs_disabled(void)
{
	return arch_irqs_disabled_flags(arch_local_save_flags());
}

/* Interrupts on and wait for one, with no window between the two. */
static inline void safe_halt(void)
{
	arch_safe_halt();
}

#endif
