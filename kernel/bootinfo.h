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
#include <stdbool.h>
#include <stddef.h>
#include "cmdline.h"  /* the options in boot_info.cmdline */

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

/* The firmware the loader ran on. EFI has no BIOS data area and no
 * legacy VGA text mode; the loader's tags are the only way to the RSDP. */
enum boot_firmware {
	BOOT_FW_BIOS = 0,
	BOOT_FW_EFI = 1,
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	size_t cmdline_len;  /* as the loader gave it: >= BOOT_CMDLINE_MAX, cut */
	char loader[64];
	struct mem_region regions[BOOT_MAX_REGIONS];
	int nr_regions;
	int nr_regions_lost; /* past BOOT_MAX_REGIONS, left out of regions[] */
	enum boot_firmware firmware;
	bool mmap_from_efi;  /* regions[] is the EFI memory map, converted */
	uint8_t rsdp[36];  /* the ACPI RSDP copied from the loader, if any */
	int rsdp_len;      /* 0: none given; 20: ACPI 1.0; 36: ACPI 2.0+ */
};

extern struct boot_info boot_info;

#endif
