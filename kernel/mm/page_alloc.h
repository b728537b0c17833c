/*
 * The physical page allocator: 4 KiB pages, handed out as direct-map
 * addresses, single pages through a per-CPU list in front of the shared
 * bitmap (page_pcp.c).
 */
#ifndef PAGE_ALLOC_H
#define PAGE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "asm/page.h"

/* Pages above this physical address are ignored (with a message): the
 * allocator hands out direct-map addresses, and the arch sizes the direct
 * map. */
#define PAGE_ALLOC_MAX_PHYS DIRECT_MAP_SIZE

void page_alloc_init(void);

/* n physically contiguous pages, not zeroed; NULL when none are left.
 * Any context, hardirq included, on RT=0; on RT=1 only where the caller
 * may sleep: elsewhere NULL, and a free is carried out later, both with
 * the validator's wait-context report (mm/mm_lock.h). */
void *pages_alloc(size_t n);
void pages_free(void *p, size_t n);

static inline void *page_alloc(void)
{
	return pages_alloc(1);
}

static inline void page_free(void *p)
{
	pages_free(p, 1);
}

/* A page's physical address (not zeroed), or 0; for the page tables,
 * which are built before the direct map exists. */
uint64_t page_alloc_phys(void);

/* Free pages, counting those on the per-CPU lists (a snapshot while
 * CPUs allocate; exact when they do not). */
size_t page_free_count(void);
size_t page_total_count(void);
/* Double frees and frees of pages that were never handed out, so far. */
unsigned long page_alloc_bad_frees(void);

/*
 * Per-CPU page lists: up to PCP_HIGH free pages per CPU, refilled and
 * flushed PCP_BATCH at a time from and to the shared bitmap. Off until
 * page_pcp_init() (kmain(), once the per-CPU areas exist), which turns
 * them on unless the boot option page_pcp=0 said no; page_pcp_set()
 * switches them at run time (off drains them: preemptible task context).
 */
#define PCP_HIGH  64
#define PCP_BATCH 16
void page_pcp_init(bool on);
void page_pcp_set(bool on);
bool page_pcp_enabled(void);
/* Pages on CPU cpu's list (a racy snapshot). */
unsigned int page_pcp_count(int cpu);

/*
 * Give the lists' pages back to the bitmap.
 * page_alloc_drain_cpu(cpu): CPU cpu's list, from any CPU, without its
 *   lock. Precondition: nothing runs on cpu any more and no task holds
 *   its list's lock (it is offline, its tasks gone: the hotplug drain).
 * page_alloc_drain_all(): every online CPU's list, each on its own CPU
 *   under its lock, the caller moving there and back (mm/drain.h):
 *   preemptible task context, migration enabled.
 */
void page_alloc_drain_cpu(int cpu);
void page_alloc_drain_all(void);

/* Acquisitions of the shared page_lock, by all CPUs or by one. */
unsigned long page_alloc_lock_acquisitions(void);
unsigned long page_alloc_lock_acquisitions_cpu(int cpu);

#endif
