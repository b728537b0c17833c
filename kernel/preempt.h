/*
 * The per-CPU preempt count, laid out as in Linux: the low byte counts
 * preempt_disable() nesting, the next byte softirqs (SOFTIRQ_OFFSET while
 * one is served, SOFTIRQ_DISABLE_OFFSET per local_bh_disable(); RT=0
 * only: on PREEMPT_RT a BH section is preemptible and its count is the
 * task's, read by softirq_count() in sched/sched.h), then the hardirq
 * nesting. Zero means the running
 * code may be preempted.
 */
#ifndef PREEMPT_H
#define PREEMPT_H

#include "compiler.h"
#include <stdbool.h>
#include "debug/explore.h"
#include "irqflags.h"
#include "percpu_defs.h"

#define PREEMPT_OFFSET 1
#define HARDIRQ_SHIFT 16
#define HARDIRQ_OFFSET (1 << HARDIRQ_SHIFT)
#define PREEMPT_MASK 0x000000ff
#define SOFTIRQ_SHIFT 8
#define SOFTIRQ_OFFSET (1 << SOFTIRQ_SHIFT)
#define SOFTIRQ_DISABLE_OFFSET (2 * SOFTIRQ_OFFSET)
#define SOFTIRQ_MASK 0x0000ff00
#define HARDIRQ_MASK 0x000f0000
#define NMI_OFFSET (1 << 20)
#define NMI_MASK 0x00100000

DECLARE_PER_CPU(int, __preempt_count);
/* Set when this CPU should call schedule() at the next chance: a wakeup of
 * a higher-priority task, the end of a time slice, a pending migration. */
DECLARE_PER_CPU(bool, need_resched_flag);

void preempt_schedule(void);

static inline int preempt_count(void)
{
	return raw_cpu_read(__preempt_count);
}

/* In a hard interrupt handler, or an NMI (nmi_enter() counts both, as
 * Linux's). */
static inline bool in_hardirq(void)
{
	return preempt_count() & HARDIRQ_MASK;
}

/* Linux's older name for in_hardirq(). */
static inline bool in_irq(void)
{
	return in_hardirq();
}

static inline bool in_nmi(void)
{
	return preempt_count() & NMI_MASK;
}

static inline bool need_resched(void)
{
	return raw_cpu_read(need_resched_flag);
}

#ifdef CONFIG_LOCKDEP
/* How many times this CPU's preempt count has dropped to zero
 * (lockdep_percpu.c: a this_cpu read and write in two preempt-off
 * sections are two). Whether interrupts were on is not asked here, on
 * the hot path: the checker tells an interrupts-off section apart by
 * irqs_on_epoch. */
DECLARE_PER_CPU_STAT(unsigned long, preemptible_epoch);

static inline void lockdep_preempt_count_dropped(void)
{
	/* An add of 0 or 1, not a branch: under TCG each branch ends a
	 * translation block, and this is on every preempt_enable(). */
	raw_cpu_add(preemptible_epoch, raw_cpu_read(__preempt_count) == 0);
}
#else
static inline void lockdep_preempt_count_dropped(void)
{
}
#endif

/* Each is one %gs: instruction plus a compiler barrier: the critical
 * section may not be moved outside it. */
static inline void preempt_disable(void)
{
	raw_cpu_inc(__preempt_count);
	barrier();
}

static inline void preempt_enable_no_resched(void)
{
	barrier();
	raw_cpu_dec(__preempt_count);
	lockdep_preempt_count_dropped();
}

static inline void preempt_enable(void)
{
	barrier();
	raw_cpu_dec(__preempt_count);
	lockdep_preempt_count_dropped();
	if (unlikely(need_resched()) && preempt_count() == 0)
		preempt_schedule();
	explore_point(EXPLORE_PREEMPT_ENABLE);
}

/* True when the running code may be preempted (and so migrated, unless it
 * disabled migration). */
static inline bool preemptible(void)
{
	return preempt_count() == 0 && !irqs_disabled();
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
