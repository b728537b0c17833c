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

/* ------------------------------------------------------------------ */
/* local_lock                                                          */
/* ------------------------------------------------------------------ */

/* Two tasks on C under C's local_lock. Correct. */
static DEFINE_PER_CPU(struct corpus_local_counter, ll2_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void ll2_step(void)
{
	local_lock(&ll2_c.lock);
	corpus_rmw(&this_cpu_ptr(&ll2_c)->n);
	local_unlock(&ll2_c.lock);
}

static long local_lock_two_tasks(void)
{
	return corpus_pair_on_c(ll2_step, ll2_step, &ll2_c.n);
}

/* this_cpu_read()/this_cpu_write() under one local_lock. Correct. */
static DEFINE_PER_CPU(struct corpus_local_counter, llo_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llo_step(void)
{
	long x;

	local_lock(&llo_c.lock);
	x = this_cpu_read(llo_c.n);
	corpus_widen();
	this_cpu_write(llo_c.n, x + 1);
	local_unlock(&llo_c.lock);
}

static long local_lock_this_cpu_ops(void)
{
	return corpus_pair_on_c(llo_step, llo_step, &llo_c.n);
}

/* local_lock in one task, preempt_disable() alone in the other: on
 * PREEMPT_RT the local lock leaves preemption on. Racy. */
static DEFINE_PER_CPU(struct corpus_local_counter, llp_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llp_locked(void)
{
	local_lock(&llp_c.lock);
	corpus_rmw(&this_cpu_ptr(&llp_c)->n);
	local_unlock(&llp_c.lock);
}

static void llp_preempt(void)
{
	preempt_disable();
	corpus_rmw(&this_cpu_ptr(&llp_c)->n);
	preempt_enable();
}

static long local_lock_vs_preempt_disable(void)
{
	return corpus_pair_on_c(llp_locked, llp_preempt, &llp_c.n);
}

/* The remote side takes its own CPU's local_lock: no protection for C's
 * copy. Racy. */
static DEFINE_PER_CPU(struct corpus_local_counter, llr_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llr_local(void)
{
	local_lock(&llr_c.lock);
	corpus_rmw(&this_cpu_ptr(&llr_c)->n);
	local_unlock(&llr_c.lock);
}

static void llr_remote(void)
{
	long x;

	local_lock(&llr_c.lock);
	x = per_cpu(llr_c, corpus_cpu()).n;
	corpus_widen();
	per_cpu(llr_c, corpus_cpu()).n = x + 1;
	local_unlock(&llr_c.lock);
}

static long local_lock_remote(void)
{
	return corpus_pair(llr_local, corpus_cpu(), llr_remote,
			   corpus_other_cpu(), &llr_c.n);
}

/* local_lock_irqsave() against a hard interrupt: on PREEMPT_RT it does
 * not turn interrupts off. Racy. */
static DEFINE_PER_CPU(struct corpus_local_counter, lli_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void lli_task(void)
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

static void lli_irq(void)
{
	corpus_raise_irq(corpus_cpu(), lli_irq_fn, 0);
}

static long local_lock_irqsave_vs_hardirq(void)
{
	return corpus_pair(lli_task, corpus_cpu(), lli_irq,
			   corpus_irq_source_cpu(), &lli_c.n);
}

/* ------------------------------------------------------------------ */
/* get_cpu_var                                                         */
/* ------------------------------------------------------------------ */

/* Two tasks with get_cpu_var()/put_cpu_var(). Correct. */
static DEFINE_PER_CPU(long, gv_v);

static void gv_step(void)
{
	corpus_rmw(&get_cpu_var(gv_v));
	put_cpu_var(gv_v);
}

static long get_cpu_var_two_tasks(void)
{
	return corpus_pair_on_c(gv_step, gv_step, &gv_v);
}

/* get_cpu(), per_cpu(v, cpu), put_cpu(). Correct. */
static DEFINE_PER_CPU(long, gc_v);

static void gc_step(void)
{
	int cpu = get_cpu();

	corpus_rmw_per_cpu(&gc_v, cpu);
	put_cpu();
}

static long get_cpu_per_cpu(void)
{
	return corpus_pair_on_c(gc_step, gc_step, &gc_v);
}

/* get_cpu_var() against a hard interrupt. Racy. */
static DEFINE_PER_CPU(long, gh_v);

static void gh_task(void)
{
	corpus_rmw(&get_cpu_var(gh_v));
	put_cpu_var(gh_v);
}

static void gh_irq(void)
{
	corpus_raise_irq(corpus_cpu(), corpus_irq_rmw, &gh_v);
}

static long get_cpu_var_vs_hardirq(void)
{
	return corpus_pair(gh_task, corpus_cpu(), gh_irq,
			   corpus_irq_source_cpu(), &gh_v);
}

/* get_cpu_var() against another CPU's per_cpu(). Racy. */
static DEFINE_PER_CPU(long, gr_v);

static void gr_task(void)
{
	corpus_rmw(&get_cpu_var(gr_v));
	put_cpu_var(gr_v);
}

static void gr_remote(void)
{
	corpus_rmw_per_cpu(&gr_v, corpus_cpu());
}

static long get_cpu_var_vs_remote(void)
{
	return corpus_pair(gr_task, corpus_cpu(), gr_remote, corpus_other_cpu(),
			   &gr_v);
}

/* get_cpu_var() inside local_irq_save(), against a hard interrupt.
 * Correct. */
static DEFINE_PER_CPU(long, gi_v);

static void gi_task(void)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_rmw(&get_cpu_var(gi_v));
	put_cpu_var(gi_v);
	local_irq_restore(flags);
}

static void gi_irq(void)
{
	corpus_raise_irq(corpus_cpu(), corpus_irq_rmw, &gi_v);
}

static long get_cpu_var_irqs_off_vs_hardirq(void)
{
	return corpus_pair(gi_task, corpus_cpu(), gi_irq,
			   corpus_irq_source_cpu(), &gi_v);
}

/* ------------------------------------------------------------------ */
/* migrate: migrate_disable() alone                                    */
/* ------------------------------------------------------------------ */

/* Two tasks on C, migration disabled: each can still preempt the other.
 * Racy. */
static DEFINE_PER_CPU(long, md_v);

static void md_step(void)
{
	migrate_disable();
	corpus_rmw(this_cpu_ptr(&md_v));
	migrate_enable();
}

static long migrate_disable_two_tasks(void)
{
	return corpus_pair_on_c(md_step, md_step, &md_v);
}

/* this_cpu_read() then this_cpu_write() with migration disabled. Racy. */
static DEFINE_PER_CPU(long, mdo_v);

static void mdo_step(void)
{
	long x;

	migrate_disable();
	x = this_cpu_read(mdo_v);
	corpus_widen();
	this_cpu_write(mdo_v, x + 1);
	migrate_enable();
}

static long migrate_disable_this_cpu_rmw(void)
{
	return corpus_pair_on_c(mdo_step, mdo_step, &mdo_v);
}

/* One unbound task, migration disabled around each update: every copy it
 * reaches is used by it alone. Correct. */
static DEFINE_PER_CPU(long, mds_v);

static void mds_step(void)
{
	migrate_disable();
	corpus_rmw(this_cpu_ptr(&mds_v));
	migrate_enable();
}

static long migrate_disable_single_task(void)
{
	corpus_zero(&mds_v);
	corpus_add_context(mds_step, CORPUS_ANY);
	corpus_run_contexts();
	return (long)corpus.loops - corpus_sum(&mds_v);
}

/* Migration disabled, then this CPU's spinlock_t (the PREEMPT_RT way to
 * protect this CPU's data). Correct. */
static DEFINE_PER_CPU(struct corpus_counter, mdl_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(mdl_c.lock)};

static void mdl_step(void)
{
	migrate_disable();
	spin_lock(this_cpu_ptr(&mdl_c.lock));
	corpus_rmw(&this_cpu_ptr(&mdl_c)->n);
	spin_unlock(this_cpu_ptr(&mdl_c.lock));
	migrate_enable();
}

static long migrate_disable_percpu_lock(void)
{
	return corpus_pair_on_c(mdl_step, mdl_step, &mdl_c.n);
}

/* ------------------------------------------------------------------ */
/* locks: the lockset                                                  */
/* ------------------------------------------------------------------ */

/* Two tasks on C, each under a different spinlock_t. Racy on
 * PREEMPT_RT, where a spinlock_t leaves preemption on. */
static DEFINE_PER_CPU(long, l2_v);
static DEFINE_SPINLOCK(l2_a);
static DEFINE_SPINLOCK(l2_b);

static void l2_a_step(void)
{
	spin_lock(&l2_a);
	corpus_rmw(this_cpu_ptr(&l2_v));
	spin_unlock(&l2_a);
}

static void l2_b_step(void)
{
	spin_lock(&l2_b);
	corpus_rmw(this_cpu_ptr(&l2_v));
	spin_unlock(&l2_b);
}

static long two_locks_same_cpu(void)
{
	return corpus_pair_on_c(l2_a_step, l2_b_step, &l2_v);
}

/* Two tasks on C under one mutex. Correct. */
static DEFINE_PER_CPU(long, lm_v);
static DEFINE_MUTEX(lm_mutex);

static void lm_step(void)
{
	mutex_lock(&lm_mutex);
	corpus_rmw(this_cpu_ptr(&lm_v));
	mutex_unlock(&lm_mutex);
}

static long mutex_two_tasks(void)
{
	return corpus_pair_on_c(lm_step, lm_step, &lm_v);
}

const struct corpus_scenario corpus_protection[] = {
	CORRECT(local_lock, local_lock_two_tasks, 1),
	CORRECT(local_lock, local_lock_this_cpu_ops, 1),
	RACY_RT(local_lock, local_lock_vs_preempt_disable, 1),
	RACY(local_lock, local_lock_remote, 2),
	RACY_RT(local_lock, local_lock_irqsave_vs_hardirq, 1),
	CORRECT(get_cpu_var, get_cpu_var_two_tasks, 1),
	CORRECT(get_cpu_var, get_cpu_per_cpu, 1),
	RACY(get_cpu_var, get_cpu_var_vs_hardirq, 1),
	RACY(get_cpu_var, get_cpu_var_vs_remote, 2),
	CORRECT(get_cpu_var, get_cpu_var_irqs_off_vs_hardirq, 1),
	RACY(migrate, migrate_disable_two_tasks, 1),
	RACY(migrate, migrate_disable_this_cpu_rmw, 1),
	CORRECT(migrate, migrate_disable_single_task, 1),
	CORRECT(migrate, migrate_disable_percpu_lock, 1),
	RACY_RT(locks, two_locks_same_cpu, 1),
	CORRECT(locks, mutex_two_tasks, 1),
	{0},
};
