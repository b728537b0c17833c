/*
 * What the boot loader tells us, copied out of the Multiboot2 information
 * at the very start of kmain (GRUB places that information just past the
 * kernel's .bss, in memory the page allocator will hand out).
 */
#ifndef MULTIBOOT_H
#define MULTIBOOT_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "cmdline.h"  /* the options in boot_info.cmdline */

#define MULTIBOOT2_BOOT_MAGIC 0x36d76289
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
	size_t cmdline_len;  /* as the loader gave it: >= BOOT_CMDLINE_MAX, cut */
	char loader[64];
	struct mem_region regions[BOOT_MAX_REGIONS];
	int nr_regions;
	uint8_t rsdp[36];  /* the ACPI RSDP copied from the loader, if any */
	int rsdp_len;      /* 0: no ACPI tag; 20: ACPI 1.0; 36: ACPI 2.0+ */
};

extern struct boot_info boot_info;

/* Returns false (and leaves boot_info empty) on a bad magic or info. */
bool multiboot_parse(uint32_t magic, uint64_t info_phys);


#endif
