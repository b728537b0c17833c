/*
 * The kernel's virtual address space:
 *
 *   0xffff800000000000  direct map: physical memory below DIRECT_MAP_SIZE,
 *                       at phys + DIRECT_MAP_BASE (2 MiB pages; device
 *                       registers by ioremap, uncached)
 *   0xffffc90000000000  kernel stacks, each with an unmapped guard page
 *                       (kernel/mm/stack.c)
 *   0xffffffff80000000  the kernel image, linked at KERNEL_VMA + physical
 *   0xffffffffc0000000  the per-CPU areas (kernel/mm/percpu.c): CPU c's at
 *                       PERCPU_REGION + c * PERCPU_AREA_STRIDE
 *
 * The lower half is empty once boot is over (it is kept for user mode).
 *
 * The per-CPU areas have the top GiB to themselves, so that "is this
 * address in some CPU's area?" is one comparison with a constant, which
 * the per-CPU checker's compiler hooks make before every instrumented
 * load and store (arch/x86_64/tsan_call.S), and "whose, and where?" is a
 * shift and a mask. The constants below are also read by the assembler,
 * hence no C suffixes: an unsuffixed hex constant too large for long is
 * unsigned long in C.
 */
#ifndef _ASM_X86_PAGE_H
#define _ASM_X86_PAGE_H

#define PERCPU_REGION      0xffffffffc0000000
/* Each CPU's slot: its area, then (LOCKDEP=1) the checker's shadow of it
 * (kernel/locking/lockdep_percpu.c) at half the slot; unmapped past each. */
#define PERCPU_AREA_SHIFT  20
#define PERCPU_AREA_STRIDE (1 << PERCPU_AREA_SHIFT)
#define PERCPU_AREA_MAX    (PERCPU_AREA_STRIDE / 2)

#ifndef __ASSEMBLER__

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

#endif /* !__ASSEMBLER__ */

#endif
