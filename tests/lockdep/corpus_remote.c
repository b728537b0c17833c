/*
 * The detector corpus (percpu_corpus.h): remote access: per_cpu(v, C) from
 * the other CPU while C's own task uses its copy, with and without a lock
 * that covers C's copy.
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "mutex.h"

/* Each scenario's copy (and locks); the table at the end says which. */
static DEFINE_PER_CPU(long, ru_v);
static DEFINE_PER_CPU(long, ro_v);
static DEFINE_PER_CPU(struct corpus_counter, rc_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rc_c.lock)};
static DEFINE_PER_CPU(struct corpus_counter, rw_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rw_c.lock)};
static DEFINE_PER_CPU(long, rg_v);
static DEFINE_RAW_SPINLOCK(rg_lock);
static DEFINE_PER_CPU(long, r2_v);
static DEFINE_SPINLOCK(r2_a);
static DEFINE_SPINLOCK(r2_b);
static DEFINE_PER_CPU(long, rm_v);
static DEFINE_MUTEX(rm_mutex);

/* C's own task, under C's copy of the lock inside the per-CPU struct;
 * the remote side on C's copy, under C's copy of the lock (rc) or under
 * its own CPU's (rw). */
static void rc_local(const struct corpus_side *side, long *var)
{
	spin_lock(this_cpu_ptr(&rc_c.lock));
	corpus_rmw(&this_cpu_ptr(&rc_c)->n);
	spin_unlock(this_cpu_ptr(&rc_c.lock));
}

static void rc_remote(const struct corpus_side *side, long *var)
{
	spinlock_t *l = per_cpu_ptr(&rc_c.lock, corpus_cpu());
	long x;

	spin_lock(l);
	x = per_cpu(rc_c, corpus_cpu()).n;
	corpus_widen();
	per_cpu(rc_c, corpus_cpu()).n = x + 1;
	spin_unlock(l);
}

static void rw_local(const struct corpus_side *side, long *var)
{
	spin_lock(this_cpu_ptr(&rw_c.lock));
	corpus_rmw(&this_cpu_ptr(&rw_c)->n);
	spin_unlock(this_cpu_ptr(&rw_c.lock));
}

static void rw_remote(const struct corpus_side *side, long *var)
{
	spinlock_t *l = per_cpu_ptr(&rw_c.lock, corpus_other_cpu());
	long x;

	spin_lock(l);
	x = per_cpu(rw_c, corpus_cpu()).n;
	corpus_widen();
	per_cpu(rw_c, corpus_cpu()).n = x + 1;
	spin_unlock(l);
}

const struct corpus_scenario corpus_remote[] = {
	/* Nothing on the remote side: C's preemption-off does not keep the
	 * other CPU out. */
	RACY_PAIR(remote, remote_unprotected, 2, ru_v, SIDE(preempt_off, C),
		  SIDE(remote, O)),
	/* IRQs off on both sides: each only for its own CPU. */
	RACY_PAIR(remote, remote_irqs_off, 2, ro_v, SIDE(irqs_off, C),
		  SIDE(remote_irqs_off, O)),
	/* Both sides under C's copy of the lock inside the per-CPU struct;
	 * then the remote side under its own CPU's lock, not C's. */
	CORRECT_PAIR(remote, remote_under_copy_lock, 2, rc_c.n,
		     OWN_SIDE(rc_local, C), OWN_SIDE(rc_remote, O)),
	RACY_PAIR(remote, remote_under_wrong_lock, 2, rw_c.n,
		  OWN_SIDE(rw_local, C), OWN_SIDE(rw_remote, O)),
	/* One global raw spinlock on both sides; two different global locks
	 * (each side protected, not against the other); one mutex. */
	CORRECT_PAIR(remote, remote_under_global_lock, 2, rg_v,
		     LOCKED_SIDE(locked, C, RAW, rg_lock),
		     LOCKED_SIDE(remote_locked, O, RAW, rg_lock)),
	RACY_PAIR(remote, remote_two_locks, 2, r2_v,
		  LOCKED_SIDE(locked, C, SPIN, r2_a),
		  LOCKED_SIDE(remote_locked, O, SPIN, r2_b)),
	CORRECT_PAIR(remote, remote_under_mutex, 2, rm_v,
		     LOCKED_SIDE(locked, C, MUTEX, rm_mutex),
		     LOCKED_SIDE(remote_locked, O, MUTEX, rm_mutex)),
	{0},
};
