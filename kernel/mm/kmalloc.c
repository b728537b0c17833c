/*
 * kmalloc: power-of-two size classes from 16 to 2048 bytes, each served
 * from slabs of one page (a header, then equal objects); larger requests
 * take whole pages with a header in front. Every page kmalloc owns starts
 * with a magic number, so kfree can tell its own pointers from others, and
 * a freed object carries a poison word, so a double free is caught.
 */
#include <stdint.h>
#include "irqflags.h"
#include "mm/kmalloc.h"
#include "asm/page.h"
#include "mm/page_alloc.h"
#include "asm/pgtable.h"
#include "panic.h"
#include "printk.h"
#include "locking/spinlock.h"
#include "string.h"

#define SLAB_MAGIC  0x51ab51ab51ab51abul
#define LARGE_MAGIC 0x1a26e1a26e1a26e0ul
#define LARGE_FREED 0xdeadbeefdeadbeeful
#define FREE_POISON 0xf4eef4eef4eef4eeul
#define MIN_SHIFT 4
#define MAX_SHIFT 11
#define NR_CLASSES (MAX_SHIFT - MIN_SHIFT + 1)

/* At the start of every slab page. */
struct slab {
	uint64_t magic;
	struct slab *next;      /* next slab of this class with free objects */
	void *free;             /* free objects, linked through their first word */
	uint32_t obj_size;
	uint32_t nr_free;
	uint32_t nr_objs;
	uint32_t on_list;       /* on its class's partial list */
};

/* In front of a large allocation (16 bytes keeps the data aligned). */
struct large_hdr {
	uint64_t magic;
	uint64_t npages;
};

/* A free object: the poison word lets kfree recognise it. */
struct free_obj {
	struct free_obj *next;
	uint64_t poison;
};

#define SLAB_HDR_SIZE ((sizeof(struct slab) + 15) & ~15ul)

/* Each class's slabs that have a free object; under kmalloc_lock. */
static struct slab *partial[NR_CLASSES];
static DEFINE_RAW_SPINLOCK(kmalloc_lock);
static unsigned long bad_frees;

static int size_class(size_t size)
{
	int shift = MIN_SHIFT;

	while ((1ul << shift) < size)
		shift++;
	return shift - MIN_SHIFT;
}

static struct slab *slab_new(int cls)
{
	struct slab *s = page_alloc();
	uint32_t size = 1u << (cls + MIN_SHIFT);
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
	return s;
}

static void *slab_alloc(int cls)
{
	unsigned long flags;
	struct slab *s;
	struct free_obj *o = 0;

	raw_spin_lock_irqsave(&kmalloc_lock, flags);
	s = partial[cls];
	if (!s && (s = slab_new(cls))) {
		s->on_list = 1;
		partial[cls] = s;
	}
	if (s) {
		o = s->free;
		s->free = o->next;
		o->poison = 0;
		if (--s->nr_free == 0) {
			partial[cls] = s->next;
			s->on_list = 0;
		}
	}
	raw_spin_unlock_irqrestore(&kmalloc_lock, flags);
	return o;
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
	if (size == 0)
		return 0;
	if (size > (1ul << MAX_SHIFT))
		return large_alloc(size);
	return slab_alloc(size_class(size));
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

static bool on_free_list(struct slab *s, struct free_obj *o)
{
	for (struct free_obj *f = s->free; f; f = f->next)
		if (f == o)
			return true;
	return false;
}

static void partial_unlink(struct slab *s, int cls)
{
	struct slab **pp = &partial[cls];

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	s->on_list = 0;
}

/*
 * Called with kmalloc_lock held; returns an error or NULL. An empty slab
 * goes back to the page allocator at once, so that memory freed by kfree
 * shows up in the free page count (tests compare it before and after).
 */
static const char *slab_free_locked(struct slab *s, void *p, bool *empty)
{
	struct free_obj *o = p;
	uintptr_t off = (uintptr_t)p - (uintptr_t)s;
	int cls = size_class(s->obj_size);

	if (off < SLAB_HDR_SIZE || off % s->obj_size)
		return "not the start of an object";
	if (o->poison == FREE_POISON && on_free_list(s, o))
		return "double free";
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
		*empty = true;
	}
	return 0;
}

static const char *large_free(struct large_hdr *h, void *p)
{
	if (p != h + 1)
		return "not the start of an allocation";
	if (h->magic == LARGE_FREED)
		return "double free";
	h->magic = LARGE_FREED;
	pages_free(h, h->npages);
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
	if (!kmalloc_owns_page(page)) {
		report_bad_free(p, err);
		return;
	}
	magic = *(uint64_t *)page;
	if (magic == SLAB_MAGIC) {
		unsigned long flags;
		bool empty = false;

		raw_spin_lock_irqsave(&kmalloc_lock, flags);
		err = slab_free_locked((struct slab *)page, p, &empty);
		raw_spin_unlock_irqrestore(&kmalloc_lock, flags);
		if (empty)
			page_free((void *)page);
	} else if (magic == LARGE_MAGIC || magic == LARGE_FREED) {
		err = large_free((struct large_hdr *)page, p);
	}
	if (err)
		report_bad_free(p, err);
}

unsigned long kmalloc_bad_frees(void)
{
	return bad_frees;
}
