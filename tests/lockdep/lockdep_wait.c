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
	take_nested(R(wc_raw1), S(wc_spin1));
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw2);
static DEFINE_MUTEX(wc_mutex2);

KTEST(lockdep, wait_mutex_under_raw_spinlock)
{
	take_nested(R(wc_raw2), M(wc_mutex2));
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw3);
static DEFINE_RT_MUTEX(wc_rtm3);

KTEST(lockdep, wait_rt_mutex_under_raw_spinlock_irqsave)
{
	take_nested(R_IRQSAVE(wc_raw3), RT(wc_rtm3));
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw4);
static DEFINE_PER_CPU(struct wc_pcp, wc_pcp4) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_local_lock_under_raw_spinlock)
{
	take_nested(R(wc_raw4), L(wc_pcp4.lock));
	EXPECT_WAIT_CONTEXT();
}

/* l taken and released with preemption off (by preempt_disable() or
 * get_cpu()) or with IRQs off. */
enum atomic_ctx { PREEMPT_OFF, GET_CPU, IRQS_OFF };

static void take_atomic(struct any_lock l, enum atomic_ctx ctx)
{
	unsigned long flags = 0;

	if (ctx == IRQS_OFF)
		local_irq_save(flags);
	else if (ctx == GET_CPU)
		(void)get_cpu();
	else
		preempt_disable();
	any_lock_acquire(&l);
	any_lock_release(&l);
	if (ctx == IRQS_OFF)
		local_irq_restore(flags);
	else
		preempt_enable(); /* put_cpu() */
}

static DEFINE_SPINLOCK(wc_spin5);
static DEFINE_MUTEX(wc_mutex6);
static DEFINE_PER_CPU(struct wc_pcp, wc_pcp7) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(wc_spin8);
static DEFINE_MUTEX(wc_mutex9);

KTEST(lockdep, wait_spinlock_under_preempt_disable)
{
	take_atomic(S(wc_spin5), PREEMPT_OFF);
	EXPECT_WAIT_CONTEXT();
}

KTEST(lockdep, wait_mutex_under_preempt_disable)
{
	take_atomic(M(wc_mutex6), PREEMPT_OFF);
	EXPECT_WAIT_CONTEXT();
}

KTEST(lockdep, wait_local_lock_under_get_cpu)
{
	take_atomic(L(wc_pcp7.lock), GET_CPU);
	EXPECT_WAIT_CONTEXT();
}

KTEST(lockdep, wait_spinlock_irqs_disabled)
{
	take_atomic(S(wc_spin8), IRQS_OFF);
	EXPECT_WAIT_CONTEXT();
}

/* spin_lock_irqsave() with IRQs already off: on RT=0 the lock did not
 * turn them off (the caller did), so it is still a sleeping lock taken
 * with IRQs off. */
static DEFINE_SPINLOCK(wc_spin8b);

KTEST(lockdep, wait_spinlock_irqsave_irqs_already_off)
{
	take_atomic(S_IRQSAVE(wc_spin8b), IRQS_OFF);
	EXPECT_WAIT_CONTEXT();
}

KTEST(lockdep, wait_mutex_irqs_saved)
{
	take_atomic(M(wc_mutex9), IRQS_OFF);
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
	take_nested(S(wc_spin11), M(wc_mutex11));
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_PER_CPU(struct wc_pcp, wc_pcp12) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_MUTEX(wc_mutex12);

KTEST(lockdep, wait_mutex_under_local_lock)
{
	take_nested(L(wc_pcp12.lock), M(wc_mutex12));
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin13);
static DEFINE_RT_MUTEX(wc_rtm13);

KTEST(lockdep, wait_rt_mutex_under_spinlock_irqsave)
{
	take_nested(S_IRQSAVE(wc_spin13), RT(wc_rtm13));
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
	take_nested(S(wc_ok_outer), S(wc_ok_inner));
	KEXPECT_LOCKDEP_NONE();
}

/* On RT=0 spin_lock_irqsave turns IRQs off for real, but on RT it would
 * not: the inner spinlock_t is fine. */
static DEFINE_SPINLOCK(wc_ok_irq_outer);
static DEFINE_SPINLOCK(wc_ok_irq_inner);

KTEST(lockdep, wait_spinlock_in_spinlock_irqsave_silent)
{
	take_nested(S_IRQSAVE(wc_ok_irq_outer), S(wc_ok_irq_inner));
	take_nested(S_IRQ(wc_ok_irq_outer), S(wc_ok_irq_inner));
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
	take_nested(L(wc_ok_pcp.lock), S(wc_ok_ll_in));
	take_nested(L_IRQSAVE(wc_ok_pcp.lock), S(wc_ok_ll_in));
	take_nested(S(wc_ok_ll_out), L(wc_ok_pcp.lock));
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
	take_nested(M(wc_ok_mm_inner), RT(wc_ok_mm_rtm));
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

	take_nested(S(wc_ok_r_spin), R(wc_ok_r_inner));
	take_nested(R(wc_ok_r_outer), R(wc_ok_r_inner));
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
