/*
 * The detector corpus (percpu_corpus.h): protection by local_lock,
 * get_cpu_var()/get_cpu(), migrate_disable() (no protection against
 * another task on the CPU) and locks (the lockset: a common lock, or two
 * different ones).
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "irqflags.h"
#include "mutex.h"
#include "preempt.h"

/* Each scenario's copy (and lock); the table at the end says which. */
static DEFINE_PER_CPU(struct corpus_local_counter, ll2_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct corpus_local_counter, llo_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct corpus_local_counter, llp_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct corpus_local_counter, llr_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct corpus_local_counter, lli_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(long, gv_v);
static DEFINE_PER_CPU(long, gc_v);
static DEFINE_PER_CPU(long, gh_v);
static DEFINE_PER_CPU(long, gr_v);
static DEFINE_PER_CPU(long, gi_v);
static DEFINE_PER_CPU(long, md_v);
static DEFINE_PER_CPU(long, mdo_v);
static DEFINE_PER_CPU(long, mds_v);
static DEFINE_PER_CPU(struct corpus_counter, mdl_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(mdl_c.lock)};
static DEFINE_PER_CPU(long, l2_v);
static DEFINE_SPINLOCK(l2_a);
static DEFINE_SPINLOCK(l2_b);
static DEFINE_PER_CPU(long, lm_v);
static DEFINE_MUTEX(lm_mutex);

/* this_cpu_read()/this_cpu_write() under one local_lock. */
static void llo_step(const struct corpus_side *side, long *var)
{
	long x;

	local_lock(&llo_c.lock);
	x = this_cpu_read(*var);
	corpus_widen();
	this_cpu_write(*var, x + 1);
	local_unlock(&llo_c.lock);
}

/* local_lock_irqsave() against a hard interrupt, each updating this
 * CPU's copy of the whole struct. */
static void lli_task(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_lock_irqsave(&lli_c.lock, flags);
	corpus_rmw(&this_cpu_ptr(&lli_c)->n);
	local_unlock_irqrestore(&lli_c.lock, flags);
}

static void lli_irq_fn(void *arg)
{
	corpus_rmw(&this_cpu_ptr(&lli_c)->n);
}

static void lli_irq(const struct corpus_side *side, long *var)
{
	corpus_raise_irq(corpus_cpu(), lli_irq_fn, 0);
}

/* get_cpu(), per_cpu(v, cpu), put_cpu(). */
static void gc_step(const struct corpus_side *side, long *var)
{
	int cpu = get_cpu();

	corpus_rmw_per_cpu(var, cpu);
	put_cpu();
}

/* get_cpu_var() inside local_irq_save(). */
static void gi_task(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_step_get_cpu_var(side, var);
	local_irq_restore(flags);
}

/* this_cpu_read() then this_cpu_write() with migration disabled. */
static void mdo_step(const struct corpus_side *side, long *var)
{
	long x;

	migrate_disable();
	x = this_cpu_read(*var);
	corpus_widen();
	this_cpu_write(*var, x + 1);
	migrate_enable();
}

/* One unbound task, migration disabled around each update: every copy it
 * reaches is used by it alone. Correct. */
static long migrate_disable_single_task(void)
{
	corpus_zero(&mds_v);
	corpus_add_context(&corpus_migrate_off, &mds_v, CORPUS_ANY);
	corpus_run_contexts();
	return (long)corpus.loops - corpus_sum(&mds_v);
}

/* Migration disabled, then this CPU's spinlock_t (the PREEMPT_RT way to
 * protect this CPU's data). */
static void mdl_step(const struct corpus_side *side, long *var)
{
	migrate_disable();
	spin_lock(this_cpu_ptr(&mdl_c.lock));
	corpus_rmw(this_cpu_ptr(var));
	spin_unlock(this_cpu_ptr(&mdl_c.lock));
	migrate_enable();
}

const struct corpus_scenario corpus_protection[] = {
	/* local_lock: two tasks on C under C's local_lock; this_cpu_read()
	 * and this_cpu_write() under it; against preempt_disable() alone
	 * (on PREEMPT_RT the local lock leaves preemption on); a remote side
	 * under its own CPU's local_lock (no protection for C's copy);
	 * local_lock_irqsave() against a hard interrupt (on PREEMPT_RT it
	 * does not turn interrupts off). */
	CORRECT_PAIR(local_lock, local_lock_two_tasks, 1, ll2_c.n,
		     LOCKED_SIDE(locked, C, LOCAL, ll2_c.lock),
		     LOCKED_SIDE(locked, C, LOCAL, ll2_c.lock)),
	CORRECT_PAIR(local_lock, local_lock_this_cpu_ops, 1, llo_c.n,
		     OWN_SIDE(llo_step, C), OWN_SIDE(llo_step, C)),
	RACY_RT_PAIR(local_lock, local_lock_vs_preempt_disable, 1, llp_c.n,
		     LOCKED_SIDE(locked, C, LOCAL, llp_c.lock),
		     SIDE(preempt_off, C)),
	RACY_PAIR(local_lock, local_lock_remote, 2, llr_c.n,
		  LOCKED_SIDE(locked, C, LOCAL, llr_c.lock),
		  LOCKED_SIDE(remote_locked, O, LOCAL, llr_c.lock)),
	RACY_RT_PAIR(local_lock, local_lock_irqsave_vs_hardirq, 1, lli_c.n,
		     OWN_SIDE(lli_task, C), OWN_SIDE(lli_irq, IRQ_SRC)),
	/* get_cpu_var: two tasks; get_cpu() and per_cpu(); against a hard
	 * interrupt; against another CPU's per_cpu(); inside
	 * local_irq_save(), against a hard interrupt. */
	CORRECT_PAIR(get_cpu_var, get_cpu_var_two_tasks, 1, gv_v,
		     SIDE(get_cpu_var, C), SIDE(get_cpu_var, C)),
	CORRECT_PAIR(get_cpu_var, get_cpu_per_cpu, 1, gc_v,
		     OWN_SIDE(gc_step, C), OWN_SIDE(gc_step, C)),
	RACY_PAIR(get_cpu_var, get_cpu_var_vs_hardirq, 1, gh_v,
		  SIDE(get_cpu_var, C), SIDE(hardirq, IRQ_SRC)),
	RACY_PAIR(get_cpu_var, get_cpu_var_vs_remote, 2, gr_v,
		  SIDE(get_cpu_var, C), SIDE(remote, O)),
	CORRECT_PAIR(get_cpu_var, get_cpu_var_irqs_off_vs_hardirq, 1, gi_v,
		     OWN_SIDE(gi_task, C), SIDE(hardirq, IRQ_SRC)),
	/* migrate_disable() alone: two tasks on C can still preempt each
	 * other, also between a this_cpu read and write; one task alone is
	 * fine; so is this CPU's spinlock_t taken after it. */
	RACY_PAIR(migrate, migrate_disable_two_tasks, 1, md_v,
		  SIDE(migrate_off, C), SIDE(migrate_off, C)),
	RACY_PAIR(migrate, migrate_disable_this_cpu_rmw, 1, mdo_v,
		  OWN_SIDE(mdo_step, C), OWN_SIDE(mdo_step, C)),
	CORRECT(migrate, migrate_disable_single_task, 1),
	CORRECT_PAIR(migrate, migrate_disable_percpu_lock, 1, mdl_c.n,
		     OWN_SIDE(mdl_step, C), OWN_SIDE(mdl_step, C)),
	/* locks: two tasks on C under two different spinlock_t (racy on
	 * PREEMPT_RT, where a spinlock_t leaves preemption on); under one
	 * mutex. */
	RACY_RT_PAIR(locks, two_locks_same_cpu, 1, l2_v,
		     LOCKED_SIDE(locked, C, SPIN, l2_a),
		     LOCKED_SIDE(locked, C, SPIN, l2_b)),
	CORRECT_PAIR(locks, mutex_two_tasks, 1, lm_v,
		     LOCKED_SIDE(locked, C, MUTEX, lm_mutex),
		     LOCKED_SIDE(locked, C, MUTEX, lm_mutex)),
	{0},
};
