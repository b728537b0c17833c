/*
 * Segments and the task state segment. Long mode ignores segment bases and
 * limits, so the GDT holds the kernel and user code and data descriptors,
 * the TSS and one descriptor whose limit is the CPU's number (for getcpu
 * without a system call: user code reads it with lsl). The TSS holds RSP0,
 * the kernel stack an interrupt from ring 3 switches to, and the interrupt
 * stack table: the known-good stacks that double fault, NMI and machine
 * check switch to, so that a fault on a broken stack (an overflow into the
 * guard page) can still be reported.
 */
#ifndef ARCH_GDT_H
#define ARCH_GDT_H

#include <stdint.h>

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL   0x18
/* syscall loads CS = KERNEL_CS and SS = KERNEL_CS + 8; sysretq loads
 * SS = STAR_SYSRET_BASE + 8 and CS = STAR_SYSRET_BASE + 16 (the slot at
 * the base is the 32-bit user code segment, which we leave empty). */
#define STAR_SYSRET_BASE 0x28
#define USER_DS   (0x30 | 3)
#define USER_CS   (0x38 | 3)
#define CPUNUM_SEL (0x40 | 3)

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

enum {
	GDT_NULL, GDT_KCODE, GDT_KDATA, GDT_TSS_LO, GDT_TSS_HI, GDT_UCODE32,
	GDT_UDATA, GDT_UCODE, GDT_CPUNUM, GDT_ENTRIES
};

/* One per CPU: the TSS is per CPU because the CPU marks its descriptor
 * busy on ltr, and each CPU needs its own IST stacks. */
struct cpu_tables {
	uint64_t gdt[GDT_ENTRIES];
	struct tss tss;
};

/* Fill t for CPU cpu with IST stacks whose tops are
 * ist_top[0..IST_COUNT-1], then load the GDT, reload the segment registers
 * and load the TSS on this CPU. */
void gdt_load(struct cpu_tables *t, int cpu,
	      const uintptr_t ist_top[IST_COUNT]);

#endif
