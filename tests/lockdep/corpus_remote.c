/*
 * The detector corpus (percpu_corpus.h): remote access: per_cpu(v, C) from
 * the other CPU while C's own task uses its copy, with and without a lock
 * that covers C's copy.
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "irqflags.h"
#include "mutex.h"
#include "preempt.h"

/* ------------------------------------------------------------------ */
/* remote: per_cpu(v, C) from the other CPU                            */
/* ------------------------------------------------------------------ */

/* Nothing on the remote side: C's preemption-off does not keep the other
 * CPU out. Racy. */
static DEFINE_PER_CPU(long, ru_v);

static void ru_local(void)
{
	preempt_disable();
	corpus_rmw(this_cpu_ptr(&ru_v));
	preempt_enable();
}

static void ru_remote(void)
{
	corpus_rmw_per_cpu(&ru_v, corpus_cpu());
}

static long remote_unprotected(void)
{
	return corpus_pair(ru_local, corpus_cpu(), ru_remote,
			   corpus_other_cpu(), &ru_v);
}

/* IRQs off on both sides: each only for its own CPU. Racy. */
static DEFINE_PER_CPU(long, ro_v);

static void ro_local(void)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_rmw(this_cpu_ptr(&ro_v));
	local_irq_restore(flags);
}

static void ro_remote(void)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_rmw_per_cpu(&ro_v, corpus_cpu());
	local_irq_restore(flags);
}

static long remote_irqs_off(void)
{
	return corpus_pair(ro_local, corpus_cpu(), ro_remote,
			   corpus_other_cpu(), &ro_v);
}

/* Both sides under C's copy of the lock inside the per-CPU struct.
 * Correct. */
static DEFINE_PER_CPU(struct corpus_counter, rc_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rc_c.lock)};

static void rc_local(void)
{
	spin_lock(this_cpu_ptr(&rc_c.lock));
	corpus_rmw(&this_cpu_ptr(&rc_c)->n);
	spin_unlock(this_cpu_ptr(&rc_c.lock));
}

static void rc_remote(void)
{
	spinlock_t *l = per_cpu_ptr(&rc_c.lock, corpus_cpu());
	long x;

	spin_lock(l);
	x = per_cpu(rc_c, corpus_cpu()).n;
	corpus_widen();
	per_cpu(rc_c, corpus_cpu()).n = x + 1;
	spin_unlock(l);
}

static long remote_under_copy_lock(void)
{
	return corpus_pair(rc_local, corpus_cpu(), rc_remote,
			   corpus_other_cpu(), &rc_c.n);
}

/* The remote side takes its own CPU's lock, not C's. Racy. */
static DEFINE_PER_CPU(struct corpus_counter, rw_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rw_c.lock)};

static void rw_local(void)
{
	spin_lock(this_cpu_ptr(&rw_c.lock));
	corpus_rmw(&this_cpu_ptr(&rw_c)->n);
	spin_unlock(this_cpu_ptr(&rw_c.lock));
}

static void rw_remote(void)
{
	spinlock_t *l = per_cpu_ptr(&rw_c.lock, corpus_other_cpu());
	long x;

	spin_lock(l);
	x = per_cpu(rw_c, corpus_cpu()).n;
	corpus_widen();
	per_cpu(rw_c, corpus_cpu()).n = x + 1;
	spin_unlock(l);
}

static long remote_under_wrong_lock(void)
{
	return corpus_pair(rw_local, corpus_cpu(), rw_remote,
			   corpus_other_cpu(), &rw_c.n);
}

/* One global raw spinlock on both sides. Correct. */
static DEFINE_PER_CPU(long, rg_v);
static DEFINE_RAW_SPINLOCK(rg_lock);

static void rg_local(void)
{
	raw_spin_lock(&rg_lock);
	corpus_rmw(this_cpu_ptr(&rg_v));
	raw_spin_unlock(&rg_lock);
}

static void rg_remote(void)
{
	raw_spin_lock(&rg_lock);
	corpus_rmw_per_cpu(&rg_v, corpus_cpu());
	raw_spin_unlock(&rg_lock);
}

static long remote_under_global_lock(void)
{
	return corpus_pair(rg_local, corpus_cpu(), rg_remote,
			   corpus_other_cpu(), &rg_v);
}

/* Two different global locks: each side protected, not against the
 * other. Racy. */
static DEFINE_PER_CPU(long, r2_v);
static DEFINE_SPINLOCK(r2_a);
static DEFINE_SPINLOCK(r2_b);

static void r2_local(void)
{
	spin_lock(&r2_a);
	corpus_rmw(this_cpu_ptr(&r2_v));
	spin_unlock(&r2_a);
}

static void r2_remote(void)
{
	spin_lock(&r2_b);
	corpus_rmw_per_cpu(&r2_v, corpus_cpu());
	spin_unlock(&r2_b);
}

static long remote_two_locks(void)
{
	return corpus_pair(r2_local, corpus_cpu(), r2_remote,
			   corpus_other_cpu(), &r2_v);
}

/* One mutex on both sides. Correct. */
static DEFINE_PER_CPU(long, rm_v);
static DEFINE_MUTEX(rm_mutex);

static void rm_local(void)
{
	mutex_lock(&rm_mutex);
	corpus_rmw(this_cpu_ptr(&rm_v));
	mutex_unlock(&rm_mutex);
}

static void rm_remote(void)
{
	mutex_lock(&rm_mutex);
	corpus_rmw_per_cpu(&rm_v, corpus_cpu());
	mutex_unlock(&rm_mutex);
}

static long remote_under_mutex(void)
{
	return corpus_pair(rm_local, corpus_cpu(), rm_remote,
			   corpus_other_cpu(), &rm_v);
}

const struct corpus_scenario corpus_remote[] = {
	RACY(remote, remote_unprotected, 2),
	RACY(remote, remote_irqs_off, 2),
	CORRECT(remote, remote_under_copy_lock, 2),
	RACY(remote, remote_under_wrong_lock, 2),
	CORRECT(remote, remote_under_global_lock, 2),
	RACY(remote, remote_two_locks, 2),
	CORRECT(remote, remote_under_mutex, 2),
	{0},
};
