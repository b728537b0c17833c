/*
 * The validator's softirq state (kernel/locking/lockdep_graph.c), as
 * Linux's: a lock taken in softirq context is SOFTIRQ-safe, one taken
 * with IRQs and BHs on SOFTIRQ-unsafe; one class in both, or a
 * SOFTIRQ-safe lock held before a SOFTIRQ-unsafe one, is reported
 * (LOCKDEP_IRQ_STATE), with BHs off in task context it is not.
 */
#include "bottom_half.h"
#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "spinlock.h"

static DEFINE_RAW_SPINLOCK(sl_both);
static DEFINE_RAW_SPINLOCK(sl_bh_off);
static DEFINE_RAW_SPINLOCK(sl_safe);
static DEFINE_RAW_SPINLOCK(sl_unsafe);

static void take(void *lock)
{
	raw_spin_lock(lock);
	raw_spin_unlock(lock);
}

KTEST(softirq, lock_in_softirq_and_with_bhs_on_is_reported)
{
	ktest_in_softirq(take, &sl_both);
	take(&sl_both); /* a softirq could come in here and deadlock */
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_IRQ_STATE, 1);
}

KTEST(softirq, lock_in_softirq_and_with_bhs_off_is_quiet)
{
	ktest_in_softirq(take, &sl_bh_off);
	local_bh_disable();
	take(&sl_bh_off);
	local_bh_enable();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_IRQ_STATE, 0);
}

static void take_safe(void *unused)
{
	take(&sl_safe);
}

KTEST(softirq, softirq_safe_before_unsafe_is_reported)
{
	ktest_in_softirq(take_safe, 0); /* SOFTIRQ-safe */
	take(&sl_unsafe);               /* SOFTIRQ-unsafe */
	local_bh_disable();
	raw_spin_lock(&sl_safe);
	raw_spin_lock(&sl_unsafe);      /* safe -> unsafe */
	raw_spin_unlock(&sl_unsafe);
	raw_spin_unlock(&sl_safe);
	local_bh_enable();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_IRQ_STATE, 1);
}
