/*
 * The interrupt state the _irq and _irqsave forms of the locks leave
 * (kernel/locking/spinlock.h, local_lock.h; see docs/locks.md): the raw forms
 * turn IRQs and preemption off and restore what they found; spinlock_t
 * and local_lock_t do the same on RT=0, while on RT=1 they sleep, so
 * IRQs and preemption stay on and migration is off. The per-world
 * expectations are tables indexed by RT_WORLD.
 */
#include <stdbool.h>

#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "lockdep.h"
#include "percpu.h"
#include "preempt.h"
#include "sched.h"
#include "spinlock.h"

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)

struct ll_irq {
	local_lock_t lock;
};

static DEFINE_RAW_SPINLOCK(irq_raw);
static DEFINE_SPINLOCK(irq_spin);
static DEFINE_PER_CPU(struct ll_irq, irq_ll) = {.lock = INIT_LOCAL_LOCK(lock)};

struct irq_record {
	bool off_inside, off_after, off_inner_after;
	int pc_inside;
	int md_inside;
};

/* raw_spin_lock_irqsave() disables IRQs and preemption and its restore
 * gives back the state found, whether IRQs were on or off; nested saves
 * restore in turn; the _irq forms disable and enable. */
KTEST(locks, raw_spin_lock_irqsave_restores_state)
{
	static DEFINE_RAW_SPINLOCK(inner);
	int pc0 = preempt_count();
	struct irq_record on = {0}, off = {0}, nest = {0}, irq = {0};
	unsigned long f1, f2;

	KASSERT_FALSE(irqs_disabled());

	raw_spin_lock_irqsave(&irq_raw, f1);
	on.off_inside = irqs_disabled();
	on.pc_inside = preempt_count();
	raw_spin_unlock_irqrestore(&irq_raw, f1);
	on.off_after = irqs_disabled();

	local_irq_disable();
	raw_spin_lock_irqsave(&irq_raw, f1);
	off.off_inside = irqs_disabled();
	off.pc_inside = preempt_count();
	raw_spin_unlock_irqrestore(&irq_raw, f1);
	off.off_after = irqs_disabled();
	local_irq_enable();

	raw_spin_lock_irqsave(&irq_raw, f1);
	raw_spin_lock_irqsave(&inner, f2);
	nest.off_inside = irqs_disabled();
	nest.pc_inside = preempt_count();
	raw_spin_unlock_irqrestore(&inner, f2);
	nest.off_inner_after = irqs_disabled();
	raw_spin_unlock_irqrestore(&irq_raw, f1);
	nest.off_after = irqs_disabled();

	raw_spin_lock_irq(&irq_raw);
	irq.off_inside = irqs_disabled();
	irq.pc_inside = preempt_count();
	raw_spin_unlock_irq(&irq_raw);
	irq.off_after = irqs_disabled();

	KEXPECT_TRUE(on.off_inside);
	KEXPECT_EQ(on.pc_inside, pc0 + 1);
	KEXPECT_FALSE(on.off_after);
	KEXPECT_TRUE(off.off_inside);
	KEXPECT_EQ(off.pc_inside, pc0 + 1);
	KEXPECT_TRUE(off.off_after);
	KEXPECT_TRUE(nest.off_inside);
	KEXPECT_EQ(nest.pc_inside, pc0 + 2);
	KEXPECT_TRUE(nest.off_inner_after);
	KEXPECT_FALSE(nest.off_after);
	KEXPECT_TRUE(irq.off_inside);
	KEXPECT_EQ(irq.pc_inside, pc0 + 1);
	KEXPECT_FALSE(irq.off_after);
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_FALSE(raw_spin_is_locked(&irq_raw));
	KEXPECT_FALSE(raw_spin_is_locked(&inner));
}

/* What a lock's _irqsave form leaves inside, per world (index RT). */
struct irqsave_expect {
	bool irqs_off;     /* IRQs off */
	int pc;            /* preempt count added */
	int md;            /* migration-disable count added */
};

static void expect_inside(const struct irq_record *r, int pc0, int md0,
			  const struct irqsave_expect *e)
{
	KEXPECT_EQ(r->off_inside, e->irqs_off);
	KEXPECT_EQ(r->pc_inside, pc0 + e->pc);
	KEXPECT_EQ(r->md_inside, md0 + e->md);
}

/* RT=0 only (on RT=1 a sleeping lock may not be taken with IRQs off):
 * entered with IRQs off, the _irqsave form leaves them off, inside and
 * after. Fine there, but a sleeping lock with IRQs off on RT: the
 * validator says so. */
static void expect_irqsave_keeps_irqs_off(struct any_lock *l)
{
	struct irq_record off = {0};

	local_irq_disable();
	any_lock_acquire(l);
	off.off_inside = irqs_disabled();
	any_lock_release(l);
	off.off_after = irqs_disabled();
	local_irq_enable();
	KEXPECT_TRUE(off.off_inside);
	KEXPECT_TRUE(off.off_after);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 1);
}

/* spin_lock_irqsave()/spin_lock_irq(): on RT=0 they disable IRQs (and
 * preemption) like the raw forms and restore what they found; on RT=1 the
 * lock sleeps, so IRQs and preemption stay on, and migration is off. */
static const struct irqsave_expect spin_irqsave_expect[2] = {
	[0] = {.irqs_off = true, .pc = 1, .md = 0},
	[1] = {.irqs_off = false, .pc = 0, .md = 1},
};

KTEST(locks, spin_lock_irqsave_irq_state_per_world)
{
	const struct irqsave_expect *e =
		&spin_irqsave_expect[RT_WORLD];
	int pc0 = preempt_count(), md0 = current->migration_disabled;
	struct irq_record sv = {0}, irq = {0};
	unsigned long flags;

	KASSERT_FALSE(irqs_disabled());

	spin_lock_irqsave(&irq_spin, flags);
	sv.off_inside = irqs_disabled();
	sv.pc_inside = preempt_count();
	sv.md_inside = current->migration_disabled;
	spin_unlock_irqrestore(&irq_spin, flags);
	sv.off_after = irqs_disabled();

	spin_lock_irq(&irq_spin);
	irq.off_inside = irqs_disabled();
	irq.pc_inside = preempt_count();
	irq.md_inside = current->migration_disabled;
	spin_unlock_irq(&irq_spin);
	irq.off_after = irqs_disabled();

	ktest_log("RT=%d: spin_lock_irqsave: IRQs %s, preempt count %d, "
		  "migration disabled %d", RT_WORLD,
		  sv.off_inside ? "off" : "on", sv.pc_inside, sv.md_inside);
	expect_inside(&sv, pc0, md0, e);
	expect_inside(&irq, pc0, md0, e);
	if (e->irqs_off) {
		struct any_lock l =
			ANY_LOCK_FORM(LOCK_SPIN, &irq_spin, LOCK_IRQSAVE);

		expect_irqsave_keeps_irqs_off(&l);
	}
	KEXPECT_FALSE(sv.off_after);
	KEXPECT_FALSE(irq.off_after);
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_EQ(current->migration_disabled, md0);
	KEXPECT_FALSE(spin_is_locked(&irq_spin));
}

/* local_lock_irqsave(): IRQs off on RT=0 (and restored as found); on RT=1
 * IRQs stay on and this CPU's lock is taken with migration off (by the
 * local lock, and again by the spinlock_t it is). */
static const struct irqsave_expect local_irqsave_expect[2] = {
	[0] = {.irqs_off = true, .pc = 0, .md = 0},
	[1] = {.irqs_off = false, .pc = 0, .md = 2},
};

KTEST(locks, local_lock_irqsave_irq_state_per_world)
{
	const struct irqsave_expect *e =
		&local_irqsave_expect[RT_WORLD];
	struct any_lock l = {.kind = LOCK_LOCAL, .lock = &irq_ll.lock,
			     .form = LOCK_IRQSAVE};
	int pc0 = preempt_count(), md0 = current->migration_disabled;
	struct irq_record sv = {0};
	bool has_state = lock_kinds[LOCK_LOCAL].is_locked, held_inside;

	KASSERT_FALSE(irqs_disabled());
	any_lock_acquire(&l);
	sv.off_inside = irqs_disabled();
	sv.pc_inside = preempt_count();
	sv.md_inside = current->migration_disabled;
	/* An RT=0 local_lock_t has no state: held as long as inside. */
	held_inside = !has_state || any_lock_is_locked(&l);
	any_lock_release(&l);
	sv.off_after = irqs_disabled();

	ktest_log("RT=%d: local_lock_irqsave: IRQs %s, preempt count %d, "
		  "migration disabled %d", RT_WORLD,
		  sv.off_inside ? "off" : "on", sv.pc_inside, sv.md_inside);
	KEXPECT_TRUE(held_inside);
	expect_inside(&sv, pc0, md0, e);
	if (has_state)
		KEXPECT_FALSE(any_lock_is_locked(&l));
	if (e->irqs_off)
		expect_irqsave_keeps_irqs_off(&l);
	KEXPECT_FALSE(sv.off_after);
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_EQ(current->migration_disabled, md0);
}
