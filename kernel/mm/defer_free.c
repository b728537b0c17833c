/*
 * Deferred frees (defer_free.h), after Linux's kfree_nolock(), which
 * leaves what it cannot free at once in a per-CPU list for later. Each
 * CPU keeps an array of up to DEFER_FREE_MAX pointers; its next
 * allocator call from a context that may sleep empties it (in the
 * caller's context: no thread to wake, and no softirq, whose lock usage
 * the validator would have to tell apart), and so does the CPU's hotplug
 * DEAD step, and mm_drain_all() on every CPU. A pointer is not checked
 * when it is deferred (a double free is reported when it is made), and
 * the array is the list's memory, not the object: writing a link into
 * what may already be a free object would corrupt its slab.
 */
#include "irqflags.h"
#include "mm/defer_free.h"
#include "mm/kmalloc.h"
#include "mm/mm_lock.h"
#include "mm/page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "sched/sched.h"

DEFINE_PER_CPU(struct defer_free_cpu, defer_free_cpu);
/* Since boot, on each CPU: frees deferred, and dropped (list full). */
static DEFINE_PER_CPU_STAT(unsigned long, deferred);
static DEFINE_PER_CPU_STAT(unsigned long, dropped);

static void free_now(void *p, size_t npages)
{
	if (npages)
		pages_free(p, npages);
	else
		kfree(p);
}

void defer_free(void *p, size_t npages)
{
	struct defer_free_cpu *d;
	unsigned long flags;
	bool full;

	local_irq_save(flags);
	d = this_cpu_ptr(&defer_free_cpu);
	full = d->count == DEFER_FREE_MAX;
	if (full) {
		this_cpu_inc(dropped);
	} else {
		d->items[d->count].p = p;
		d->items[d->count].npages = npages;
		d->count++;
		this_cpu_inc(deferred);
	}
	local_irq_restore(flags);
	if (full)
		printk("BUG: defer_free: %p not freed: CPU %d already has %d "
		       "frees waiting\n", p, raw_smp_processor_id(),
		       DEFER_FREE_MAX);
}

/* One item at a time out of the array with interrupts off, freed with
 * them on and migration off. Not with migration already off: on RT=1
 * every lock of the allocators disables it, and the allocator polls
 * from inside them too (a slab's new page, an emptied slab's release),
 * where a free would take the sheaf's lock or kmalloc_lock again; and
 * the frees made here poll too, and return at once, so the flush never
 * recurses. */
void defer_free_flush(void)
{
	/* LAB11 BEGIN */
	struct defer_free_cpu *d;
	unsigned long flags;
	size_t npages;
	void *p;

	if (!mm_lock_allowed() || current->migration_disabled)
		return;
	migrate_disable();
	for (;;) {
		local_irq_save(flags);
		d = this_cpu_ptr(&defer_free_cpu);
		if (!d->count) {
			local_irq_restore(flags);
			break;
		}
		d->count--;
		p = d->items[d->count].p;
		npages = d->items[d->count].npages;
		local_irq_restore(flags);
		free_now(p, npages);
	}
	migrate_enable();
	/* LAB11 STUB: @defer_free_flush items taken with migration off alone */
	/* LAB11 END */
}

/* Precondition (defer_free.h): nothing runs on cpu, so its array is ours
 * without its interrupts off; the checker cannot see that, hence raw. */
void defer_free_cpu_dead(int cpu)
{
	struct defer_free_cpu *d = raw_per_cpu_ptr(&defer_free_cpu, cpu);

	while (d->count) {
		d->count--;
		free_now(d->items[d->count].p, d->items[d->count].npages);
	}
}

unsigned long defer_free_count(void)
{
	return mm_lock_stat_sum(deferred);
}

unsigned long defer_free_dropped(void)
{
	return mm_lock_stat_sum(dropped);
}
