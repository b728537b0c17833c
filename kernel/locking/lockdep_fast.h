/*
 * The lock validator's fast path, inlined at every lock site (see
 * docs/lockdep.md, "The fast path"): lock_acquire() and lock_release(),
 * and the held-lock stack operations they share with the slow path in
 * lockdep.c.
 *
 * An acquisition the validator has seen before (its class cached in the
 * map, its chain key in the chain cache, no IRQ usage bit new, its wait
 * context fine) only pushes the lock on the task's stack, and the common
 * release pops it: no call, no interrupt disabling, no lock. Anything
 * else goes to __lock_acquire()/__lock_release(), which decide exactly as
 * the full validator always did. Inline because under QEMU's TCG a call
 * to another page of code and its return cost more than the whole fast
 * path (the figures are in docs/lockdep.md).
 */
#ifndef LOCKDEP_FAST_H
#define LOCKDEP_FAST_H

#include "locking/lockdep.h"

#ifdef CONFIG_LOCKDEP

#include "compiler.h"
#include "asm/barrier.h"
#include "locking/lockdep_internal.h"
#include "rwonce.h"

/* An address inside the code that expands it: where a lock was taken. */
#define _THIS_IP_                                                             \
	({                                                                    \
		__label__ __here;                                             \
	__here:                                                               \
		(unsigned long)&&__here;                                      \
	})

/* ---- the held-lock stacks (struct held_locks) ---- */

static __always_inline uint64_t lockdep_chain_mix(uint64_t key,
						  unsigned int class_idx)
{
	key ^= class_idx + 0x9e3779b97f4a7c15ull;
	key *= 0xff51afd7ed558ccdull;
	return (key ^ key >> 33) | 1; /* never 0, the chain cache's "empty" */
}

/* The chain key below entry i of s: the entry under it keeps the key of
 * everything up to itself; at the bottom, the context's seed (so that a
 * chain in hardirq context never matches one in a task). A pointer
 * chosen, then one load: no branch. */
static __always_inline uint64_t lockdep_key_below(const struct held_locks *s,
						  int i)
{
	const uint64_t *below = i ? &s->held[i - 1].chain_key : &s->seed;

	return *below;
}

/* Entry i's chain key: the classes held before it in its context, then
 * its own (a lock with no class adds nothing). One mix per push. */
static __always_inline uint64_t lockdep_chain_key_of(const struct held_locks *s,
						     int i)
{
	const struct held_lock *h = &s->held[i];
	uint64_t prev = lockdep_key_below(s, i);

	return h->class_idx ? lockdep_chain_mix(prev, h->class_idx) : prev;
}

/* What a lock of wait type wt taken with flags adds to the counts of
 * its stack (union held_counts). */
static __always_inline uint32_t lockdep_share(int wt, unsigned int flags)
{
	bool config = wt == LD_WAIT_CONFIG;
	union held_counts c = {
		.spin = wt == LD_WAIT_SPIN, .config = config,
		.config_preempt_off = config && (flags & LOCK_PREEMPT_OFF),
		.config_irqs_off = config && (flags & LOCK_IRQS_OFF)};

	return c.all;
}

/* What a held lock adds to held_locks.shadow_key: its class, for a lock
 * in a per-CPU area whose copy (cpu -1 otherwise), and its share of the
 * wait-type counts (how it left preemption and interrupts). A sum, so
 * that a release from the middle of the stack subtracts its own part. */
static __always_inline uint64_t lockdep_lock_key(const struct held_lock *h)
{
	return lockdep_chain_mix((uint64_t)h->share << 16 | (uint16_t)h->cpu,
				 h->class_idx);
}

/* The entry filled in at s->held[s->depth] becomes the top. */
static __always_inline void lockdep_push_held(struct held_locks *s)
{
	const struct held_lock *h = &s->held[s->depth];

	s->counts.all += h->share;
	s->shadow_key += lockdep_lock_key(h);
	barrier(); /* a reader on this CPU sees the entry before the depth */
	s->depth++;
}

/* Entry i leaves s; what was above it moves down and is re-keyed (a
 * release out of order is fine). */
static __always_inline void lockdep_pop_held(struct held_locks *s, int i)
{
	s->counts.all -= s->held[i].share;
	s->shadow_key -= lockdep_lock_key(&s->held[i]);
	for (; i < s->depth - 1; i++) {
		s->held[i] = s->held[i + 1];
		s->held[i].chain_key = lockdep_chain_key_of(s, i);
	}
	barrier();
	s->depth--;
}

/* ---- context ---- */

/* An RT=0 softirq handler: on the way out of an interrupt, on top of the
 * task it interrupted, or at a local_bh_enable() or in ksoftirqd. For the
 * validator a context of its own, as a CPU's hardirq one: its held locks
 * on its CPU's softirq stack, its own happens-before clock. On
 * PREEMPT_RT a softirq is part of the task that runs it. */
DECLARE_PER_CPU(struct held_locks, lockdep_softirq_held_locks);
/* The preemption count of the code an RT=0 softirq runs on top of (set
 * by lockdep_softirq_enter()): the interrupted task's, not the
 * softirq's, which is a context of its own. */
DECLARE_PER_CPU_UNCHECKED(int, lockdep_softirq_preempt_base);

static __always_inline bool lockdep_softirq_ctx(void)
{
	return !IS_ENABLED(CONFIG_PREEMPT_RT) &&
	       (preempt_count() & (SOFTIRQ_OFFSET | HARDIRQ_MASK)) ==
		       SOFTIRQ_OFFSET;
}

/* The held locks of the task context t, or of the RT=0 softirq running
 * on top of it. */
static __always_inline const struct held_locks *
lockdep_task_ctx_locks(const struct task_struct *t)
{
	return lockdep_softirq_ctx() ? raw_cpu_ptr(&lockdep_softirq_held_locks)
				     : &t->lockdep.locks;
}

/* Preemption and interrupts off for real: not counting what a held
 * spinlock_t or local_lock did on a !PREEMPT_RT build, since on
 * PREEMPT_RT it would not have (the checks reason as on PREEMPT_RT).
 * flags and wait_type: those of an acquisition in progress, already
 * applied. The interrupt question assumes they are off, and asks whether
 * a lock turned them off. The task_ forms are for task context. */
static __always_inline bool lockdep_task_preempt_off(const struct task_struct *t,
						     unsigned int flags,
						     int wait_type)
{
	int count = preempt_count() & PREEMPT_MASK;

	if (lockdep_softirq_ctx())
		count -= raw_cpu_read(lockdep_softirq_preempt_base);
	count -= (flags & LOCK_PREEMPT_OFF) && wait_type == LD_WAIT_CONFIG;
	return count > lockdep_task_ctx_locks(t)->counts.config_preempt_off;
}

static __always_inline bool lockdep_task_irqs_off(const struct task_struct *t,
						  unsigned int flags,
						  int wait_type)
{
	return !((flags & LOCK_IRQS_OFF) && wait_type == LD_WAIT_CONFIG) &&
	       !lockdep_task_ctx_locks(t)->counts.config_irqs_off;
}

static inline bool lockdep_preempt_off(const struct task_struct *t,
				       unsigned int flags, int wait_type)
{
	return in_hardirq() || lockdep_task_preempt_off(t, flags, wait_type);
}

static inline bool lockdep_irqs_off(const struct task_struct *t, unsigned int flags,
				    int wait_type)
{
	return in_hardirq() || lockdep_task_irqs_off(t, flags, wait_type);
}

/* Whether a lock of wait type wt, taken with flags in task context, may
 * wait here as far as held locks and preemption go: not if it sleeps on
 * PREEMPT_RT and a raw spinlock is held, or it always sleeps and a
 * spinlock_t/local_lock is held, or preemption is off. (With interrupts
 * off it may not either, unless a lock explains them:
 * lockdep_task_irqs_off().) */
static __always_inline bool lockdep_wait_context_ok(const struct task_struct *t,
						    int wt, unsigned int flags)
{
	union held_counts n = lockdep_task_ctx_locks(t)->counts;

	if (wt != LD_WAIT_CONFIG && wt != LD_WAIT_SLEEP)
		return true;
	return !(n.spin | ((wt == LD_WAIT_SLEEP) & (n.config != 0)) |
		 lockdep_task_preempt_off(t, flags, wt));
}

/* ---- the hooks ---- */

/* The fast paths are for task context with the validator on (which
 * also means a task to push on exists): one test of both. An RT=0
 * softirq pushes on its CPU's stack (lockdep_context_locks()). */
#define LOCKDEP_NOT_TASK_MASK                                                 \
	(HARDIRQ_MASK | NMI_MASK |                                            \
	 (IS_ENABLED(CONFIG_PREEMPT_RT) ? 0 : SOFTIRQ_OFFSET))

static __always_inline bool lockdep_off_here(void)
{
	return (preempt_count() & LOCKDEP_NOT_TASK_MASK) | !lockdep_on;
}

/*
 * The common acquisition, in task context, of what has been validated
 * before: the class is known (subclass 0, cached in the map), no usage
 * bit is new, the wait context is fine, the chain is in the chain cache;
 * not a trylock, no per-CPU access pending, the validator on. Then the
 * lock is only pushed, with interrupts left as they are (struct
 * held_locks says why that is safe). False, with nothing changed: the
 * slow path decides.
 */
static __always_inline bool lockdep_acquire_fast(struct lockdep_map *map,
						 unsigned int subclass,
						 unsigned int flags,
						 unsigned long ip)
{
	const struct lock_class *c;
	struct held_locks *s;
	struct held_lock *h;
	struct task_struct *t;
	unsigned int idx, usage, soft;
	int depth, wt;
	uint64_t key;

	/* Each test a branch, and under TCG each branch a translation
	 * block: where the order does not matter, one branch for many. */
	if (lockdep_off_here())
		return false;
	/* The map's fields are the lock's, not data it protects: marked
	 * accesses, which the per-CPU checker's compiler hooks skip (a
	 * local_lock_t's map lies in per-CPU memory). The acquire pairs
	 * with get_class()'s release: the class is filled in first. */
	c = smp_load_acquire(&map->class_cache);
	t = current;
	s = &t->lockdep.locks;
	depth = s->depth;
	wt = READ_ONCE(map->wait_type);
	if (!c | (subclass != 0) | ((flags & LOCK_TRYLOCK) != 0) |
	    (depth >= MAX_LOCK_DEPTH) | (t->lockdep.pending.var != 0))
		return false;
	usage = READ_ONCE(c->usage);
	soft = lockdep_softirq_usage(t, true);
	if (soft & USED_IN_SOFTIRQ & ~usage)
		return false; /* the class's first use in softirq context */
	if ((!(usage & ENABLED_HARDIRQ) || (soft & ENABLED_SOFTIRQ & ~usage)) &&
	    !(flags & LOCK_IRQS_OFF) && !irqs_disabled())
		return false; /* its first use with interrupts (and BHs) on */
	/* The interrupt flag last, and only when no lock explains it off:
	 * under TCG reading it costs a helper call. A lock that never waits
	 * (LOCK_NO_DEPS) has no wait context of its own. */
	if ((wt == LD_WAIT_CONFIG || wt == LD_WAIT_SLEEP) &&
	    !(flags & LOCK_NO_DEPS) &&
	    (!lockdep_wait_context_ok(t, wt, flags) ||
	     (lockdep_task_irqs_off(t, flags, wt) && irqs_disabled())))
		return false;
	idx = c - lock_classes;
	key = lockdep_chain_mix(lockdep_key_below(s, depth), idx);
	if (!lockdep_chain_cached_fast(key))
		return false;
	h = &s->held[depth];
	*h = (struct held_lock){.map = map, .ip = ip, .chain_key = key,
				.class_idx = idx, .flags = flags,
				.cpu = READ_ONCE(map->cpu),
				.share = lockdep_share(wt, flags)};
	lockdep_push_held(s);
	return true;
}

/* The common release, in task context: of the lock on top of the
 * task's stack, no per-CPU access pending. */
static __always_inline bool lockdep_release_fast(const struct lockdep_map *map)
{
	struct held_locks *s;
	struct task_struct *t;
	int depth;

	if (lockdep_off_here())
		return false;
	t = current;
	s = &t->lockdep.locks;
	depth = s->depth;
	if (!depth)
		return false;
	/* Not the top, or an access pending: one test of both. */
	if (((uintptr_t)s->held[depth - 1].map ^ (uintptr_t)map) |
	    (uintptr_t)t->lockdep.pending.var)
		return false;
	lockdep_pop_held(s, depth - 1);
	return true;
}

#if defined(CONFIG_LOCKDEP_TSAN) && defined(__SANITIZE_THREAD__)
/*
 * In code the compiler's hooks see (TSAN=1: the tests and most of the
 * core), each of the fast path's loads and stores of the task's
 * held-lock stack would go through the hooks' address filter: about 40
 * of them per acquire and release, 430 cycles a pair against 160 for
 * the whole pair without the hooks. There the fast path is one call to
 * its copy in lockdep.c, which the hooks do not see. The lock site is
 * still the caller's.
 */
void lock_acquire_unhooked(struct lockdep_map *map, unsigned int subclass,
			   unsigned int flags, unsigned long ip);
bool lock_release_unhooked(struct lockdep_map *map, unsigned long ip);

static __always_inline void lock_acquire(struct lockdep_map *map,
					 unsigned int subclass,
					 unsigned int flags, unsigned long ip)
{
	lock_acquire_unhooked(map, subclass, flags, ip ? ip : _THIS_IP_);
}

static __always_inline bool lock_release(struct lockdep_map *map,
					 unsigned long ip)
{
	return lock_release_unhooked(map, ip ? ip : _THIS_IP_);
}
#else
/* ip: where the lock is taken; 0 for this call's site. */
static __always_inline void lock_acquire(struct lockdep_map *map,
					 unsigned int subclass,
					 unsigned int flags, unsigned long ip)
{
	if (!ip)
		ip = _THIS_IP_;
	if (!lockdep_acquire_fast(map, subclass, flags, ip))
		__lock_acquire(map, subclass, flags, ip);
}

/* False (with a report) when the caller does not hold the lock: the
 * unlock must then leave the lock alone. */
static __always_inline bool lock_release(struct lockdep_map *map,
					 unsigned long ip)
{
	if (lockdep_release_fast(map))
		return true;
	return __lock_release(map, ip ? ip : _THIS_IP_);
}
#endif

#endif /* CONFIG_LOCKDEP */

#endif
