/*
 * The detector corpus (percpu_corpus.h): a task against hard interrupts on
 * the same copy (self-IPIs through ktest_in_hardirq(), cross-CPU calls
 * from another CPU), and the IRQ state rule: interrupts turned on while
 * holding a lock that hardirq takes.
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "irqflags.h"
#include "preempt.h"

/* ------------------------------------------------------------------ */
/* irq: task against hard interrupt on the same copy                   */
/* ------------------------------------------------------------------ */

/* Each pair scenario's copy. */
static DEFINE_PER_CPU(long, hp_v);
static DEFINE_PER_CPU(long, hi_v);
static DEFINE_PER_CPU(long, hl_v);
static DEFINE_PER_CPU(long, ip_v);
static DEFINE_PER_CPU(long, ii_v);
static DEFINE_PER_CPU(long, ho_v);

/* One raw spinlock in both, taken with IRQs off by the task. */
static DEFINE_RAW_SPINLOCK(hl_lock);

static void hl_irq_fn(void *arg)
{
	raw_spin_lock(&hl_lock);
	corpus_rmw(this_cpu_ptr((long *)arg));
	raw_spin_unlock(&hl_lock);
}

static void hl_irq(const struct corpus_side *side, long *var)
{
	corpus_raise_irq(corpus_cpu(), hl_irq_fn, var);
}

/* ------------------------------------------------------------------ */
/* irq_state: enabling interrupts while holding a hardirq lock          */
/* ------------------------------------------------------------------ */

/* Each lock below is taken in hardirq first (irq_lock_fn), then by the
 * test task. The per-CPU copy is always under the lock. */
static DEFINE_PER_CPU(long, is_v);

static void irq_lock_fn(void *arg)
{
	raw_spinlock_t *l = arg;

	raw_spin_lock(l);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock(l);
}

/* local_irq_enable() with the lock held: the interrupt that takes it can
 * now come and spin forever on this CPU. Racy. */
static DEFINE_RAW_SPINLOCK(ie_lock);

static long irq_enable_holding_hardirq_lock(void)
{
	ktest_in_hardirq(irq_lock_fn, &ie_lock);
	raw_spin_lock_irq(&ie_lock);
	(*this_cpu_ptr(&is_v))++;
	local_irq_enable();
	local_irq_disable();
	raw_spin_unlock_irq(&ie_lock);
	return CORPUS_NO_COUNT;
}

/* raw_spin_unlock_irq() of an inner lock turns interrupts on while the
 * outer, hardirq-used, lock is still held. Racy. */
static DEFINE_RAW_SPINLOCK(iu_outer);
static DEFINE_RAW_SPINLOCK(iu_inner);

static long unlock_irq_inner_holding_hardirq_lock(void)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &iu_outer);
	raw_spin_lock_irqsave(&iu_outer, flags);
	raw_spin_lock(&iu_inner);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock_irq(&iu_inner);
	local_irq_disable();
	raw_spin_unlock_irqrestore(&iu_outer, flags);
	return CORPUS_NO_COUNT;
}

/* irqsave/irqrestore around the hardirq lock. Correct. */
static DEFINE_RAW_SPINLOCK(ir_lock);

static long irqsave_hardirq_lock(void)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &ir_lock);
	raw_spin_lock_irqsave(&ir_lock, flags);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock_irqrestore(&ir_lock, flags);
	return CORPUS_NO_COUNT;
}

/* Interrupts on while holding a lock no interrupt takes. Correct. */
static DEFINE_RAW_SPINLOCK(it_lock);

static long irq_enable_holding_task_lock(void)
{
	raw_spin_lock_irq(&it_lock);
	local_irq_enable();
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock(&it_lock);
	return CORPUS_NO_COUNT;
}

const struct corpus_scenario corpus_irq[] = {
	/* Preemption off keeps other tasks out, not an interrupt. */
	RACY_PAIR(irq, hardirq_vs_preempt_off, 1, hp_v, SIDE(preempt_off, C),
		  SIDE(hardirq, IRQ_SRC)),
	/* IRQs off in the task. */
	CORRECT_PAIR(irq, hardirq_vs_irqs_off, 1, hi_v, SIDE(irqs_off, C),
		     SIDE(hardirq, IRQ_SRC)),
	/* One raw spinlock in both, taken with IRQs off by the task. */
	CORRECT_PAIR(irq, hardirq_vs_raw_lock_irqsave, 1, hl_v,
		     IRQSAVE_SIDE(locked, C, RAW, hl_lock),
		     OWN_SIDE(hl_irq, IRQ_SRC)),
	/* Interrupts from another CPU (smp_call_function_single) against a
	 * task with preemption off, and with IRQs off. */
	RACY_PAIR(irq, ipi_vs_preempt_off, 2, ip_v, SIDE(preempt_off, C),
		  SIDE(ipi, O)),
	CORRECT_PAIR(irq, ipi_vs_irqs_off, 2, ii_v, SIDE(irqs_off, C),
		     SIDE(ipi, O)),
	/* Only interrupt handlers use the copy; they do not nest. */
	CORRECT_PAIR(irq, hardirq_only, 1, ho_v, SIDE(hardirq, IRQ_SRC),
		     SIDE(hardirq, IRQ_SRC)),
	RACY(irq_state, irq_enable_holding_hardirq_lock, 1),
	RACY(irq_state, unlock_irq_inner_holding_hardirq_lock, 1),
	CORRECT(irq_state, irqsave_hardirq_lock, 1),
	CORRECT(irq_state, irq_enable_holding_task_lock, 1),
	{0},
};
