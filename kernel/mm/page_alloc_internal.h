/*
 * The page allocator's inside, shared by its two layers: the bitmap of
 * every page under page_lock (page_alloc.c) and the per-CPU page lists in
 * front of it (page_pcp.c). Not for use outside kernel/mm/.
 */
#ifndef MM_PAGE_ALLOC_INTERNAL_H
#define MM_PAGE_ALLOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "preempt.h"
#include "rwonce.h"

/* Word 1 of a page on a per-CPU list (word 0 is left alone: kmalloc
 * keeps its large-allocation magic there, for its double-free message).
 * Cleared when the page is handed out. A free that finds it looks the
 * page up under page_lock before calling it a double free: the owner's
 * data may hold the same bits. */
#define PCP_PAGE_POISON 0x9c9f9a6e9c9f9a6eul

static inline uint64_t *pcp_poison_word(void *page)
{
	return (uint64_t *)page + 1;
}

/* page_lock (mm_lock.h: interrupts off on RT=0), counted
 * (page_alloc_lock_acquisitions). */
unsigned long page_lock_irqsave(void);
void page_unlock_irqrestore(unsigned long flags);

/* Under page_lock: up to n single pages into pages[]; how many. */
int pages_take_locked(void **pages, int n);
/* Under page_lock: checks the run [pa, pa + n pages), then frees it, all
 * or nothing; NULL, or why it is a bad free. */
const char *free_run_locked(uint64_t pa, size_t n);
/* Under page_lock: the same checks without the free. */
const char *check_run_locked(uint64_t pa, size_t n);
/* The bitmap path, page_lock taken inside: a run of n pages, or NULL;
 * the run at p (a direct-map address) freed, or why it is a bad free. */
void *pages_alloc_shared(size_t n);
const char *pages_free_shared(void *p, size_t n);

/* Without the lock: the checks a single page passes before it may go on
 * a per-CPU list (p is a direct-map address). */
const char *page_free_precheck(void *p);
void page_report_bad_free(void *p, size_t n, const char *why);

/*
 * The per-CPU lists (page_pcp.c). page_pcp_usable(): the lists are on and
 * the caller could take a lock that sleeps on PREEMPT_RT (preemptible
 * task context); every other context uses the bitmap under page_lock.
 * page_pcp_alloc(): a page from this CPU's list (refilled in a batch when
 * empty), or NULL. page_pcp_free(): p (a direct-map address) onto it;
 * NULL, or why it is a bad free.
 */
extern bool page_pcp_on;

static inline bool page_pcp_usable(void)
{
	return READ_ONCE(page_pcp_on) && preemptible();
}

void *page_pcp_alloc(void);
const char *page_pcp_free(void *p);
/* Pages on all CPUs' lists (a snapshot while CPUs allocate). */
size_t page_pcp_total(void);
/* Under page_lock: whether page p is on one of the CPUs' lists. */
bool page_pcp_holds_locked(const void *p);

#endif
