/*
 * The lock-kind table (lock_kind.h): each lock type's own calls behind
 * one signature. What differs between RT=0 and RT=1 is chosen with
 * IS_ENABLED() in the table, or by whole-function alternatives where a
 * type's members differ.
 */
#include "compiler.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "mutex.h"
#include "rtmutex.h"
#include "spinlock.h"

static void raw_lock(void *l, enum lock_form form, unsigned long *flags)
{
	raw_spinlock_t *r = l;

	if (form == LOCK_IRQ)
		raw_spin_lock_irq(r);
	else if (form == LOCK_IRQSAVE)
		raw_spin_lock_irqsave(r, *flags);
	else
		raw_spin_lock(r);
}

static void raw_unlock(void *l, enum lock_form form, unsigned long flags)
{
	raw_spinlock_t *r = l;

	if (form == LOCK_IRQ)
		raw_spin_unlock_irq(r);
	else if (form == LOCK_IRQSAVE)
		raw_spin_unlock_irqrestore(r, flags);
	else
		raw_spin_unlock(r);
}

static bool raw_trylock(void *l)
{
	return raw_spin_trylock((raw_spinlock_t *)l);
}

static bool raw_is_locked(void *l)
{
	return raw_spin_is_locked(l);
}

static void spin_lock_form(void *l, enum lock_form form, unsigned long *flags)
{
	spinlock_t *s = l;

	if (form == LOCK_IRQ)
		spin_lock_irq(s);
	else if (form == LOCK_IRQSAVE)
		spin_lock_irqsave(s, *flags);
	else
		spin_lock(s);
}

static void spin_unlock_form(void *l, enum lock_form form, unsigned long flags)
{
	spinlock_t *s = l;

	if (form == LOCK_IRQ)
		spin_unlock_irq(s);
	else if (form == LOCK_IRQSAVE)
		spin_unlock_irqrestore(s, flags);
	else
		spin_unlock(s);
}

static bool spin_trylock_op(void *l)
{
	return spin_trylock((spinlock_t *)l);
}

static bool spin_is_locked_op(void *l)
{
	return spin_is_locked(l);
}

static void local_lock_form(void *l, enum lock_form form, unsigned long *flags)
{
	local_lock_t *ll = l;

	if (form == LOCK_PLAIN)
		local_lock(ll);
	else
		local_lock_irqsave(ll, *flags);
}

static void local_unlock_form(void *l, enum lock_form form,
			      unsigned long flags)
{
	local_lock_t *ll = l;

	if (form == LOCK_PLAIN)
		local_unlock(ll);
	else
		local_unlock_irqrestore(ll, flags);
}

#ifdef CONFIG_PREEMPT_RT
/* spinlock_t and this CPU's local_lock_t are rt_mutexes underneath. */
static struct rt_mutex *spin_rtmutex(void *l)
{
	return &((spinlock_t *)l)->lock;
}

static struct rt_mutex *local_rtmutex(void *l)
{
	return &raw_cpu_ptr((local_lock_t *)l)->lock;
}

static bool local_is_locked(void *l)
{
	return spin_is_locked(raw_cpu_ptr((local_lock_t *)l));
}
#else
#define spin_rtmutex 0
#define local_rtmutex 0
#define local_is_locked 0
#endif

static void mutex_lock_form(void *l, enum lock_form form, unsigned long *flags)
{
	mutex_lock(l);
}

static void mutex_unlock_form(void *l, enum lock_form form,
			      unsigned long flags)
{
	mutex_unlock(l);
}

static bool mutex_trylock_op(void *l)
{
	return mutex_trylock(l);
}

static bool mutex_is_locked_op(void *l)
{
	return mutex_is_locked(l);
}

static struct rt_mutex *mutex_rtmutex(void *l)
{
	return &((struct mutex *)l)->rtmutex;
}

static void rtmutex_lock_form(void *l, enum lock_form form,
			      unsigned long *flags)
{
	rt_mutex_lock(l);
}

static void rtmutex_unlock_form(void *l, enum lock_form form,
				unsigned long flags)
{
	rt_mutex_unlock(l);
}

static bool rtmutex_trylock_op(void *l)
{
	return rt_mutex_trylock(l);
}

static bool rtmutex_is_locked_op(void *l)
{
	return rt_mutex_is_locked(l);
}

static struct rt_mutex *rtmutex_self(void *l)
{
	return l;
}

#define RT IS_ENABLED(CONFIG_PREEMPT_RT)

const struct lock_kind_ops lock_kinds[NR_LOCK_KINDS] = {
	[LOCK_RAW] = {"raw_spinlock_t", false, true, raw_lock, raw_unlock,
		      raw_trylock, raw_is_locked, 0},
	[LOCK_SPIN] = {"spinlock_t", RT, !RT, spin_lock_form,
		       spin_unlock_form, spin_trylock_op, spin_is_locked_op,
		       spin_rtmutex},
	[LOCK_LOCAL] = {"local_lock_t", RT, !RT, local_lock_form,
			local_unlock_form, 0, local_is_locked, local_rtmutex},
	[LOCK_MUTEX] = {"mutex", true, false, mutex_lock_form,
			mutex_unlock_form, mutex_trylock_op,
			mutex_is_locked_op, mutex_rtmutex},
	[LOCK_RTMUTEX] = {"rt_mutex", true, false, rtmutex_lock_form,
			  rtmutex_unlock_form, rtmutex_trylock_op,
			  rtmutex_is_locked_op, rtmutex_self},
};

int lock_holder_fn(void *arg)
{
	struct lock_holder *h = arg;
	struct rt_mutex *rtm = any_lock_rtmutex(&h->lock);
	bool sleeps = any_lock_ops(&h->lock)->sleeps;

	any_lock_acquire(&h->lock);
	store_int(&h->held, 1);
	ktest_poll_until(load_int(&h->release), HOLDER_MAX_MS,
			 sleeps ? POLL_SLEEP : POLL_SPIN);
	h->held_at_release = rtm ? rt_mutex_owner(rtm) == current
				 : any_lock_is_locked(&h->lock);
	any_lock_release(&h->lock);
	store_int(&h->done, 1);
	return 0;
}
