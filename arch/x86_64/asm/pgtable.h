/*
 * 4-level paging: the kernel's page tables, shared by every CPU. The image
 * is mapped with 4 KiB pages and per-section permissions (text R-X, rodata
 * R--, data RW-, all NX but text), physical memory with 2 MiB pages in the
 * direct map, and device registers with uncached 4 KiB pages by ioremap().
 * Each user process has a PML4 of its own whose upper half is the
 * kernel's (the same PDPT pages, so later kernel mappings show through)
 * and whose lower half maps its pages with PTE_U.
 */
#ifndef _ASM_X86_PGTABLE_H
#define _ASM_X86_PGTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTE_P   (1ul << 0)
#define PTE_W   (1ul << 1)
#define PTE_U   (1ul << 2)
#define PTE_PWT (1ul << 3)
#define PTE_PCD (1ul << 4)
#define PTE_PS  (1ul << 7)
#define PTE_G   (1ul << 8)
#define PTE_SHARED (1ul << 9) /* software: a user page its table does not own */
#define PTE_NX  (1ul << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ul

/* Build the kernel page tables and switch to them (boot CPU, once). */
void paging_init(void);

/* The physical address of the kernel's PML4, for CR3 on other CPUs. */
uint64_t paging_kernel_cr3(void);

/* Map or unmap one 4 KiB page in the kernel tables (splitting a 2 MiB
 * mapping when needed). Returns false when a page table can't be had. */
bool paging_map_page(uintptr_t va, uint64_t pa, uint64_t flags);
void paging_unmap_page(uintptr_t va);

/* The flags of the entry that maps va (PTE_P clear when unmapped). */
uint64_t paging_lookup(uintptr_t va);

/* The physical address va maps to (0 when unmapped). */
uint64_t paging_translate(uintptr_t va);

/* Invalidate [start, end) in every online CPU's TLB: after an unmap, before
 * the pages are reused. Needs interrupts on (it waits for the others). */
void flush_tlb_kernel_range(uintptr_t start, uintptr_t end);

/* Flush every online CPU's TLB of all but global (kernel image, direct
 * map) entries. Needs interrupts on. */
void flush_tlb_all(void);

/* Device registers: pa..pa+size mapped uncached in the direct map. */
void *ioremap(uint64_t pa, size_t size);

/* A user address space: a new PML4 (physical address; 0 when out of
 * memory) sharing the kernel half. */
uint64_t pgd_alloc(void);

/* Map the page at pa at user address va with flags (PTE_W, PTE_NX,
 * PTE_SHARED; PTE_U is added). False when a page table can't be had. */
bool pgd_map_user(uint64_t pgd, uintptr_t va, uint64_t pa, uint64_t flags);

/* The entry that maps user address va (0 when unmapped). */
uint64_t pgd_lookup_user(uint64_t pgd, uintptr_t va);

/* Free the user half's tables, the pages they map (but PTE_SHARED ones)
 * and the PML4. It must not be loaded on any CPU. */
void pgd_free(uint64_t pgd);

/* Load pgd (or paging_kernel_cr3()) on this CPU, unless it is loaded. */
void switch_pgd(uint64_t pgd);

#endif
