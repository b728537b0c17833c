/*
 * What the boot loader told the kernel, as the arch keeps it for itself
 * (multiboot.c): the direct map covers its memory map (paging.c), and ACPI
 * starts from its RSDP (acpi.c). The core has its own copy (bootinfo.h).
 */
#ifndef ARCH_MULTIBOOT_H
#define ARCH_MULTIBOOT_H

#include "bootinfo.h"

extern struct boot_info loader_info;

#endif
