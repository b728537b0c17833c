/*
 * The physical page allocator: 4 KiB pages, handed out as direct-map
 * addresses.
 */
#ifndef PAGE_ALLOC_H
#define PAGE_ALLOC_H

#include <stddef.h>
#include <stdint.h>
#include "asm/page.h"

/* Pages above this physical address are ignored (with a message): the
 * allocator hands out direct-map addresses, and the arch sizes the direct
 * map. */
#define PAGE_ALLOC_MAX_PHYS DIRECT_MAP_SIZE

void page_alloc_init(void);

/* n physically contiguous pages, not zeroed; NULL when none are left. */
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

size_t page_free_count(void);
size_t page_total_count(void);
/* Double frees and frees of pages that were never handed out, so far. */
unsigned long page_alloc_bad_frees(void);

#endif
