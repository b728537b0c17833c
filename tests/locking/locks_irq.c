/*
 * The interrupt state the _irq and _irqsave forms of the locks leave
 * (kernel/locking/spinlock.h, local_lock.h; see docs/locks.md): the raw
 * forms turn IRQs and preemption off and restore what they found;
 * spinlock_t and local_lock_t do the same on RT=0, while on RT=1 they
 * sleep, so IRQs and preemption stay on and migration is off. What each
 * form gives in each world is the lock-kind table's held[] row.
 */
#include <stdbool.h>

#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "lockdep.h"
#include "percpu.h"
#include "spinlock.h"

struct ll_irq {
	local_lock_t lock;
};

static DEFINE_RAW_SPINLOCK(irq_raw);
static DEFINE_SPINLOCK(irq_spin);
static DEFINE_PER_CPU(struct ll_irq, irq_ll) = {.lock = INIT_LOCAL_LOCK(lock)};

struct irq_record {
	struct lock_ctx inside;
	bool held_inside;  /* the lock says it is held (RT=0 local_lock_t has
			    * no state: held as long as inside) */
	bool off_after;    /* IRQs off after the release */
};

/* Takes l in its form, entered with IRQs off if enter_off, and records. */
static struct irq_record take_and_record(struct any_lock *l, bool enter_off)
{
	struct irq_record r;

	if (enter_off)
		local_irq_disable();
	any_lock_acquire(l);
	r.inside = lock_ctx_now();
	r.held_inside = !any_lock_ops(l)->is_locked || any_lock_is_locked(l);
	any_lock_release(l);
	r.off_after = irqs_disabled();
	if (enter_off)
		local_irq_enable();
	return r;
}

/*
 * Each IRQ form of lock, entered with IRQs on, gives the table's context
 * inside and leaves IRQs on; where the _irqsave form turns them off, it
 * also keeps them off, inside and after, when entered with them off.
 * That is fine for a raw spinlock; for a lock that sleeps on RT (taken so
 * only on RT=0) it is a sleeping lock with IRQs off, and the validator
 * says so.
 */
static void check_irq_forms(enum lock_kind k, void *lock)
{
	const struct lock_kind_ops *ops = &lock_kinds[k];
	struct lock_ctx base = lock_ctx_now(), none = {0}, after;
	struct any_lock l = ANY_LOCK(k, lock);

	KASSERT_FALSE(base.irqs_off);
	for (l.form = LOCK_IRQ; l.form <= LOCK_IRQSAVE; l.form++) {
		struct irq_record r = take_and_record(&l, false);

		ktest_log("RT=%d: %s form %d: IRQs %s, preempt count %d, "
			  "migration disabled %d",
			  IS_ENABLED(CONFIG_PREEMPT_RT), ops->name, l.form,
			  r.inside.irqs_off ? "off" : "on", r.inside.preempt,
			  r.inside.migrate);
		KEXPECT_TRUE(r.held_inside);
		KEXPECT_HELD_CTX(r.inside, base, &ops->held[l.form]);
		KEXPECT_FALSE(r.off_after);
	}
	if (ops->held[LOCK_IRQSAVE].irqs_off) {
		struct irq_record r;

		l.form = LOCK_IRQSAVE;
		r = take_and_record(&l, true);
		KEXPECT_TRUE(r.inside.irqs_off);
		KEXPECT_TRUE(r.off_after);
		if (ops->rt_sleeps)
			KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 1);
	}
	after = lock_ctx_now();
	KEXPECT_HELD_CTX(after, base, &none);
	if (ops->is_locked)
		KEXPECT_FALSE(ops->is_locked(lock));
}

/* raw_spin_lock_irqsave() and raw_spin_lock_irq() disable IRQs and
 * preemption, and the restore gives back the state found, whether IRQs
 * were on or off; nested saves restore in turn. */
KTEST(locks, raw_spin_lock_irqsave_restores_state)
{
	static DEFINE_RAW_SPINLOCK(inner);
	int pc0 = preempt_count();
	bool inner_off, inner_after, outer_after;
	unsigned long f1, f2;
	int pc_nested;

	check_irq_forms(LOCK_RAW, &irq_raw);

	raw_spin_lock_irqsave(&irq_raw, f1);
	raw_spin_lock_irqsave(&inner, f2);
	inner_off = irqs_disabled();
	pc_nested = preempt_count();
	raw_spin_unlock_irqrestore(&inner, f2);
	inner_after = irqs_disabled();
	raw_spin_unlock_irqrestore(&irq_raw, f1);
	outer_after = irqs_disabled();

	KEXPECT_TRUE(inner_off);
	KEXPECT_EQ(pc_nested, pc0 + 2);
	KEXPECT_TRUE(inner_after);
	KEXPECT_FALSE(outer_after);
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_FALSE(raw_spin_is_locked(&inner));
}

/* spin_lock_irqsave()/spin_lock_irq(): on RT=0 they disable IRQs (and
 * preemption) like the raw forms and restore what they found; on RT=1 the
 * lock sleeps, so IRQs and preemption stay on, and migration is off. */
KTEST(locks, spin_lock_irqsave_irq_state_per_world)
{
	check_irq_forms(LOCK_SPIN, &irq_spin);
}

/* local_lock_irqsave(): IRQs off on RT=0 (and restored as found); on RT=1
 * IRQs stay on and this CPU's lock is taken with migration off (by the
 * local lock, and again by the spinlock_t it is). */
KTEST(locks, local_lock_irqsave_irq_state_per_world)
{
	check_irq_forms(LOCK_LOCAL, &irq_ll.lock);
}
