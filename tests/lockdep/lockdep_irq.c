/*
 * The lock validator's LOCKDEP_IRQ_STATE scenarios: a class used in
 * hardirq and held with IRQs on, and an IRQ-safe class taken before an
 * IRQ-unsafe one, directly or through a path (lockdep_suite.h has the
 * rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* ======================= LOCKDEP_IRQ_STATE ======================= */
/* (Raw spinlocks only: on RT=1 spinlock_t's _irqsave leaves IRQs on.) */

static void irq_lock_fn(void *arg)
{
	raw_spinlock_t *l = arg;

	raw_spin_lock(l);
	raw_spin_unlock(l);
}

/* Taken in hardirq, then in a task with IRQs on: an interrupt on a CPU
 * whose task holds it would deadlock. */
static DEFINE_RAW_SPINLOCK(irq_then_task);

KTEST(lockdep, irq_hardirq_then_task_irqs_on)
{
	ktest_in_hardirq(irq_lock_fn, &irq_then_task);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock(&irq_then_task);
	raw_spin_unlock(&irq_then_task);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

static DEFINE_RAW_SPINLOCK(irq_task_then);

KTEST(lockdep, irq_task_irqs_on_then_hardirq)
{
	raw_spin_lock(&irq_task_then);
	raw_spin_unlock(&irq_task_then);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_in_hardirq(irq_lock_fn, &irq_task_then);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The inconsistency is reported once, however often it is repeated. */
static DEFINE_RAW_SPINLOCK(irq_once);

KTEST(lockdep, irq_inconsistent_reported_once)
{
	ktest_in_hardirq(irq_lock_fn, &irq_once);
	for (int i = 0; i < 3; i++) {
		raw_spin_lock(&irq_once);
		raw_spin_unlock(&irq_once);
		ktest_in_hardirq(irq_lock_fn, &irq_once);
	}
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The task side with IRQs off (_irqsave, _irq) is the correct pattern. */
static DEFINE_RAW_SPINLOCK(irq_irqsave_ok);

KTEST(lockdep, irq_hardirq_and_task_irqsave_silent)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_irqsave_ok);
	raw_spin_lock_irqsave(&irq_irqsave_ok, flags);
	raw_spin_unlock_irqrestore(&irq_irqsave_ok, flags);
	ktest_in_hardirq(irq_lock_fn, &irq_irqsave_ok);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_RAW_SPINLOCK(irq_irq_ok);

KTEST(lockdep, irq_hardirq_and_task_lock_irq_silent)
{
	raw_spin_lock_irq(&irq_irq_ok);
	raw_spin_unlock_irq(&irq_irq_ok);
	ktest_in_hardirq(irq_lock_fn, &irq_irq_ok);
	raw_spin_lock_irq(&irq_irq_ok);
	raw_spin_unlock_irq(&irq_irq_ok);
	KEXPECT_LOCKDEP_NONE();
}

/* Taken with IRQs off, but IRQs turned back on while it is still held:
 * the handler that takes it can now interrupt the holder. Also through
 * the unlock of an inner lock that restores IRQs. */
static DEFINE_RAW_SPINLOCK(irq_held_on);
static DEFINE_RAW_SPINLOCK(irq_held_on_inner);

KTEST(lockdep, irq_enabled_while_holding_hardirq_lock)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_held_on);
	raw_spin_lock_irqsave(&irq_held_on, flags);
	local_irq_enable();
	local_irq_disable();
	raw_spin_unlock_irqrestore(&irq_held_on, flags);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

KTEST(lockdep, irq_enabled_by_inner_unlock_while_holding)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_held_on);
	local_irq_save(flags);
	raw_spin_lock(&irq_held_on);
	raw_spin_lock_irq(&irq_held_on_inner);
	raw_spin_unlock_irq(&irq_held_on_inner);
	local_irq_disable();
	raw_spin_unlock(&irq_held_on);
	local_irq_restore(flags);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_IRQ_STATE), 1);
}

/* A lock no interrupt takes may be held with IRQs turned on. */
static DEFINE_RAW_SPINLOCK(irq_task_only);

KTEST(lockdep, irq_enabled_while_holding_task_lock_silent)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&irq_task_only, flags);
	local_irq_enable();
	local_irq_disable();
	raw_spin_unlock_irqrestore(&irq_task_only, flags);
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock in hardirq cannot deadlock there, so it does not make the
 * class IRQ-safe: a later plain use with IRQs on is fine. */
static DEFINE_RAW_SPINLOCK(irq_try);

static void irq_trylock_fn(void *arg)
{
	bool *got = arg;

	*got = raw_spin_trylock(&irq_try);
	if (*got)
		raw_spin_unlock(&irq_try);
}

KTEST(lockdep, irq_hardirq_trylock_silent)
{
	bool got = false;

	ktest_in_hardirq(irq_trylock_fn, &got);
	KEXPECT_TRUE(got);
	raw_spin_lock(&irq_try);
	raw_spin_unlock(&irq_try);
	KEXPECT_LOCKDEP_NONE();
}

/* IRQ-safe A (used in hardirq) taken before IRQ-unsafe B (taken with IRQs
 * on elsewhere): while a task holds B with IRQs on, an interrupt taking
 * A waits for a CPU that waits for B. */
static DEFINE_RAW_SPINLOCK(irq_order_safe);
static DEFINE_RAW_SPINLOCK(irq_order_unsafe);

KTEST(lockdep, irq_safe_before_unsafe)
{
	ktest_in_hardirq(irq_lock_fn, &irq_order_safe);
	raw_spin_lock(&irq_order_unsafe);
	raw_spin_unlock(&irq_order_unsafe);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_nested(R_IRQSAVE(irq_order_safe), R(irq_order_unsafe));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The reverse nesting (unsafe B held, safe A taken inside with IRQs off)
 * is fine. */
static DEFINE_RAW_SPINLOCK(irq_rev_safe);
static DEFINE_RAW_SPINLOCK(irq_rev_unsafe);

KTEST(lockdep, irq_unsafe_before_safe_silent)
{
	ktest_in_hardirq(irq_lock_fn, &irq_rev_safe);
	take_nested(R(irq_rev_unsafe), R_IRQSAVE(irq_rev_safe));
	KEXPECT_LOCKDEP_NONE();
}

/* The edge first (both with IRQs off, nothing wrong yet), the usages
 * after: the second usage completes the bad order and is reported. */
static DEFINE_RAW_SPINLOCK(irq_late_safe);
static DEFINE_RAW_SPINLOCK(irq_late_unsafe);

KTEST(lockdep, irq_usage_after_edge)
{
	take_nested(R_IRQSAVE(irq_late_safe), R_IRQSAVE(irq_late_unsafe));
	ktest_in_hardirq(irq_lock_fn, &irq_late_safe);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock(&irq_late_unsafe);
	raw_spin_unlock(&irq_late_unsafe);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* Safe A -> B -> unsafe C: the bad order through a lock in between. */
static DEFINE_RAW_SPINLOCK(irq_path_a);
static DEFINE_RAW_SPINLOCK(irq_path_b);
static DEFINE_RAW_SPINLOCK(irq_path_c);

KTEST(lockdep, irq_safe_before_unsafe_transitive)
{
	ktest_in_hardirq(irq_lock_fn, &irq_path_a);
	raw_spin_lock(&irq_path_c);
	raw_spin_unlock(&irq_path_c);
	take_nested(R_IRQSAVE(irq_path_b), R(irq_path_c));
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_nested(R_IRQSAVE(irq_path_a), R_IRQSAVE(irq_path_b));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

#endif /* CONFIG_LOCKDEP */
