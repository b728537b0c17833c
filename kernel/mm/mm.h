/*
 * A process's address space: its own page tables, whose kernel half is
 * shared with every other address space and whose user half holds the
 * program's segments, its stack and any shared pages. Pages are mapped
 * when the address space is built (there is no demand paging), so a user
 * page fault is always the program's error.
 *
 * User layout:
 *   0x00010000 .. SHM_BASE     the program's ELF segments
 *   SHM_BASE                   pages shared by key (shm.c)
 *   USER_STACK_TOP - 32 KiB .. USER_STACK_TOP   the stack
 */
#ifndef MM_H
#define MM_H

#include <stddef.h>
#include <stdint.h>
#include "user/uapi.h"
#include "asm/uaccess.h"

#define USER_LOAD_MIN   0x10000ul
#define USER_LOAD_MAX   SHM_BASE
#define USER_STACK_TOP  0x00007fffffff0000ul
#define USER_STACK_SIZE (32 * 1024ul)

/* Page protections for mm_map_zero(). */
#define MM_WRITE 1u
#define MM_EXEC  2u

struct mm {
	uint64_t pgd;                /* physical address of the PML4 */
};

/* 0, or -ENOMEM. */
int mm_init(struct mm *mm);
/* Frees every page the address space owns; it must not be loaded. */
void mm_destroy(struct mm *mm);

/* Map fresh zeroed pages over [va, va + len) (page-rounded) with prot.
 * 0, -EINVAL when a page there is mapped already, or -ENOMEM. */
int mm_map_zero(struct mm *mm, uintptr_t va, size_t len, unsigned prot);

/* Map an existing page (not owned: mm_destroy leaves it) at va. */
int mm_map_shared(struct mm *mm, uintptr_t va, void *page);

/* Copy len bytes into the address space at va, whose pages are mapped:
 * for building it before it runs. 0, or -EFAULT for an unmapped page. */
int mm_write(struct mm *mm, uintptr_t va, const void *src, size_t len);

#endif
