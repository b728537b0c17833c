/*
 * kmalloc: power-of-two size classes from 16 to 2048 bytes, each served
 * from slabs of one page (a header, then equal objects); larger requests
 * take whole pages with a header in front. Every page kmalloc owns starts
 * with a magic number, so kfree can tell its own pointers from others, and
 * a free object carries a poison word, so a double free is caught.
 *
 * This file is the shared layer: each class's slabs with free objects,
 * under kmalloc_lock. In front of it each CPU keeps a sheaf of free
 * objects per class (kmalloc_pcp.c), and most calls end there; the shared
 * slabs see the sheaves' batched refills and flushes, and the calls that
 * may not use a sheaf (hardirq, interrupts or preemption off: see
 * kmalloc_pcp.c), or all calls when the sheaves are off (kmalloc_pcp=0).
 * kmalloc_lock is raw with interrupts off on RT=0, so that every context
 * may allocate; on RT=1 it sleeps, and a context that cannot sleep may
 * not allocate (mm_lock.h).
 */
#include "compiler.h"
#include "atomic.h"
#include <stdint.h>
#include "irqflags.h"
#include "mm/slab.h"
#include "mm/mm_lock.h"
#include "mm/defer_free.h"
#include "percpu_counter.h"
#include "asm/page.h"
#include "mm/page_alloc.h"
#include "asm/pgtable.h"
#include "panic.h"
#include "printk.h"
#include "locking/spinlock.h"
#include "string.h"

#define LARGE_MAGIC 0x1a26e1a26e1a26e0ul
#define LARGE_FREED 0xdeadbeefdeadbeeful

/* In front of a large allocation (16 bytes keeps the data aligned). */
struct large_hdr {
	uint64_t magic;
	uint64_t npages;
};

#define SLAB_HDR_SIZE ((sizeof(struct slab) + 15) & ~15ul)

/* Under kmalloc_lock: each class's slabs that have a free object, and
 * how many slabs it has. */
static struct slab *partial[KMALLOC_NR_CLASSES];
static unsigned long nr_slabs[KMALLOC_NR_CLASSES];
static DEFINE_MM_LOCK(kmalloc_lock);
static unsigned long bad_frees;

/* kmalloc_lock acquisitions, per CPU (mm_stat.h). */
MM_LOCK_STAT_DEFINE(kmalloc_lock_count);

/*
 * Objects in use per class ([KMALLOC_NR_CLASSES]: large allocations):
 * percpu_counters, changed on every kmalloc and kfree from any context
 * with no shared cache line written most of the time. A percpu_counter
 * needs dynamic per-CPU memory, which is allocated under a mutex, so the
 * counters start in kmalloc_stats_init() (kmain(), preemptible, before
 * the other CPUs run); what the boot CPU counted before that waits in
 * boot_in_use[] and is handed over then.
 */
static struct percpu_counter in_use[KMALLOC_NR_CLASSES + 1];
static atomic_long_t boot_in_use[KMALLOC_NR_CLASSES + 1];

/* A CPU's delta folds into the shared count (under the counter's lock)
 * when it reaches this. The default batch (32) would fold once per
 * burst of 32 allocations, as often as a sheaf takes kmalloc_lock; at
 * 8 sheaves' worth a fold is rarer than a refill. The sum stays exact;
 * percpu_counter_read() is off by up to this much per CPU. */
#define KMALLOC_STAT_BATCH (8 * KMALLOC_SHEAF_CAPACITY)

static void in_use_add(int cls, long v)
{
	if (likely(percpu_counter_initialized(&in_use[cls])))
		percpu_counter_add_batch(&in_use[cls], v, KMALLOC_STAT_BATCH);
	else
		atomic_long_add(v, &boot_in_use[cls]);
}

/* Only the boot CPU runs, so an add that found the counter missing
 * (an interrupt's, say) has finished before the exchange reads
 * boot_in_use: nothing is lost. Without per-CPU memory the boot counts
 * stay in use, atomic and exact, with a message. */
void kmalloc_stats_init(void)
{
	for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++) {
		if (percpu_counter_init(&in_use[cls], 0)) {
			printk("kmalloc: no per-CPU memory for the statistics; "
			       "counting in shared words\n");
			return;
		}
		percpu_counter_add(&in_use[cls],
				   atomic_long_xchg(&boot_in_use[cls], 0));
	}
}

unsigned long kmalloc_lock_irqsave(void)
{
	return mm_lock_irqsave_counted(&kmalloc_lock, kmalloc_lock_count);
}

void kmalloc_unlock_irqrestore(unsigned long flags)
{
	mm_unlock_irqrestore(&kmalloc_lock, flags);
}

static struct slab *slab_new(int cls)
{
	struct slab *s = page_alloc();
	uint32_t size = kmalloc_class_size(cls);
	uint32_t first = SLAB_HDR_SIZE > size ? SLAB_HDR_SIZE : size;

	if (!s)
		return 0;
	*s = (struct slab){.magic = SLAB_MAGIC, .obj_size = size};
	/* Objects are aligned to their size (one class per alignment). */
	for (uint32_t off = PAGE_SIZE - size; off >= first; off -= size) {
		struct free_obj *o = (void *)((char *)s + off);

		o->next = s->free;
		o->poison = FREE_POISON;
		s->free = o;
		s->nr_objs++;
	}
	s->nr_free = s->nr_objs;
	nr_slabs[cls]++;
	return s;
}

struct free_obj *slab_take_locked(int cls)
{
	struct slab *s = partial[cls];
	struct free_obj *o;

	if (!s && (s = slab_new(cls))) {
		s->on_list = 1;
		partial[cls] = s;
	}
	if (!s)
		return 0;
	o = s->free;
	s->free = o->next;
	if (--s->nr_free == 0) {
		partial[cls] = s->next;
		s->on_list = 0;
	}
	return o;
}

static void partial_unlink(struct slab *s, int cls)
{
	struct slab **pp = &partial[cls];

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	s->on_list = 0;
}

/* An empty slab goes back to the page allocator (after the lock is
 * dropped), so that memory kfree returns shows up in the free page count
 * once no sheaf holds its objects (the tests compare it). */
void slab_put_locked(struct slab *s, struct free_obj *o, struct slab **empty)
{
	int cls = kmalloc_class_of(s->obj_size);

	o->next = s->free;
	o->poison = FREE_POISON;
	s->free = o;
	s->nr_free++;
	if (!s->on_list) {
		s->on_list = 1;
		s->next = partial[cls];
		partial[cls] = s;
	}
	if (s->nr_free == s->nr_objs) {
		partial_unlink(s, cls);
		s->magic = 0;
		nr_slabs[cls]--;
		s->next = *empty;
		*empty = s;
	}
}

void slabs_release(struct slab *empty)
{
	while (empty) {
		struct slab *s = empty;

		empty = s->next;
		page_free(s);
	}
}

static bool on_free_list(struct slab *s, struct free_obj *o)
{
	for (struct free_obj *f = s->free; f; f = f->next)
		if (f == o)
			return true;
	return false;
}

bool kmalloc_obj_is_free_locked(struct slab *s, struct free_obj *o)
{
	return on_free_list(s, o) ||
	       kmalloc_pcp_holds(o, kmalloc_class_of(s->obj_size));
}

void *kmalloc_shared_alloc(int cls)
{
	unsigned long flags;
	struct free_obj *o;

	if (!mm_lock_allowed()) { /* RT=1, cannot sleep: refused */
		might_lock(&kmalloc_lock);
		return 0;
	}
	flags = kmalloc_lock_irqsave();
	o = slab_take_locked(cls);

	kmalloc_unlock_irqrestore(flags);
	if (o)
		o->poison = 0;
	return o;
}

const char *kmalloc_shared_free(struct slab *s, struct free_obj *o)
{
	const char *err = 0;
	struct slab *empty = 0;
	unsigned long flags = kmalloc_lock_irqsave();

	if (o->poison == FREE_POISON && kmalloc_obj_is_free_locked(s, o))
		err = "double free";
	else
		slab_put_locked(s, o, &empty);
	kmalloc_unlock_irqrestore(flags);
	slabs_release(empty);
	return err;
}

static void *large_alloc(size_t size)
{
	size_t npages = (size + sizeof(struct large_hdr) + PAGE_SIZE - 1) /
			PAGE_SIZE;
	struct large_hdr *h;

	if (size > PAGE_ALLOC_MAX_PHYS || !(h = pages_alloc(npages)))
		return 0;
	h->magic = LARGE_MAGIC;
	h->npages = npages;
	return h + 1;
}

void *kmalloc(size_t size)
{
	void *p;
	int cls;

	if (size == 0)
		return 0;
	defer_free_poll();
	if (size > KMALLOC_MAX_SMALL) {
		cls = KMALLOC_NR_CLASSES;
		p = large_alloc(size);
	} else {
		cls = kmalloc_class_of(size);
		p = kmalloc_pcp_usable() ? kmalloc_pcp_alloc(cls) :
					   kmalloc_shared_alloc(cls);
	}
	if (p)
		in_use_add(cls, 1);
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

static void report_bad_free(void *p, const char *why)
{
	bad_frees++;
	printk("BUG: kfree(%p): %s\n", p, why);
	dump_stack();
}

/* A small object: checked to be an object's start, then freed through
 * this CPU's sheaf or the shared slabs. */
static const char *slab_free(struct slab *s, void *p)
{
	uintptr_t off = (uintptr_t)p - (uintptr_t)s;
	int cls = kmalloc_class_of(s->obj_size);
	const char *err;

	if (off < SLAB_HDR_SIZE || off % s->obj_size)
		return "not the start of an object";
	err = kmalloc_pcp_usable() ? kmalloc_pcp_free(s, p, cls) :
				     kmalloc_shared_free(s, p);
	if (!err)
		in_use_add(cls, -1);
	return err;
}

static const char *large_free(struct large_hdr *h, void *p)
{
	if (p != h + 1)
		return "not the start of an allocation";
	if (h->magic == LARGE_FREED)
		return "double free";
	h->magic = LARGE_FREED;
	pages_free(h, h->npages);
	in_use_add(KMALLOC_NR_CLASSES, -1);
	return 0;
}

static bool kmalloc_owns_page(uintptr_t page)
{
	return page >= DIRECT_MAP_BASE &&
	       page < DIRECT_MAP_BASE + PAGE_ALLOC_MAX_PHYS &&
	       (paging_lookup(page) & PTE_P);
}

void kfree(void *p)
{
	uintptr_t page = PAGE_ALIGN_DOWN((uintptr_t)p);
	const char *err = "not a kmalloc pointer";
	uint64_t magic;

	if (!p)
		return;
	defer_free_poll();
	if (!mm_lock_allowed()) { /* RT=1, cannot sleep: later */
		might_lock(&kmalloc_lock);
		defer_free(p, 0);
		return;
	}
	if (!kmalloc_owns_page(page)) {
		report_bad_free(p, err);
		return;
	}
	magic = *(uint64_t *)page;
	if (magic == SLAB_MAGIC)
		err = slab_free((struct slab *)page, p);
	else if (magic == LARGE_MAGIC || magic == LARGE_FREED)
		err = large_free((struct large_hdr *)page, p);
	if (err)
		report_bad_free(p, err);
}

unsigned long kmalloc_bad_frees(void)
{
	return bad_frees;
}

long kmalloc_objects_in_use(int cls)
{
	if (cls < 0 || cls > KMALLOC_NR_CLASSES)
		return 0;
	if (!percpu_counter_initialized(&in_use[cls]))
		return atomic_long_read(&boot_in_use[cls]);
	return percpu_counter_sum(&in_use[cls]);
}

void kmalloc_slab_counts(int cls, unsigned long *slabs,
			 unsigned long *free_in_slabs)
{
	unsigned long flags = kmalloc_lock_irqsave();

	*slabs = nr_slabs[cls];
	*free_in_slabs = 0;
	for (struct slab *s = partial[cls]; s; s = s->next)
		*free_in_slabs += s->nr_free;
	kmalloc_unlock_irqrestore(flags);
}

unsigned long kmalloc_lock_acquisitions(void)
{
	return mm_lock_stat_sum(kmalloc_lock_count);
}

unsigned long kmalloc_lock_acquisitions_cpu(int cpu)
{
	return mm_lock_stat_cpu(kmalloc_lock_count, cpu);
}
