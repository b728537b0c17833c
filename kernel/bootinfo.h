/*
 * What the boot loader told the kernel, in a form that names no boot
 * protocol: the memory map, the command line, the loader's name and the
 * ACPI RSDP. The arch reads the loader's own format (Multiboot2 on
 * x86-64, arch/x86_64/multiboot.c) and fills boot_info at the very start
 * of kmain (arch_setup_boot_info(), asm/setup.h); the core reads it from
 * then on.
 */
#ifndef BOOTINFO_H
#define BOOTINFO_H

#include <stdint.h>

#define BOOT_MAX_REGIONS 64
#define BOOT_CMDLINE_MAX 1024 /* room for explore_only= lists (explore.c) */

enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIMABLE = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

struct mem_region {
	uint64_t base;
	uint64_t len;
	uint32_t type; /* enum mem_type */
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	char loader[64];
	struct mem_region regions[BOOT_MAX_REGIONS];
	int nr_regions;
	uint8_t rsdp[36];  /* the ACPI RSDP copied from the loader, if any */
	int rsdp_len;      /* 0: none given; 20: ACPI 1.0; 36: ACPI 2.0+ */
};

extern struct boot_info boot_info;

/* The value of "key=value" on the command line, copied into buf; NULL if
 * the key is absent. A bare "key" gives "". */
const char *cmdline_get(const char *key, char *buf, int size);

#endif
