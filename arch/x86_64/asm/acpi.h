/*
 * ACPI, as far as SMP needs it: the RSDP, the RSDT/XSDT and the MADT
 * (local APICs, I/O APICs, interrupt source overrides).
 */
#ifndef _ASM_X86_ACPI_H
#define _ASM_X86_ACPI_H

#include <stdbool.h>
#include <stdint.h>

/* As many as the kernel can number (NR_CPUS, checked in acpi.c). */
#define MADT_MAX_CPUS 512
#define MADT_MAX_IOAPICS 8
#define MADT_MAX_OVERRIDES 16

struct acpi_sdt_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_madt {
	struct acpi_sdt_header hdr;
	uint32_t lapic_addr;
	uint32_t flags;
	uint8_t entries[];
} __attribute__((packed));

struct madt_ioapic {
	uint8_t id;
	uint32_t phys;
	uint32_t gsi_base;
};

/* An ISA IRQ wired to another global system interrupt, or with other
 * polarity/trigger than ISA's default (active high, edge). */
struct madt_override {
	uint8_t irq;
	uint32_t gsi;
	uint16_t flags;
};

struct madt_info {
	uint64_t lapic_phys;
	int nr_cpus;                           /* enabled or online-capable */
	uint32_t apic_ids[MADT_MAX_CPUS];
	int nr_disabled;                       /* entries marked unusable */
	int nr_ioapics;
	struct madt_ioapic ioapics[MADT_MAX_IOAPICS];
	int nr_overrides;
	struct madt_override overrides[MADT_MAX_OVERRIDES];
};

extern struct madt_info madt;

/* Where this boot's RSDP came from (acpi_init()). */
enum acpi_rsdp_source {
	ACPI_RSDP_NONE,
	ACPI_RSDP_LOADER,    /* the copy in the loader's tag */
	ACPI_RSDP_BIOS_AREA, /* found in the EBDA or the BIOS ROM area */
};
extern enum acpi_rsdp_source acpi_rsdp_source;

/* Find and parse the MADT into `madt`. Returns false, with the reason
 * printed, when there is no usable one (and leaves `madt` empty); the
 * caller then runs on one CPU. */
bool acpi_init(void);

/* Exposed for the tests, which feed them hand-made tables. */
bool acpi_checksum_ok(const void *table, uint32_t len);
bool madt_parse(const struct acpi_madt *m, struct madt_info *out);
struct boot_info;
/* The RSDP bi leads to (in *rsdp, 0 if none) and where it was found: the
 * loader's copy when it checks out, else the BIOS areas, searched only
 * when bi->firmware is BIOS. */
enum acpi_rsdp_source acpi_rsdp_find(const struct boot_info *bi,
				     const void **rsdp);

#endif
