/*
 * The lock validator's LOCKDEP_WAIT_CONTEXT scenarios: a lock that may
 * sleep taken where it may not (under a raw spinlock, preemption or IRQs
 * off, in hardirq), and the correct nestings that stay silent
 * (lockdep_suite.h has the rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* ======================= LOCKDEP_WAIT_CONTEXT ======================= */
/* A lock that sleeps on PREEMPT_RT (spinlock_t, local_lock_t, mutex,
 * rt_mutex) where sleeping is not allowed: reported the same on RT=0 and
 * RT=1, and never as SLEEP_IN_ATOMIC as well. The sleeping lock is always
 * free, so nothing sleeps. */

#define EXPECT_WAIT_CONTEXT()                                                 \
	do {                                                                  \
		KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 0);      \
		KEXPECT_LOCKDEP_ONLY(LOCKDEP_WAIT_CONTEXT, 1);                \
	} while (0)

struct wc_pcp {
	local_lock_t lock;
	long n;
};

static DEFINE_RAW_SPINLOCK(wc_raw1);
static DEFINE_SPINLOCK(wc_spin1);

KTEST(lockdep, wait_spinlock_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw1);
	spin_lock(&wc_spin1);
	spin_unlock(&wc_spin1);
	raw_spin_unlock(&wc_raw1);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw2);
static DEFINE_MUTEX(wc_mutex2);

KTEST(lockdep, wait_mutex_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw2);
	mutex_lock(&wc_mutex2);
	mutex_unlock(&wc_mutex2);
	raw_spin_unlock(&wc_raw2);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw3);
static DEFINE_RT_MUTEX(wc_rtm3);

KTEST(lockdep, wait_rt_mutex_under_raw_spinlock_irqsave)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wc_raw3, flags);
	rt_mutex_lock(&wc_rtm3);
	rt_mutex_unlock(&wc_rtm3);
	raw_spin_unlock_irqrestore(&wc_raw3, flags);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw4);
static DEFINE_PER_CPU(struct wc_pcp, wc_pcp4) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_local_lock_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw4);
	local_lock(&wc_pcp4.lock);
	local_unlock(&wc_pcp4.lock);
	raw_spin_unlock(&wc_raw4);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin5);

KTEST(lockdep, wait_spinlock_under_preempt_disable)
{
	preempt_disable();
	spin_lock(&wc_spin5);
	spin_unlock(&wc_spin5);
	preempt_enable();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex6);

KTEST(lockdep, wait_mutex_under_preempt_disable)
{
	preempt_disable();
	mutex_lock(&wc_mutex6);
	mutex_unlock(&wc_mutex6);
	preempt_enable();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_PER_CPU(struct wc_pcp, wc_pcp7) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_local_lock_under_get_cpu)
{
	(void)get_cpu();
	local_lock(&wc_pcp7.lock);
	local_unlock(&wc_pcp7.lock);
	put_cpu();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin8);

KTEST(lockdep, wait_spinlock_irqs_disabled)
{
	local_irq_disable();
	spin_lock(&wc_spin8);
	spin_unlock(&wc_spin8);
	local_irq_enable();
	EXPECT_WAIT_CONTEXT();
}

/* spin_lock_irqsave() with IRQs already off: on RT=0 the lock did not
 * turn them off (the caller did), so it is still a sleeping lock taken
 * with IRQs off. */
static DEFINE_SPINLOCK(wc_spin8b);

KTEST(lockdep, wait_spinlock_irqsave_irqs_already_off)
{
	unsigned long outer, inner;

	local_irq_save(outer);
	spin_lock_irqsave(&wc_spin8b, inner);
	spin_unlock_irqrestore(&wc_spin8b, inner);
	local_irq_restore(outer);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex9);

KTEST(lockdep, wait_mutex_irqs_saved)
{
	unsigned long flags;

	local_irq_save(flags);
	mutex_lock(&wc_mutex9);
	mutex_unlock(&wc_mutex9);
	local_irq_restore(flags);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex10);

static void wc_mutex_irq_fn(void *arg)
{
	mutex_lock(&wc_mutex10);
	mutex_unlock(&wc_mutex10);
}

KTEST(lockdep, wait_mutex_in_hardirq)
{
	ktest_in_hardirq(wc_mutex_irq_fn, 0);
	KEXPECT_FALSE(mutex_is_locked(&wc_mutex10));
	EXPECT_WAIT_CONTEXT();
}

/* A mutex always sleeps: not under a spinlock_t or local_lock either
 * (they do not sleep on RT=0, but the mutex would still sleep with
 * preemption off there). */
static DEFINE_SPINLOCK(wc_spin11);
static DEFINE_MUTEX(wc_mutex11);

KTEST(lockdep, wait_mutex_under_spinlock)
{
	spin_lock(&wc_spin11);
	mutex_lock(&wc_mutex11);
	mutex_unlock(&wc_mutex11);
	spin_unlock(&wc_spin11);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_PER_CPU(struct wc_pcp, wc_pcp12) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_MUTEX(wc_mutex12);

KTEST(lockdep, wait_mutex_under_local_lock)
{
	local_lock(&wc_pcp12.lock);
	mutex_lock(&wc_mutex12);
	mutex_unlock(&wc_mutex12);
	local_unlock(&wc_pcp12.lock);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin13);
static DEFINE_RT_MUTEX(wc_rtm13);

KTEST(lockdep, wait_rt_mutex_under_spinlock_irqsave)
{
	unsigned long flags;

	spin_lock_irqsave(&wc_spin13, flags);
	rt_mutex_lock(&wc_rtm13);
	rt_mutex_unlock(&wc_rtm13);
	spin_unlock_irqrestore(&wc_spin13, flags);
	EXPECT_WAIT_CONTEXT();
}

/* --- the correct nestings: silent --- */

static DEFINE_SPINLOCK(wc_ok_plain);

KTEST(lockdep, wait_spinlock_in_task_silent)
{
	spin_lock(&wc_ok_plain);
	spin_unlock(&wc_ok_plain);
	spin_lock_irq(&wc_ok_plain);
	spin_unlock_irq(&wc_ok_plain);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_SPINLOCK(wc_ok_outer);
static DEFINE_SPINLOCK(wc_ok_inner);

KTEST(lockdep, wait_spinlock_in_spinlock_silent)
{
	spin_lock(&wc_ok_outer);
	spin_lock(&wc_ok_inner);
	spin_unlock(&wc_ok_inner);
	spin_unlock(&wc_ok_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* On RT=0 spin_lock_irqsave turns IRQs off for real, but on RT it would
 * not: the inner spinlock_t is fine. */
static DEFINE_SPINLOCK(wc_ok_irq_outer);
static DEFINE_SPINLOCK(wc_ok_irq_inner);

KTEST(lockdep, wait_spinlock_in_spinlock_irqsave_silent)
{
	unsigned long flags;

	spin_lock_irqsave(&wc_ok_irq_outer, flags);
	spin_lock(&wc_ok_irq_inner);
	spin_unlock(&wc_ok_irq_inner);
	spin_unlock_irqrestore(&wc_ok_irq_outer, flags);
	spin_lock_irq(&wc_ok_irq_outer);
	spin_lock(&wc_ok_irq_inner);
	spin_unlock(&wc_ok_irq_inner);
	spin_unlock_irq(&wc_ok_irq_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* local_lock and spinlock_t nest either way (different inner locks, so
 * the two orders are no cycle). */
static DEFINE_PER_CPU(struct wc_pcp, wc_ok_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(wc_ok_ll_in);
static DEFINE_SPINLOCK(wc_ok_ll_out);

KTEST(lockdep, wait_local_lock_and_spinlock_silent)
{
	unsigned long flags;

	local_lock(&wc_ok_pcp.lock);
	spin_lock(&wc_ok_ll_in);
	spin_unlock(&wc_ok_ll_in);
	local_unlock(&wc_ok_pcp.lock);
	local_lock_irqsave(&wc_ok_pcp.lock, flags);
	spin_lock(&wc_ok_ll_in);
	spin_unlock(&wc_ok_ll_in);
	local_unlock_irqrestore(&wc_ok_pcp.lock, flags);
	spin_lock(&wc_ok_ll_out);
	local_lock(&wc_ok_pcp.lock);
	local_unlock(&wc_ok_pcp.lock);
	spin_unlock(&wc_ok_ll_out);
	KEXPECT_LOCKDEP_NONE();
}

/* Under a mutex anything goes. */
static DEFINE_MUTEX(wc_ok_mutex);
static DEFINE_SPINLOCK(wc_ok_m_spin);
static DEFINE_RAW_SPINLOCK(wc_ok_m_raw);
static DEFINE_PER_CPU(struct wc_pcp, wc_ok_m_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_locks_in_mutex_silent)
{
	mutex_lock(&wc_ok_mutex);
	spin_lock(&wc_ok_m_spin);
	spin_unlock(&wc_ok_m_spin);
	raw_spin_lock(&wc_ok_m_raw);
	raw_spin_unlock(&wc_ok_m_raw);
	local_lock(&wc_ok_m_pcp.lock);
	local_unlock(&wc_ok_m_pcp.lock);
	mutex_unlock(&wc_ok_mutex);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_MUTEX(wc_ok_mm_outer);
static DEFINE_MUTEX(wc_ok_mm_inner);
static DEFINE_RT_MUTEX(wc_ok_mm_rtm);

KTEST(lockdep, wait_mutex_in_mutex_silent)
{
	mutex_lock(&wc_ok_mm_outer);
	mutex_lock(&wc_ok_mm_inner);
	rt_mutex_lock(&wc_ok_mm_rtm);
	rt_mutex_unlock(&wc_ok_mm_rtm);
	mutex_unlock(&wc_ok_mm_inner);
	mutex_unlock(&wc_ok_mm_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* A raw spinlock spins: fine anywhere. */
static DEFINE_SPINLOCK(wc_ok_r_spin);
static DEFINE_RAW_SPINLOCK(wc_ok_r_outer);
static DEFINE_RAW_SPINLOCK(wc_ok_r_inner);

KTEST(lockdep, wait_raw_spinlock_anywhere_silent)
{
	unsigned long flags;

	spin_lock(&wc_ok_r_spin);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	spin_unlock(&wc_ok_r_spin);
	raw_spin_lock(&wc_ok_r_outer);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_outer);
	preempt_disable();
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	preempt_enable();
	local_irq_save(flags);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	local_irq_restore(flags);
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock does not wait: not checked. */
static DEFINE_MUTEX(wc_ok_try_mutex);
static DEFINE_RAW_SPINLOCK(wc_ok_try_raw);

KTEST(lockdep, wait_trylock_under_raw_spinlock_silent)
{
	bool got;

	raw_spin_lock(&wc_ok_try_raw);
	got = mutex_trylock(&wc_ok_try_mutex);
	if (got)
		mutex_unlock(&wc_ok_try_mutex);
	raw_spin_unlock(&wc_ok_try_raw);
	KEXPECT_TRUE(got);
	KEXPECT_LOCKDEP_NONE();
}

/* Migration disabled is not atomic: a sleeping lock is fine there. */
static DEFINE_MUTEX(wc_ok_migr);

KTEST(lockdep, wait_mutex_migrate_disabled_silent)
{
	migrate_disable();
	mutex_lock(&wc_ok_migr);
	mutex_unlock(&wc_ok_migr);
	migrate_enable();
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
