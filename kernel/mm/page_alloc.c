/*
 * The physical page allocator: one bit per 4 KiB page of physical memory
 * below PAGE_ALLOC_MAX_PHYS (set = in use), searched first-fit from a hint.
 * A bitmap rather than a free list, because it lets a free check that the
 * pages were really handed out: a double free or a free of a reserved page
 * is reported and ignored instead of corrupting the allocator.
 */
#include "irqflags.h"
#include "mm/page_alloc.h"
#include "asm/page.h"
#include "bootinfo.h"
#include "panic.h"
#include "printk.h"
#include "locking/spinlock.h"
#include "string.h"

#define NR_PAGES (PAGE_ALLOC_MAX_PHYS / PAGE_SIZE)

/* All fields under page_lock (taken with interrupts off: frees may come
 * from interrupt context). */
static DEFINE_RAW_SPINLOCK(page_lock);
static uint64_t page_bitmap[NR_PAGES / 64];
static size_t nr_pages;     /* pages covered: up to the highest usable one */
static size_t free_pages;
static size_t total_pages;  /* usable pages after the boot reservations */
static size_t search_hint;  /* no free page below this index */
static unsigned long bad_frees;

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
			free_pages += used ? -1 : 1;
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

static uint64_t alloc_run_phys(size_t n)
{
	unsigned long flags;
	size_t first, first_free;

	raw_spin_lock_irqsave(&page_lock, flags);
	first = find_free_run(n, &first_free);
	if (first < nr_pages) {
		for (size_t i = first; i < first + n; i++)
			page_set(i, true);
		free_pages -= n;
		/* Everything in [hint, first_free) is in use. */
		search_hint = first_free == first ? first + n : first_free;
	} else {
		search_hint = first_free;
	}
	raw_spin_unlock_irqrestore(&page_lock, flags);
	return first < nr_pages ? first * PAGE_SIZE : 0;
}

void *pages_alloc(size_t n)
{
	uint64_t pa;

	if (n == 0 || n > nr_pages)
		return 0;
	pa = alloc_run_phys(n);
	return pa ? phys_to_virt(pa) : 0;
}

uint64_t page_alloc_phys(void)
{
	return alloc_run_phys(1);
}

static void report_bad_free(void *p, size_t n, const char *why)
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

/* Called with page_lock held: checks, then frees, all or nothing. */
static const char *free_run_locked(uint64_t pa, size_t n)
{
	size_t first = pa / PAGE_SIZE;

	if (pa % PAGE_SIZE)
		return "not page aligned";
	if (first + n > nr_pages || first + n < first)
		return "not a page of this allocator";
	for (size_t i = first; i < first + n; i++) {
		if (page_reserved(i * PAGE_SIZE))
			return "reserved page, never allocated";
		if (!page_used(i))
			return "double free (page already free)";
	}
	for (size_t i = first; i < first + n; i++)
		page_set(i, false);
	free_pages += n;
	if (first < search_hint)
		search_hint = first;
	return 0;
}

void pages_free(void *p, size_t n)
{
	uintptr_t va = (uintptr_t)p;
	const char *err = "not a direct-map address";
	unsigned long flags;

	if (va >= DIRECT_MAP_BASE && va < DIRECT_MAP_BASE + PAGE_ALLOC_MAX_PHYS) {
		raw_spin_lock_irqsave(&page_lock, flags);
		err = free_run_locked(va - DIRECT_MAP_BASE, n);
		raw_spin_unlock_irqrestore(&page_lock, flags);
	}
	if (err)
		report_bad_free(p, n, err);
}

size_t page_free_count(void)
{
	return free_pages;
}

size_t page_total_count(void)
{
	return total_pages;
}

unsigned long page_alloc_bad_frees(void)
{
	return bad_frees;
}
