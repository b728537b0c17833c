/*
 * percpu_counter: a count that many CPUs change often and few read
 * exactly, as Linux's lib/percpu_counter.c (docs/percpu.md).
 *
 * Each CPU adds to its own 32-bit delta (dynamic per-CPU memory); only
 * when a delta reaches the batch does it fold into the shared 64-bit
 * count, under the counter's lock. So an add is, most of the time, one
 * this_cpu operation with no lock and no shared cache line, and:
 *
 *   percpu_counter_read()  the shared count alone: cheap, approximate;
 *                          off by less than batch per CPU holding a delta
 *                          (the online CPUs, once offline ones are folded)
 *   percpu_counter_sum()   the shared count plus every CPU's delta, under
 *                          the lock: exact, and costs a walk of the CPUs
 *
 * Adds are safe from any context, hard interrupts included, with nothing
 * turned off around them: the fast path is a this_cpu_cmpxchg() that fails
 * and retries if an interrupt or a migration came between its read and
 * its write; the fold takes the lock with interrupts off.
 */
#ifndef PERCPU_COUNTER_H
#define PERCPU_COUNTER_H

#include <stdint.h>
#include "list.h"
#include "locking/spinlock.h"
#include "percpu_alloc.h"
#include "rwonce.h"

struct percpu_counter {
	raw_spinlock_t lock;   /* guards count, and folds into it */
	int64_t count;         /* the shared count */
	struct list_head list; /* on the list of live counters (CPU offline) */
	int32_t *counters;     /* each CPU's delta, from alloc_percpu() */
};

/* The default batch (Linux's percpu_counter_batch): max(32, 2 * CPUs),
 * set by the first percpu_counter_init(). */
extern int percpu_counter_batch;

int __percpu_counter_init(struct percpu_counter *c, int64_t amount,
			  struct lock_class_key *key);
/* 0, or -ENOMEM when no dynamic per-CPU memory is left. Each call site
 * is one lock class. May sleep (alloc_percpu()). */
#define percpu_counter_init(c, value)                                         \
	({                                                                    \
		static struct lock_class_key __key;                           \
		__percpu_counter_init((c), (value), &__key);                  \
	})

/* Off the list and its per-CPU memory freed; a counter never initialised
 * (or destroyed already) is left alone. May sleep. */
void percpu_counter_destroy(struct percpu_counter *c);

/* Add amount to this CPU's delta; fold the delta into the shared count
 * when its magnitude reaches batch. Any context. */
void percpu_counter_add_batch(struct percpu_counter *c, int64_t amount,
			      int32_t batch);

static inline void percpu_counter_add(struct percpu_counter *c, int64_t amount)
{
	percpu_counter_add_batch(c, amount, READ_ONCE(percpu_counter_batch));
}

static inline void percpu_counter_sub(struct percpu_counter *c, int64_t amount)
{
	percpu_counter_add(c, -amount);
}

static inline void percpu_counter_inc(struct percpu_counter *c)
{
	percpu_counter_add(c, 1);
}

static inline void percpu_counter_dec(struct percpu_counter *c)
{
	percpu_counter_add(c, -1);
}

/* The shared count: what has been folded so far (see above). */
static inline int64_t percpu_counter_read(struct percpu_counter *c)
{
	return READ_ONCE(c->count);
}

/* The same, never negative: for counts that are positive in truth but
 * whose approximation may dip below zero. */
static inline int64_t percpu_counter_read_positive(struct percpu_counter *c)
{
	int64_t ret = percpu_counter_read(c);

	return ret > 0 ? ret : 0;
}

/* Exact: every add that returned before the call is in it. Any context;
 * takes the lock with interrupts off and walks the possible CPUs. */
int64_t percpu_counter_sum(struct percpu_counter *c);

/* The same, never negative. */
static inline int64_t percpu_counter_sum_positive(struct percpu_counter *c)
{
	int64_t ret = percpu_counter_sum(c);

	return ret > 0 ? ret : 0;
}

/* Set the count to amount and every delta to 0. Adds that run at the same
 * time may land before or after (as in Linux): for set-up and reset. */
void percpu_counter_set(struct percpu_counter *c, int64_t amount);

static inline bool percpu_counter_initialized(struct percpu_counter *c)
{
	return c->counters != 0;
}

/*
 * CPU offline (for the hotplug code's teardown callback). A dead CPU
 * adds nothing more, so its deltas only make percpu_counter_read() less
 * accurate; folding moves each into its shared count, which leaves every
 * percpu_counter_sum() as it was.
 *
 * percpu_counter_fold_cpu(c, cpu) folds one counter's delta of cpu;
 * percpu_counter_cpu_dead(cpu) folds every live counter's (Linux's
 * percpu_counter_cpu_dead(), walking the list under its lock) and returns
 * 0, the shape of a cpuhp teardown callback. Call them only for a CPU
 * that runs no adds meanwhile: an offline (parked) CPU, as in Linux, or
 * one held with interrupts off by the caller's arrangement. A running
 * CPU's unlocked this_cpu_cmpxchg() is atomic on that CPU only, so a fold
 * from elsewhere could race with it. May be called with interrupts off;
 * not from hard interrupt context.
 */
void percpu_counter_fold_cpu(struct percpu_counter *c, int cpu);
int percpu_counter_cpu_dead(unsigned int cpu);

#endif
