/*
 * The lock-kind table (lock_kind.h): each lock type's own calls and
 * facts behind one signature. What differs between RT=0 and RT=1 is
 * chosen with IS_ENABLED() in the table, or by whole-function
 * alternatives where a type's members differ.
 */
#include "compiler.h"
#include "irqflags.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "spinlock.h"

/* ---- raw_spinlock_t ---- */

static int raw_lock(void *l, enum lock_form form, unsigned int subclass,
		    unsigned long *flags)
{
	if (form == LOCK_IRQ)
		raw_spin_lock_irq(l);
	else if (form == LOCK_IRQSAVE)
		raw_spin_lock_irqsave((raw_spinlock_t *)l, *flags);
	else
		raw_spin_lock_nested(l, subclass);
	return 0;
}

static void raw_unlock(void *l, enum lock_form form, unsigned long flags)
{
	if (form == LOCK_IRQ)
		raw_spin_unlock_irq(l);
	else if (form == LOCK_IRQSAVE)
		raw_spin_unlock_irqrestore(l, flags);
	else
		raw_spin_unlock(l);
}

static bool raw_trylock(void *l)
{
	return raw_spin_trylock(l);
}

static bool raw_is_locked(void *l)
{
	return raw_spin_is_locked(l);
}

static void raw_init(void *l, struct lock_class_key *key)
{
	raw_spin_lock_init((raw_spinlock_t *)l);
	if (key)
		lockdep_set_class((raw_spinlock_t *)l, key);
}

static void raw_pairs(void *l, size_t stride, int n, long *count)
{
	for (int i = 0; i < n; i++, l = (char *)l + stride) {
		raw_spin_lock(l);
		(*count)++;
		raw_spin_unlock(l);
	}
}

/* ---- spinlock_t ---- */

static int spin_lock_form(void *l, enum lock_form form, unsigned int subclass,
			  unsigned long *flags)
{
	if (form == LOCK_IRQ)
		spin_lock_irq(l);
	else if (form == LOCK_IRQSAVE)
		spin_lock_irqsave((spinlock_t *)l, *flags);
	else
		spin_lock_nested(l, subclass);
	return 0;
}

static void spin_unlock_form(void *l, enum lock_form form, unsigned long flags)
{
	if (form == LOCK_IRQ)
		spin_unlock_irq(l);
	else if (form == LOCK_IRQSAVE)
		spin_unlock_irqrestore(l, flags);
	else
		spin_unlock(l);
}

static bool spin_trylock_op(void *l)
{
	return spin_trylock(l);
}

static bool spin_is_locked_op(void *l)
{
	return spin_is_locked(l);
}

static void spin_init(void *l, struct lock_class_key *key)
{
	spin_lock_init((spinlock_t *)l);
	if (key)
		lockdep_set_class((spinlock_t *)l, key);
}

static void spin_pairs(void *l, size_t stride, int n, long *count)
{
	for (int i = 0; i < n; i++, l = (char *)l + stride) {
		spin_lock(l);
		(*count)++;
		spin_unlock(l);
	}
}

/* ---- local_lock_t: l is the per-CPU template address ---- */

static int local_lock_form(void *l, enum lock_form form, unsigned int subclass,
			   unsigned long *flags)
{
	local_lock_t *ll = l;

	if (form == LOCK_PLAIN)
		local_lock(ll);
	else
		local_lock_irqsave(ll, *flags);
	return 0;
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

static void local_pairs(void *l, size_t stride, int n, long *count)
{
	for (int i = 0; i < n; i++, l = (char *)l + stride) {
		local_lock((local_lock_t *)l);
		(*count)++;
		local_unlock((local_lock_t *)l);
	}
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

/* Each CPU's copy is a spinlock_t. */
static void local_init_copy(local_lock_t *l)
{
	spin_lock_init(l);
}
#else
#define spin_rtmutex 0
#define local_rtmutex 0
#define local_is_locked 0

/* Each CPU's copy is only the validator's map. */
static void local_init_copy(local_lock_t *l)
{
}
#endif

/* Set-up of every CPU's copy, before anyone takes it: the raw pointer. */
static void local_init(void *l, struct lock_class_key *key)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		local_lock_t *copy = raw_per_cpu_ptr((local_lock_t *)l, cpu);

		local_init_copy(copy);
		if (key)
			lockdep_set_class(copy, key);
	}
}

/* ---- struct mutex ---- */

static int mutex_lock_form(void *l, enum lock_form form, unsigned int subclass,
			   unsigned long *flags)
{
	mutex_lock_nested(l, subclass);
	return 0;
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

static void mutex_init_op(void *l, struct lock_class_key *key)
{
	mutex_init((struct mutex *)l);
	if (key)
		lockdep_set_class((struct mutex *)l, key);
}

static void mutex_pairs(void *l, size_t stride, int n, long *count)
{
	for (int i = 0; i < n; i++, l = (char *)l + stride) {
		mutex_lock(l);
		(*count)++;
		mutex_unlock(l);
	}
}

/* ---- struct rt_mutex ---- */

static int rtmutex_lock_form(void *l, enum lock_form form,
			     unsigned int subclass, unsigned long *flags)
{
	return subclass ? rt_mutex_lock_nested(l, subclass) : rt_mutex_lock(l);
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

static void rtmutex_init_op(void *l, struct lock_class_key *key)
{
	rt_mutex_init((struct rt_mutex *)l);
	if (key)
		lockdep_set_class((struct rt_mutex *)l, key);
}

static void rtmutex_pairs(void *l, size_t stride, int n, long *count)
{
	for (int i = 0; i < n; i++, l = (char *)l + stride) {
		rt_mutex_lock(l);
		(*count)++;
		rt_mutex_unlock(l);
	}
}

/* ---- the pool and the table ---- */

static raw_spinlock_t pool_raw[LOCK_POOL_SIZE];
static spinlock_t pool_spin[LOCK_POOL_SIZE];
static DEFINE_PER_CPU(local_lock_t[LOCK_POOL_SIZE], pool_local);
static struct mutex pool_mutex[LOCK_POOL_SIZE];
static struct rt_mutex pool_rtmutex[LOCK_POOL_SIZE];

#define RT IS_ENABLED(CONFIG_PREEMPT_RT)
#define CTX(pc, md, off) {.preempt = (pc), .migrate = (md), .irqs_off = (off)}
#define ALL_FORMS(ctx) {ctx, ctx, ctx}

const struct lock_kind_ops lock_kinds[NR_LOCK_KINDS] = {
	/* Spins in both worlds: preemption off, and IRQs in the IRQ forms. */
	[LOCK_RAW] = {
		.name = "raw_spinlock_t", .sleeps = false, .rt_sleeps = false,
		.held = {CTX(1, 0, 0), CTX(1, 0, 1), CTX(1, 0, 1)},
		.lock = raw_lock, .unlock = raw_unlock, .trylock = raw_trylock,
		.is_locked = raw_is_locked, .init = raw_init,
		.pairs = raw_pairs, .pool = pool_raw,
		.size = sizeof(*pool_raw)},
	/* RT=0 a raw spinlock; RT=1 an rt_mutex taken with migration off. */
	[LOCK_SPIN] = {
		.name = "spinlock_t", .sleeps = RT, .rt_sleeps = true,
		.held = {CTX(!RT, RT, 0), CTX(!RT, RT, !RT), CTX(!RT, RT, !RT)},
		.lock = spin_lock_form, .unlock = spin_unlock_form,
		.trylock = spin_trylock_op, .is_locked = spin_is_locked_op,
		.rtmutex = spin_rtmutex, .init = spin_init, .pairs = spin_pairs,
		.pool = pool_spin, .size = sizeof(*pool_spin)},
	/* RT=0 preemption off (_irqsave: IRQs off instead); RT=1 migration
	 * off, then this CPU's spinlock_t, which turns it off again. */
	[LOCK_LOCAL] = {
		.name = "local_lock_t", .sleeps = RT, .rt_sleeps = true,
		.percpu = true,
		.held = {CTX(!RT, 2 * RT, 0), CTX(0, 2 * RT, !RT),
			 CTX(0, 2 * RT, !RT)},
		.lock = local_lock_form, .unlock = local_unlock_form,
		.is_locked = local_is_locked, .rtmutex = local_rtmutex,
		.init = local_init, .pairs = local_pairs, .pool = &pool_local,
		.size = sizeof(local_lock_t)},
	/* The sleeping locks change nothing in their holder's context. */
	[LOCK_MUTEX] = {
		.name = "mutex", .sleeps = true, .rt_sleeps = true,
		.held = ALL_FORMS(CTX(0, 0, 0)),
		.lock = mutex_lock_form, .unlock = mutex_unlock_form,
		.trylock = mutex_trylock_op, .is_locked = mutex_is_locked_op,
		.rtmutex = mutex_rtmutex, .init = mutex_init_op,
		.pairs = mutex_pairs, .pool = pool_mutex,
		.size = sizeof(*pool_mutex)},
	[LOCK_RTMUTEX] = {
		.name = "rt_mutex", .sleeps = true, .rt_sleeps = true,
		.held = ALL_FORMS(CTX(0, 0, 0)),
		.lock = rtmutex_lock_form, .unlock = rtmutex_unlock_form,
		.trylock = rtmutex_trylock_op,
		.is_locked = rtmutex_is_locked_op,
		.rtmutex = rtmutex_self, .init = rtmutex_init_op,
		.pairs = rtmutex_pairs, .pool = pool_rtmutex,
		.size = sizeof(*pool_rtmutex)},
};

struct lock_ctx lock_ctx_now(void)
{
	return (struct lock_ctx){.preempt = preempt_count(),
				 .migrate = current->migration_disabled,
				 .irqs_off = irqs_disabled()};
}

int lock_holder_fn(void *arg)
{
	struct lock_holder *h = arg;
	struct rt_mutex *rtm = any_lock_rtmutex(&h->lock);
	bool sleeps = any_lock_ops(&h->lock)->sleeps;

	any_lock_acquire(&h->lock);
	store_int(&h->held, 1);
	ktest_helper_wait(load_int(&h->release),
			  sleeps ? POLL_SLEEP : POLL_SPIN);
	h->held_at_release = rtm ? rt_mutex_owner(rtm) == current
				 : any_lock_is_locked(&h->lock);
	any_lock_release(&h->lock);
	store_int(&h->done, 1);
	return 0;
}
