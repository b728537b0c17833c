/*
 * The kernel's virtual address space:
 *
 *   0xffff800000000000  direct map: physical memory below DIRECT_MAP_SIZE,
 *                       at phys + DIRECT_MAP_BASE (2 MiB pages; device
 *                       registers by ioremap, uncached)
 *   0xffffc90000000000  kernel stacks, each with an unmapped guard page
 *                       (kernel/mm/stack.c)
 *   0xffffffff80000000  the kernel image, linked at KERNEL_VMA + physical
 *
 * The lower half is empty once boot is over (it is kept for user mode).
 */
#ifndef _ASM_X86_PAGE_H
#define _ASM_X86_PAGE_H

#include <stdint.h>

#define KERNEL_VMA      0xffffffff80000000ul
#define DIRECT_MAP_BASE 0xffff800000000000ul
/* How much physical memory the direct map covers (paging.c maps what the
 * memory map lists below it); the page allocator ignores memory above,
 * since it hands out direct-map addresses. 16 GiB: 8 page directories. */
#define DIRECT_MAP_SIZE (16ul << 30)
#define PAGE_SIZE       4096ul
#define PAGE_SHIFT      12

#define PAGE_ALIGN(x)      (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define PAGE_ALIGN_DOWN(x) ((x) & ~(PAGE_SIZE - 1))

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(pa + DIRECT_MAP_BASE);
}

/* Valid for direct-map and kernel-image addresses. */
static inline uint64_t virt_to_phys(const void *va)
{
	uintptr_t v = (uintptr_t)va;
	return v >= KERNEL_VMA ? v - KERNEL_VMA : v - DIRECT_MAP_BASE;
}

/* Linker-script symbols (linker.ld). */
extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_start[], __bss_end[], _end[];
extern char __boot_start[], __boot_end[];

#endif
