/*
 * Segments and the task state segment. Long mode ignores segment bases and
 * limits, so the GDT holds only the kernel code and data descriptors and
 * the TSS, whose job here is the interrupt stack table: the known-good
 * stacks that double fault, NMI and machine check switch to, so that a
 * fault on a broken stack (an overflow into the guard page) can still be
 * reported.
 */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#include <stdint.h>

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL   0x18

/* IST slots (1-based in the IDT gate, as the CPU numbers them). */
enum { IST_DOUBLE_FAULT = 1, IST_NMI = 2, IST_MACHINE_CHECK = 3, IST_COUNT = 3 };

#define IST_STACK_SIZE 8192

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

_Static_assert(sizeof(struct tss) == 104, "TSS layout (SDM vol. 3, 8.7)");

enum { GDT_NULL, GDT_KCODE, GDT_KDATA, GDT_TSS_LO, GDT_TSS_HI, GDT_ENTRIES };

/* One per CPU: the TSS is per CPU because the CPU marks its descriptor
 * busy on ltr, and each CPU needs its own IST stacks. */
struct cpu_tables {
	uint64_t gdt[GDT_ENTRIES];
	struct tss tss;
};

/* Fill t with IST stacks whose tops are ist_top[0..IST_COUNT-1], then load
 * the GDT, reload the segment registers and load the TSS on this CPU. */
void gdt_load(struct cpu_tables *t, const uintptr_t ist_top[IST_COUNT]);

#endif
