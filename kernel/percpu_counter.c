/*
 * percpu_counter (percpu_counter.h, docs/percpu.md), as Linux's
 * lib/percpu_counter.c: a shared 64-bit count under a raw spinlock, and a
 * 32-bit delta per CPU in dynamic per-CPU memory.
 *
 * Invariant: the true value is count + the sum of every possible CPU's
 * delta, and each delta stays below batch in magnitude after any add.
 * Every operation keeps that sum: an add changes one delta by amount (the
 * cmpxchg) or moves a delta into count with amount (under the lock); a
 * fold moves a delta into count (under the lock).
 */
#include "percpu_counter.h"
#include "rwonce.h"
#include "errno.h"

int percpu_counter_batch = 32;

/* Every initialised counter, for percpu_counter_cpu_dead(). Taken before
 * a counter's lock, never inside one. */
static DEFINE_RAW_SPINLOCK(percpu_counters_lock);
static LIST_HEAD(percpu_counters);

/* Linux's compute_batch_value(): more CPUs, a larger batch, so that
 * folds stay rare; read() is then off by up to batch per CPU. */
static void compute_batch_value(void)
{
	int batch = 2 * nr_cpu_ids;

	WRITE_ONCE(percpu_counter_batch, batch > 32 ? batch : 32);
}

int __percpu_counter_init(struct percpu_counter *c, int64_t amount,
			  struct lock_class_key *key)
{
	compute_batch_value();
	__raw_spin_lock_init(&c->lock, "percpu_counter", key, LD_WAIT_SPIN);
	c->count = amount;
	c->counters = alloc_percpu(int32_t);
	if (!c->counters)
		return -ENOMEM;
	raw_spin_lock(&percpu_counters_lock);
	list_add(&c->list, &percpu_counters);
	raw_spin_unlock(&percpu_counters_lock);
	return 0;
}

void percpu_counter_destroy(struct percpu_counter *c)
{
	if (!c->counters)
		return;
	raw_spin_lock(&percpu_counters_lock);
	list_del_init(&c->list);
	raw_spin_unlock(&percpu_counters_lock);
	free_percpu(c->counters);
	c->counters = 0;
}

/* Lock held. One store, so that percpu_counter_read() without the lock
 * never sees half of it. */
static void add_count(struct percpu_counter *c, int64_t amount)
{
	WRITE_ONCE(c->count, c->count + amount);
}

/*
 * The slow path: this CPU's delta plus amount reached the batch. With
 * the lock and interrupts off nothing else on this CPU can change the
 * delta (we cannot migrate, no interrupt's add can come), so it is read
 * again here: it may have changed, or be another CPU's by now, since the
 * fast path looked.
 */
static __attribute__((noinline)) void fold_this_cpu(struct percpu_counter *c,
						    int64_t amount)
{
	/* LAB11 BEGIN */
	unsigned long flags;
	int32_t delta;

	raw_spin_lock_irqsave(&c->lock, flags);
	delta = __this_cpu_read(*c->counters);
	add_count(c, delta + amount);
	__this_cpu_sub(*c->counters, delta);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	/* LAB11 STUB: @fold_this_cpu the lock taken with interrupts left on */
	/* LAB11 END */
}

/*
 * The fast path: read this CPU's delta, and store delta + amount only if
 * it still holds what was read: one unlocked cmpxchg, atomic against
 * interrupts and preemption on this CPU. If anything changed the delta
 * in between (an interrupt's add, another task's after a preemption), the
 * cmpxchg fails and returns the new value to try with. If the task moved
 * to another CPU in between, the cmpxchg works on the new CPU's delta and
 * succeeds only if it happens to hold the value read: then it adds exactly
 * amount there too, which is all the invariant asks. The read needs no
 * checking (raw_cpu_read): the cmpxchg is the check.
 */
void percpu_counter_add_batch(struct percpu_counter *c, int64_t amount,
			      int32_t batch)
{
	int32_t *counters = c->counters;
	int32_t delta = raw_cpu_read(*counters), old;
	int64_t next;

	for (;;) {
		next = delta + amount;
		if (next >= batch || next <= -batch) {
			fold_this_cpu(c, amount);
			return;
		}
		old = this_cpu_cmpxchg(*counters, delta, (int32_t)next);
		if (old == delta)
			return;
		delta = old;
	}
}

/* Every possible CPU, not only the online ones: an offline CPU's delta
 * counts until it is folded, so the sum is exact at any point of a CPU's
 * going down. Other CPUs' deltas are read as they are: an aligned 32-bit
 * load is never torn, and an add that has not returned may or may not be
 * in the result. */
int64_t percpu_counter_sum(struct percpu_counter *c)
{
	unsigned long flags;
	int64_t ret;
	int cpu;

	raw_spin_lock_irqsave(&c->lock, flags);
	ret = c->count;
	for_each_possible_cpu(cpu)
		ret += READ_ONCE(*per_cpu_ptr(c->counters, cpu));
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

void percpu_counter_set(struct percpu_counter *c, int64_t amount)
{
	unsigned long flags;
	int cpu;

	raw_spin_lock_irqsave(&c->lock, flags);
	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(c->counters, cpu), 0);
	add_count(c, amount - c->count);
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

void percpu_counter_fold_cpu(struct percpu_counter *c, int cpu)
{
	int32_t *delta = per_cpu_ptr(c->counters, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	add_count(c, *delta);
	*delta = 0;
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

int percpu_counter_cpu_dead(unsigned int cpu)
{
	struct percpu_counter *c;

	raw_spin_lock(&percpu_counters_lock);
	list_for_each_entry(c, &percpu_counters, list)
		percpu_counter_fold_cpu(c, cpu);
	raw_spin_unlock(&percpu_counters_lock);
	return 0;
}
