/*
 * Per-CPU page lists, as Linux's per_cpu_pages: each CPU keeps up to
 * PCP_HIGH free single pages, so that most page_alloc()/page_free() calls
 * touch only this CPU's list and never page_lock. An empty list is
 * refilled with PCP_BATCH pages in one acquisition of page_lock; a full
 * one gives PCP_BATCH back the same way.
 *
 * The list is protected by a local_lock_t inside the per-CPU structure
 * (local_lock.h): on RT=0 it disables preemption, on RT=1 it takes this
 * CPU's sleeping lock with migration disabled. Either way only a
 * preemptible task context may take it (the validator checks that on
 * both worlds), so page_pcp_usable() sends every other context (hardirq,
 * interrupts or preemption off, a raw spinlock held) to the bitmap under
 * page_lock (mm_lock.h: on RT=0 raw with interrupts off, legal
 * everywhere; on RT=1 such a context may not allocate), and no
 * interrupt handler ever touches a list, so a task on the list with
 * interrupts on cannot be interrupted by a second user of it.
 *
 * A list is an array (a stack: the page freed last, still warm in the
 * cache, is handed out first), so that a double-free check may scan other
 * CPUs' lists without following pointers that could change under it.
 */
#include "compiler.h"
#include "mm/page_alloc.h"
#include "mm/page_alloc_internal.h"
#include "mm/drain.h"
#include "locking/local_lock.h"
#include "asm/page.h"
#include "panic.h"
#include "printk.h"
#include "string.h"
#include "asm/barrier.h"

struct per_cpu_pages {
	local_lock_t lock;
	unsigned int count;            /* pages[0..count) are free */
	void *pages[PCP_HIGH];
};

static DEFINE_PER_CPU(struct per_cpu_pages, pcp_pages) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/* This CPU's list; the caller holds the local lock. Formed unchecked on
 * the hot path and checked at each refill and flush, as kmalloc's sheaves
 * are (kmalloc_pcp.c says why). */
static inline struct per_cpu_pages *this_pcp(void)
{
	return raw_cpu_ptr(&pcp_pages);
}

/* Off until page_pcp_init() (after the per-CPU areas exist). */
bool page_pcp_on;

/* LAB8 BEGIN */
/* The list is empty: up to PCP_BATCH pages from the bitmap. */
static void pcp_refill(struct per_cpu_pages *pcp)
{
	unsigned long flags = page_lock_irqsave();

	pcp->count = pages_take_locked(pcp->pages, PCP_BATCH);
	page_unlock_irqrestore(flags);
}
/* LAB8 END */

/* The n oldest pages (the bottom of the stack, the coldest) back to the
 * bitmap, and out of the array before page_lock is dropped, so that a
 * double-free check (under page_lock) never finds a page both here and
 * free. They were checked on their way in: a failure is a bug here. */
static void pcp_flush(struct per_cpu_pages *pcp, unsigned int n)
{
	/* LAB8 BEGIN */
	unsigned long flags = page_lock_irqsave();

	for (unsigned int i = 0; i < n; i++) {
		void *page = pcp->pages[i];

		*pcp_poison_word(page) = 0;
		if (WARN_ON(free_run_locked(virt_to_phys(page), 1)))
			printk("page_pcp: page %p from a list not freed\n", page);
	}
	memmove(pcp->pages, pcp->pages + n, (pcp->count - n) * sizeof(void *));
	pcp->count -= n;
	page_unlock_irqrestore(flags);
	/* LAB8 STUB: (void)pcp, (void)n; */
	/* LAB8 END */
}

void *page_pcp_alloc(void)
{
	/* LAB8 BEGIN */
	struct per_cpu_pages *pcp;
	void *page = 0;

	local_lock(&pcp_pages.lock);
	pcp = this_pcp();
	if (unlikely(pcp->count == 0))
		pcp_refill(this_cpu_ptr(&pcp_pages));
	if (pcp->count) {
		page = pcp->pages[--pcp->count];
		*pcp_poison_word(page) = 0;
	}
	local_unlock(&pcp_pages.lock);
	return page;
	/* LAB8 STUB: return pages_alloc_shared(1); */
	/* LAB8 END */
}

/* LAB8 BEGIN */
/* p carries the poison: a double free, or data that looks like one. */
static const char *pcp_check_suspect(void *p)
{
	unsigned long flags = page_lock_irqsave();
	const char *err = check_run_locked(virt_to_phys(p), 1);

	page_unlock_irqrestore(flags);
	return err;
}
/* LAB8 END */

const char *page_pcp_free(void *p)
{
	/* LAB8 BEGIN */
	const char *err = page_free_precheck(p);
	struct per_cpu_pages *pcp;

	if (err)
		return err;
	local_lock(&pcp_pages.lock);
	pcp = this_pcp();
	if (unlikely(*pcp_poison_word(p) == PCP_PAGE_POISON))
		err = pcp_check_suspect(p);
	if (!err) {
		if (pcp->count == PCP_HIGH)
			pcp_flush(this_cpu_ptr(&pcp_pages), PCP_BATCH);
		*pcp_poison_word(p) = PCP_PAGE_POISON;
		pcp->pages[pcp->count] = p;
		/* The entry before the count that covers it, for the
		 * lock-free readers (a plain store on x86). */
		smp_store_release(&pcp->count, pcp->count + 1);
	}
	local_unlock(&pcp_pages.lock);
	return err;
	/* LAB8 STUB: return pages_free_shared(p, 1); */
	/* LAB8 END */
}

/*
 * Under page_lock, which every move between a list and the bitmap holds:
 * a page on a list stays there while we look, unless its owner hands it
 * out meanwhile (then the free being checked is of a page someone else
 * now owns: a bug either way). The other CPUs' arrays are read without
 * their locks, one word at a time: exact for this CPU, whose lock the
 * caller may hold, and for idle CPUs.
 */
bool page_pcp_holds_locked(const void *p)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = raw_per_cpu_ptr(&pcp_pages, cpu);
		unsigned int n = READ_ONCE(pcp->count);

		for (unsigned int i = 0; i < n && i < PCP_HIGH; i++)
			if (READ_ONCE(pcp->pages[i]) == p)
				return true;
	}
	return false;
}

unsigned int page_pcp_count(int cpu)
{
	return READ_ONCE(raw_per_cpu_ptr(&pcp_pages, cpu)->count);
}

size_t page_pcp_total(void)
{
	size_t n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += page_pcp_count(cpu);
	return n;
}

/* Precondition (kernel/mm/page_alloc.h): nothing runs on cpu, so its list
 * is ours without its lock; the checker cannot see that, hence raw. */
void page_alloc_drain_cpu(int cpu)
{
	struct per_cpu_pages *pcp = raw_per_cpu_ptr(&pcp_pages, cpu);

	if (pcp->count)
		pcp_flush(pcp, pcp->count);
}

static void drain_this_cpu(void *arg)
{
	struct per_cpu_pages *pcp;

	local_lock(&pcp_pages.lock);
	pcp = this_cpu_ptr(&pcp_pages);
	if (pcp->count)
		pcp_flush(pcp, pcp->count);
	local_unlock(&pcp_pages.lock);
}

void page_alloc_drain_all(void)
{
	on_each_cpu_hop(drain_this_cpu, 0);
}

void page_pcp_init(bool on)
{
	page_pcp_on = on;
}

void page_pcp_set(bool on)
{
	WRITE_ONCE(page_pcp_on, on);
	if (!on)
		page_alloc_drain_all();
}

bool page_pcp_enabled(void)
{
	return READ_ONCE(page_pcp_on);
}
