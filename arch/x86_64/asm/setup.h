/* Bringing the boot CPU into the state the portable kernel expects. */
#ifndef _ASM_X86_SETUP_H
#define _ASM_X86_SETUP_H

#include <stdbool.h>

struct boot_info;

/*
 * Read what the boot loader handed over (on x86-64 the Multiboot2
 * information, whose address and magic the loader left in registers) into
 * bi, the neutral struct of bootinfo.h: the memory map, the command line,
 * the loader's name, the ACPI RSDP. Before anything allocates memory:
 * the loader's information lies in memory the page allocator hands out.
 * Panics on a missing or malformed one.
 */
void arch_setup_boot_info(struct boot_info *bi);

/* GDT, TSS with IST stacks, and IDT on the boot CPU. */
void arch_cpu_init_boot(void);

/* The interrupt controllers: find them (ACPI MADT), mask the legacy 8259,
 * enable the boot CPU's local APIC, and program the I/O APICs with every
 * pin masked. Before arch_find_cpus(). */
void arch_init_irq(void);

/* Print the CPU's vendor, model and the features the kernel cares about. */
void cpu_print_features(void);
/* CPUID's hypervisor bit: this CPU is a virtual machine's vCPU. */
bool cpu_has_hypervisor(void);

#endif
