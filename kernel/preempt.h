/*
 * The per-CPU preempt count, laid out as in Linux: the low byte counts
 * preempt_disable() nesting, the next byte softirq (unused here), then the
 * hardirq nesting. Zero means the running code may be preempted.
 */
#ifndef PREEMPT_H
#define PREEMPT_H

#include <stdbool.h>
#include "irqflags.h"
#include "percpu.h"

#define PREEMPT_OFFSET 1
#define HARDIRQ_SHIFT 16
#define HARDIRQ_OFFSET (1 << HARDIRQ_SHIFT)
#define PREEMPT_MASK 0x000000ff
#define HARDIRQ_MASK 0x000f0000
#define NMI_OFFSET (1 << 20)
#define NMI_MASK 0x00100000

DECLARE_PER_CPU(int, __preempt_count);

static inline int preempt_count(void)
{
	return raw_cpu_read(__preempt_count);
}

static inline bool in_irq(void)
{
	return preempt_count() & HARDIRQ_MASK;
}

static inline bool in_nmi(void)
{
	return preempt_count() & NMI_MASK;
}

static inline bool in_interrupt(void)
{
	return preempt_count() & (HARDIRQ_MASK | NMI_MASK);
}

/* Interrupt entry and exit bracket every handler (trap_dispatch). */
static inline void irq_enter(void)
{
	raw_cpu_add(__preempt_count, HARDIRQ_OFFSET);
}

static inline void irq_exit(void)
{
	raw_cpu_sub(__preempt_count, HARDIRQ_OFFSET);
}

#endif
