/*
 * The physical page allocator: one bit per 4 KiB page of physical memory
 * below PAGE_ALLOC_MAX_PHYS (set = in use), searched first-fit from a hint.
 * A bitmap rather than a free list, because it lets a free check that the
 * pages were really handed out: a double free or a free of a reserved page
 * is reported and ignored instead of corrupting the allocator.
 *
 * This file is the shared layer, under page_lock. In front of it each CPU
 * keeps a list of free single pages (page_pcp.c, as Linux's
 * per_cpu_pages), refilled and flushed in batches; a page on a list is
 * free for page_free_count() but marked in use in the bitmap.
 */
#include "irqflags.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"
#include "mm/drain.h"
#include "mm/mm_lock.h"
#include "mm/defer_free.h"
#include "asm/page.h"
#include "bootinfo.h"
#include "panic.h"
#include "printk.h"
#include "locking/spinlock.h"
#include "string.h"
#include "rwonce.h"
#include "asm/bitops.h"

#define NR_PAGES (PAGE_ALLOC_MAX_PHYS / PAGE_SIZE)

/* All fields under page_lock (mm_lock.h: raw with interrupts off on
 * RT=0, where frees may come from interrupt context; sleeping on RT=1). */
static DEFINE_MM_LOCK(page_lock);
static unsigned long page_bitmap[NR_PAGES / 64];
static size_t nr_pages;     /* pages covered: up to the highest usable one */
/* Under page_lock; read without it (page_free_count()): one store each. */
static size_t free_pages;
static size_t total_pages;  /* usable pages after the boot reservations */
static size_t search_hint;  /* no free page below this index */
static unsigned long bad_frees;
/* page_lock acquisitions: the figure the per-CPU lists make small. */
MM_LOCK_STAT_DEFINE(page_lock_count);

unsigned long page_lock_irqsave(void)
{
	return mm_lock_irqsave_counted(&page_lock, page_lock_count);
}

void page_unlock_irqrestore(unsigned long flags)
{
	mm_unlock_irqrestore(&page_lock, flags);
}

static bool page_used(size_t i)
{
	return page_bitmap[i / 64] & (1ul << (i % 64));
}

static void page_set(size_t i, bool used)
{
	if (used)
		page_bitmap[i / 64] |= 1ul << (i % 64);
	else
		page_bitmap[i / 64] &= ~(1ul << (i % 64));
}

static void mark_range(uint64_t base, uint64_t end, bool used)
{
	for (uint64_t pa = base; pa < end && pa / PAGE_SIZE < nr_pages;
	     pa += PAGE_SIZE) {
		size_t i = pa / PAGE_SIZE;

		if (page_used(i) != used) {
			page_set(i, used);
			WRITE_ONCE(free_pages, free_pages + (used ? -1 : 1));
		}
	}
}

static void free_usable_regions(void)
{
	for (int r = 0; r < boot_info.nr_regions; r++) {
		const struct mem_region *m = &boot_info.regions[r];
		uint64_t base = PAGE_ALIGN(m->base);
		uint64_t end = PAGE_ALIGN_DOWN(m->base + m->len);

		if (m->type != MEM_USABLE || end <= base)
			continue;
		if (end > PAGE_ALLOC_MAX_PHYS) {
			printk("page_alloc: ignoring memory above %lu GiB\n",
			       PAGE_ALLOC_MAX_PHYS >> 30);
			end = PAGE_ALLOC_MAX_PHYS;
		}
		if (end / PAGE_SIZE > nr_pages)
			nr_pages = end / PAGE_SIZE;
	}
	memset(page_bitmap, 0xff, sizeof(page_bitmap));
	for (int r = 0; r < boot_info.nr_regions; r++) {
		const struct mem_region *m = &boot_info.regions[r];

		if (m->type == MEM_USABLE)
			mark_range(PAGE_ALIGN(m->base),
				   PAGE_ALIGN_DOWN(m->base + m->len), false);
	}
}

void page_alloc_init(void)
{
	free_usable_regions();
	/* The first MiB holds the BIOS data, the AP trampoline and legacy
	 * ROM; the kernel image follows it, where GRUB loaded it. */
	mark_range(0, virt_to_phys(_end), true);
	total_pages = free_pages;
	search_hint = 0;
}

/* First run of n free pages at or after the hint; nr_pages if none.
 * *first_free is the first free page seen (nr_pages if none). */
static size_t find_free_run(size_t n, size_t *first_free)
{
	size_t run = 0;

	*first_free = nr_pages;
	for (size_t i = search_hint; i < nr_pages; i++) {
		run = page_used(i) ? 0 : run + 1;
		if (run == 1 && *first_free == nr_pages)
			*first_free = i;
		if (run == n)
			return i + 1 - n;
	}
	return nr_pages;
}

/* Under page_lock: the index of a run of n pages now marked in use, or
 * nr_pages when there is none. */
static size_t alloc_run_locked(size_t n)
{
	size_t first, first_free;

	first = find_free_run(n, &first_free);
	if (first < nr_pages) {
		for (size_t i = first; i < first + n; i++)
			page_set(i, true);
		WRITE_ONCE(free_pages, free_pages - n);
		/* Everything in [hint, first_free) is in use. */
		search_hint = first_free == first ? first + n : first_free;
	} else {
		search_hint = first_free;
	}
	return first;
}

static uint64_t alloc_run_phys(size_t n)
{
	unsigned long flags = page_lock_irqsave();
	size_t first = alloc_run_locked(n);

	page_unlock_irqrestore(flags);
	return first < nr_pages ? first * PAGE_SIZE : 0;
}

int pages_take_locked(void **pages, int n)
{
	int got = 0;
	size_t i;

	while (got < n && (i = alloc_run_locked(1)) < nr_pages)
		pages[got++] = phys_to_virt(i * PAGE_SIZE);
	return got;
}

void *pages_alloc_shared(size_t n)
{
	uint64_t pa = alloc_run_phys(n);

	return pa ? phys_to_virt(pa) : 0;
}

static void *pages_alloc_once(size_t n)
{
	if (n == 1 && page_pcp_usable())
		return page_pcp_alloc();
	return pages_alloc_shared(n);
}

/*
 * When the bitmap has no run left, pages may still wait on the CPUs'
 * lists: a caller that may move from CPU to CPU drains them all (as
 * Linux's allocator does before it gives up) and tries once more. Any
 * other caller (interrupts or preemption off, migration disabled) gets
 * NULL, as an atomic allocation would in Linux.
 */
void *pages_alloc(size_t n)
{
	void *p;

	if (n == 0 || n > nr_pages)
		return 0;
	defer_free_poll();
	if (!mm_lock_allowed()) { /* RT=1, cannot sleep: refused */
		might_lock(&page_lock);
		return 0;
	}
	p = pages_alloc_once(n);
	if (!p && page_pcp_total() && on_each_cpu_hop_possible()) {
		page_alloc_drain_all();
		p = pages_alloc_once(n);
	}
	return p;
}

uint64_t page_alloc_phys(void)
{
	if (!mm_lock_allowed()) {
		might_lock(&page_lock);
		return 0;
	}
	return alloc_run_phys(1);
}

void page_report_bad_free(void *p, size_t n, const char *why)
{
	bad_frees++;
	printk("BUG: page_alloc: bad free of %lu page(s) at %p: %s\n",
	       (unsigned long)n, p, why);
	dump_stack();
}

/* Pages the allocator never hands out: the first MiB, the kernel image and
 * whatever the memory map does not call usable. */
static bool page_reserved(uint64_t pa)
{
	if (pa < virt_to_phys(_end))
		return true;
	for (int r = 0; r < boot_info.nr_regions; r++) {
		const struct mem_region *m = &boot_info.regions[r];

		if (m->type == MEM_USABLE && pa >= m->base &&
		    pa + PAGE_SIZE <= m->base + m->len)
			return false;
	}
	return true;
}

const char *check_run_locked(uint64_t pa, size_t n)
{
	size_t first = pa / PAGE_SIZE;

	if (pa % PAGE_SIZE)
		return "not page aligned";
	if (first + n > nr_pages || first + n < first)
		return "not a page of this allocator";
	for (size_t i = first; i < first + n; i++) {
		void *page = phys_to_virt(i * PAGE_SIZE);

		if (page_reserved(i * PAGE_SIZE))
			return "reserved page, never allocated";
		if (!page_used(i))
			return "double free (page already free)";
		if (*pcp_poison_word(page) == PCP_PAGE_POISON &&
		    page_pcp_holds_locked(page))
			return "double free (page on a per-CPU list)";
	}
	return 0;
}

/* Without page_lock, for a single page on its way to a per-CPU list:
 * the bit of a page its caller owns is set and stays so, and bits are
 * changed in whole-word stores under page_lock, so an unlocked load of
 * the word is exact for this page. */
const char *page_free_precheck(void *p)
{
	uintptr_t va = (uintptr_t)p;
	size_t i = (va - DIRECT_MAP_BASE) / PAGE_SIZE;

	if (va % PAGE_SIZE)
		return "not page aligned";
	if (i >= nr_pages)
		return "not a page of this allocator";
	if (page_reserved(i * PAGE_SIZE))
		return "reserved page, never allocated";
	if (!test_bit(i, page_bitmap))
		return "double free (page already free)";
	return 0;
}

const char *free_run_locked(uint64_t pa, size_t n)
{
	size_t first = pa / PAGE_SIZE;
	const char *err = check_run_locked(pa, n);

	if (err)
		return err;
	for (size_t i = first; i < first + n; i++)
		page_set(i, false);
	WRITE_ONCE(free_pages, free_pages + n);
	if (first < search_hint)
		search_hint = first;
	return 0;
}

static bool in_direct_map(uintptr_t va)
{
	return va >= DIRECT_MAP_BASE &&
	       va < DIRECT_MAP_BASE + PAGE_ALLOC_MAX_PHYS;
}

const char *pages_free_shared(void *p, size_t n)
{
	unsigned long flags = page_lock_irqsave();
	const char *err = free_run_locked((uintptr_t)p - DIRECT_MAP_BASE, n);

	page_unlock_irqrestore(flags);
	return err;
}

void pages_free(void *p, size_t n)
{
	uintptr_t va = (uintptr_t)p;
	const char *err = "not a direct-map address";

	defer_free_poll();
	if (!mm_lock_allowed()) { /* RT=1, cannot sleep: later */
		might_lock(&page_lock);
		if (n) /* npages 0 would mean kfree() to defer_free() */
			defer_free(p, n);
		return;
	}
	if (in_direct_map(va) && n == 1 && page_pcp_usable()) {
		err = page_pcp_free(p);
	} else if (in_direct_map(va)) {
		err = pages_free_shared(p, n);
	}
	if (err)
		page_report_bad_free(p, n, err);
}

/* Pages on the CPUs' lists are free too: the count moves by exactly
 * what callers take and give back, wherever the pages wait. */
size_t page_free_count(void)
{
	return READ_ONCE(free_pages) + page_pcp_total();
}

size_t page_total_count(void)
{
	return total_pages;
}

unsigned long page_alloc_bad_frees(void)
{
	return bad_frees;
}

unsigned long page_alloc_lock_acquisitions(void)
{
	return mm_lock_stat_sum(page_lock_count);
}

unsigned long page_alloc_lock_acquisitions_cpu(int cpu)
{
	return mm_lock_stat_cpu(page_lock_count, cpu);
}
