/*
 * Multiboot2 boot information parser: the memory map, the command line, the
 * loader's name, the ACPI RSDP and the firmware (BIOS or EFI), into the
 * neutral struct boot_info (bootinfo.h) the core reads. Under EFI, GRUB
 * passes the firmware's own memory map (tag 17) besides its translation
 * (tag 6); the kernel takes the firmware's. Runs before paging_init(),
 * while the boot page tables still map the first GiB at KERNEL_VMA, and
 * before the page allocator hands out the memory GRUB left the
 * information in (just past the kernel's .bss).
 */
#include "multiboot.h"
#include "asm/page.h"
#include "asm/setup.h"
#include "panic.h"
#include "string.h"

#define MULTIBOOT2_BOOT_MAGIC 0x36d76289

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER = 2,
	MB2_TAG_MMAP = 6,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
};

struct mb2_tag {
	uint32_t type;
	uint32_t size;
};

struct mb2_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;
	uint32_t entry_version;
	struct {
		uint64_t base;
		uint64_t len;
		uint32_t type;
		uint32_t reserved;
	} entries[];
};

/* Tag 17: the UEFI memory map as GetMemoryMap() returned it after the
 * loader's last allocation, in descriptors of desc_size bytes (larger
 * than the struct below on newer firmware). */
struct mb2_efi_mmap {
	struct mb2_tag tag;
	uint32_t desc_size;
	uint32_t desc_version;
	uint8_t descs[];
};

struct efi_memory_desc {
	uint32_t type;
	uint32_t pad;
	uint64_t phys_start;
	uint64_t virt_start;
	uint64_t nr_pages; /* of 4 KiB */
	uint64_t attribute;
};

enum efi_memory_type {
	EFI_LOADER_CODE = 1,
	EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3,
	EFI_BOOT_SERVICES_DATA = 4,
	EFI_CONVENTIONAL_MEMORY = 7,
	EFI_UNUSABLE_MEMORY = 8,
	EFI_ACPI_RECLAIM_MEMORY = 9,
	EFI_ACPI_MEMORY_NVS = 10,
};

/* The loader's registers, stored by boot/head64.asm before kmain. */
uint32_t multiboot_magic;
uint64_t multiboot_info_phys;

struct boot_info loader_info;

/* Appends a region, or counts it lost when the table is full. */
static void add_region(struct boot_info *bi, uint64_t base, uint64_t len,
		       uint32_t type)
{
	if (bi->nr_regions == BOOT_MAX_REGIONS) {
		bi->nr_regions_lost++;
		return;
	}
	bi->regions[bi->nr_regions++] = (struct mem_region){base, len, type};
}

static void parse_mmap(const struct mb2_mmap *m)
{
	const uint8_t *p = (const uint8_t *)m->entries;
	const uint8_t *end = (const uint8_t *)m + m->tag.size;

	if (m->entry_size < sizeof(m->entries[0]))
		return;
	for (; p + m->entry_size <= end; p += m->entry_size) {
		const typeof(m->entries[0]) *e = (const void *)p;

		add_region(&loader_info, e->base, e->len, e->type);
	}
}

/* GRUB has left boot services (the kernel's Multiboot2 header does not
 * ask it to keep them), so the memory they and the loader held is free:
 * only runtime services, ACPI, MMIO and the firmware's reserved kinds
 * stay out of the allocator. */
static uint32_t efi_mem_type(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MEM_USABLE;
	case EFI_UNUSABLE_MEMORY:
		return MEM_BAD;
	case EFI_ACPI_RECLAIM_MEMORY:
		return MEM_ACPI_RECLAIMABLE;
	case EFI_ACPI_MEMORY_NVS:
		return MEM_ACPI_NVS;
	default:
		return MEM_RESERVED;
	}
}

/* Sorts by base address: the EFI map need not be sorted, and adjacent
 * regions can only be merged once neighbours are next to each other. */
static void sort_regions(struct boot_info *bi)
{
	for (int i = 1; i < bi->nr_regions; i++) {
		struct mem_region r = bi->regions[i];
		int j = i;

		for (; j > 0 && bi->regions[j - 1].base > r.base; j--)
			bi->regions[j] = bi->regions[j - 1];
		bi->regions[j] = r;
	}
}

/*
 * The EFI map has one descriptor per allocation (a hundred or more on
 * OVMF), far more than BOOT_MAX_REGIONS, so touching descriptors of the
 * same kind are merged as they arrive (the firmware lists them in
 * address order), and once more after sorting. Into its own boot_info,
 * so that tag 6, whichever order the tags come in, is left untouched
 * until this map is known to be complete.
 */
static struct boot_info efi_map;

static void parse_efi_mmap(const struct mb2_efi_mmap *m)
{
	const uint8_t *p = m->descs;
	const uint8_t *end = (const uint8_t *)m + m->tag.size;
	struct boot_info *bi = &efi_map;
	int n = 0;

	if (m->desc_size < sizeof(struct efi_memory_desc))
		return;
	for (; p + m->desc_size <= end; p += m->desc_size) {
		const struct efi_memory_desc *d = (const void *)p;
		uint32_t type = efi_mem_type(d->type);
		uint64_t len = d->nr_pages << 12;
		struct mem_region *last = bi->nr_regions ?
			&bi->regions[bi->nr_regions - 1] : 0;

		if (last && last->type == type &&
		    last->base + last->len == d->phys_start)
			last->len += len;
		else
			add_region(bi, d->phys_start, len, type);
	}
	sort_regions(bi);
	for (int i = 1; i < bi->nr_regions; i++) {
		struct mem_region *prev = &bi->regions[n];
		struct mem_region *r = &bi->regions[i];

		if (prev->type == r->type && prev->base + prev->len == r->base)
			prev->len += r->len;
		else
			bi->regions[++n] = *r;
	}
	if (bi->nr_regions)
		bi->nr_regions = n + 1;
	bi->mmap_from_efi = bi->nr_regions > 0;
}

static void parse_tag(const struct mb2_tag *tag)
{
	const char *payload = (const char *)(tag + 1);
	int len = (int)(tag->size - sizeof(*tag));

	switch (tag->type) {
	case MB2_TAG_CMDLINE:
		/* The full length, so that a cut can be reported (cmdline.c). */
		loader_info.cmdline_len = strlcpy(loader_info.cmdline, payload,
						  sizeof(loader_info.cmdline));
		break;
	case MB2_TAG_LOADER:
		strlcpy(loader_info.loader, payload, sizeof(loader_info.loader));
		break;
	case MB2_TAG_MMAP:
		parse_mmap((const struct mb2_mmap *)tag);
		break;
	case MB2_TAG_EFI_MMAP:
		loader_info.firmware = BOOT_FW_EFI;
		parse_efi_mmap((const struct mb2_efi_mmap *)tag);
		break;
	case MB2_TAG_EFI32:
	case MB2_TAG_EFI64:
		loader_info.firmware = BOOT_FW_EFI;
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		/* Prefer the 2.0 RSDP (it has the XSDT) when both are given. */
		if (len > (int)sizeof(loader_info.rsdp))
			len = sizeof(loader_info.rsdp);
		if (len > loader_info.rsdp_len) {
			memcpy(loader_info.rsdp, payload, len);
			loader_info.rsdp_len = len;
		}
		break;
	}
}

/* Returns false (and leaves loader_info empty) on a bad magic or info. */
static bool multiboot_parse(uint32_t magic, uint64_t info_phys)
{
	const uint8_t *info = (const uint8_t *)(info_phys + KERNEL_VMA);
	const uint8_t *p = info + 8;
	uint32_t total;

	if (magic != MULTIBOOT2_BOOT_MAGIC || info_phys == 0 ||
	    info_phys >= (1ul << 30))
		return false;
	total = *(const uint32_t *)info;
	if (total < 16)
		return false;
	while (p + sizeof(struct mb2_tag) <= info + total) {
		const struct mb2_tag *tag = (const void *)p;

		if (tag->type == MB2_TAG_END || tag->size < sizeof(*tag))
			break;
		parse_tag(tag);
		p += (tag->size + 7) & ~7u; /* tags are 8-byte aligned */
	}
	if (efi_map.mmap_from_efi) {
		memcpy(loader_info.regions, efi_map.regions,
		       sizeof(efi_map.regions));
		loader_info.nr_regions = efi_map.nr_regions;
		loader_info.nr_regions_lost = efi_map.nr_regions_lost;
		loader_info.mmap_from_efi = true;
	}
	return true;
}

void arch_setup_boot_info(struct boot_info *bi)
{
	if (!multiboot_parse(multiboot_magic, multiboot_info_phys))
		panic("bad Multiboot2 magic %#x or info at %#lx",
		      multiboot_magic, multiboot_info_phys);
	*bi = loader_info;
}
