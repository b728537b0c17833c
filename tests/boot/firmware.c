/*
 * Tests of what the kernel takes from the firmware through the loader
 * (arch/x86_64/multiboot.c, acpi.c, realmode.c): which firmware booted
 * it, whose memory map it uses, where the RSDP came from, and where the
 * AP trampoline went; then the RSDP search and the trampoline's choice
 * on hand-made boot information, including the cases with nothing to
 * find.
 *
 * The runner's OVMF boot passes ktest_firmware=efi (scripts/run-tests.sh),
 * so that a UEFI configuration that silently booted through BIOS, or
 * ignored GRUB's EFI tags, fails here.
 */
#include "asm/acpi.h"
#include "asm/page.h"
#include "asm/realmode.h"
#include "bootinfo.h"
#include "ktest.h"
#include "string.h"

/* Hand-made boot information: too big for a test task's stack. */
static struct boot_info bi;

static void map_begin(enum boot_firmware fw)
{
	memset(&bi, 0, sizeof(bi));
	bi.firmware = fw;
}

static void map_add(uint64_t base, uint64_t len, uint32_t type)
{
	bi.regions[bi.nr_regions++] = (struct mem_region){base, len, type};
}

/* The firmware the configuration expects (ktest_firmware=bios|efi), when
 * given, is the one that booted us; its tags were used. */
KTEST(firmware, tags_match_firmware)
{
	char want[8];
	const char *w = cmdline_get("ktest_firmware", want, sizeof(want));

	if (w) {
		KASSERT_TRUE(!strcmp(w, "bios") || !strcmp(w, "efi"));
		KEXPECT_EQ(boot_info.firmware,
			   !strcmp(w, "efi") ? BOOT_FW_EFI : BOOT_FW_BIOS);
	}
	if (boot_info.firmware == BOOT_FW_EFI) {
		/* GRUB passes the EFI map (tag 17) and the RSDP (tag 15):
		 * nothing else leads to either under EFI. */
		KEXPECT_TRUE(boot_info.mmap_from_efi);
		KEXPECT_EQ(acpi_rsdp_source, ACPI_RSDP_LOADER);
	} else {
		KEXPECT_FALSE(boot_info.mmap_from_efi);
		KEXPECT_NE(acpi_rsdp_source, ACPI_RSDP_NONE);
	}
	KEXPECT_EQ(boot_info.nr_regions_lost, 0);
}

/* The trampoline's page: below 1 MiB, not page 0, wholly usable in the
 * memory map, and the one trampoline_find() picks from it. */
KTEST(firmware, trampoline_in_usable_low_memory)
{
	uint64_t t = trampoline_phys;
	int inside = 0;

	KASSERT_NE(t, 0);
	KEXPECT_EQ(t % PAGE_SIZE, 0);
	KEXPECT_GE(t, PAGE_SIZE);
	KEXPECT_LT(t, 0x100000ul);
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		inside += r->type == MEM_USABLE && r->base <= t &&
			  t + PAGE_SIZE <= r->base + r->len;
	}
	KEXPECT_EQ(inside, 1);
	KEXPECT_EQ(trampoline_find(&boot_info), t);
}

KTEST(firmware, trampoline_find_hand_made_maps)
{
	/* SeaBIOS: 639 KiB usable, the EBDA above; the last whole page. */
	map_begin(BOOT_FW_BIOS);
	map_add(0, 0x9fc00, MEM_USABLE);
	map_add(0x9fc00, 0x400, MEM_RESERVED);
	map_add(0x100000, 0x1000000, MEM_USABLE);
	KEXPECT_EQ(trampoline_find(&bi), 0x9e000ul);

	/* A region across 1 MiB: its last page below 1 MiB. */
	map_begin(BOOT_FW_EFI);
	map_add(0x80000, 0x200000, MEM_USABLE);
	KEXPECT_EQ(trampoline_find(&bi), 0xff000ul);

	/* Unaligned ends: only a whole page counts; the highest wins. */
	map_begin(BOOT_FW_EFI);
	map_add(0x1800, 0x1800, MEM_USABLE);         /* page 0x2000 */
	map_add(0x5000, 0x1fff, MEM_USABLE);         /* page 0x5000 */
	map_add(0x9000, 0x8000, MEM_RESERVED);
	KEXPECT_EQ(trampoline_find(&bi), 0x5000ul);

	/* Nothing: only page 0, a part of a page, reserved memory, or
	 * memory above 1 MiB. */
	map_begin(BOOT_FW_EFI);
	map_add(0, 0x1000, MEM_USABLE);
	map_add(0x3800, 0x1000, MEM_USABLE);
	map_add(0x10000, 0x80000, MEM_ACPI_NVS);
	map_add(0x100000, 0x1000000, MEM_USABLE);
	KEXPECT_EQ(trampoline_find(&bi), 0ul);

	map_begin(BOOT_FW_BIOS);
	KEXPECT_EQ(trampoline_find(&bi), 0ul);
}

/* An ACPI 2.0 RSDP pointing nowhere, with both checksums right. */
static void put_rsdp(void)
{
	uint8_t *r = bi.rsdp, sum = 0;

	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "KTEST ", 6);
	r[15] = 2;                       /* revision */
	r[20] = 36;                      /* length */
	for (int i = 0; i < 20; i++)
		sum += r[i];
	r[8] = -sum;
	sum = 0;
	for (int i = 0; i < 36; i++)
		sum += r[i];
	r[32] = -sum;                    /* extended checksum */
	bi.rsdp_len = 36;
}

KTEST(firmware, rsdp_loader_copy_first)
{
	const void *r;

	map_begin(BOOT_FW_EFI);
	put_rsdp();
	KEXPECT_EQ(acpi_rsdp_find(&bi, &r), ACPI_RSDP_LOADER);
	KEXPECT_EQ(r, (const void *)bi.rsdp);

	/* A copy whose checksum is off is no RSDP. Under EFI nothing else
	 * is searched. */
	bi.rsdp[8]++;
	KEXPECT_EQ(acpi_rsdp_find(&bi, &r), ACPI_RSDP_NONE);
	KEXPECT_EQ(r, (const void *)0);
}

/* No tag: EFI firmware has no BIOS area, so there is no RSDP (acpi_init()
 * then says so and boots on one CPU); BIOS firmware has one there, which
 * QEMU's SeaBIOS fills. */
KTEST(firmware, rsdp_without_loader_tag)
{
	const void *r;

	map_begin(BOOT_FW_EFI);
	KEXPECT_EQ(acpi_rsdp_find(&bi, &r), ACPI_RSDP_NONE);
	KEXPECT_EQ(r, (const void *)0);

	if (boot_info.firmware == BOOT_FW_BIOS) {
		map_begin(BOOT_FW_BIOS);
		KEXPECT_EQ(acpi_rsdp_find(&bi, &r), ACPI_RSDP_BIOS_AREA);
		KEXPECT_NE(r, (const void *)0);
	}
}
