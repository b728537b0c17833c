/*
 * Multiboot2 boot information parser: the memory map, the command line, the
 * loader's name and the ACPI RSDP, into the neutral struct boot_info
 * (bootinfo.h) the core reads. Runs before paging_init(), while the boot
 * page tables still map the first GiB at KERNEL_VMA, and before the page
 * allocator hands out the memory GRUB left the information in (just past
 * the kernel's .bss).
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
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
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

/* The loader's registers, stored by boot/head64.asm before kmain. */
uint32_t multiboot_magic;
uint64_t multiboot_info_phys;

struct boot_info loader_info;

static void parse_mmap(const struct mb2_mmap *m)
{
	const uint8_t *p = (const uint8_t *)m->entries;
	const uint8_t *end = (const uint8_t *)m + m->tag.size;

	for (; p + m->entry_size <= end; p += m->entry_size) {
		const typeof(m->entries[0]) *e = (const void *)p;
		struct mem_region *r;

		if (loader_info.nr_regions == BOOT_MAX_REGIONS)
			break;
		r = &loader_info.regions[loader_info.nr_regions++];
		r->base = e->base;
		r->len = e->len;
		r->type = e->type;
	}
}

static void parse_tag(const struct mb2_tag *tag)
{
	const char *payload = (const char *)(tag + 1);
	int len = (int)(tag->size - sizeof(*tag));

	switch (tag->type) {
	case MB2_TAG_CMDLINE:
		strlcpy(loader_info.cmdline, payload, sizeof(loader_info.cmdline));
		break;
	case MB2_TAG_LOADER:
		strlcpy(loader_info.loader, payload, sizeof(loader_info.loader));
		break;
	case MB2_TAG_MMAP:
		parse_mmap((const struct mb2_mmap *)tag);
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
	return true;
}

void arch_setup_boot_info(struct boot_info *bi)
{
	if (!multiboot_parse(multiboot_magic, multiboot_info_phys))
		panic("bad Multiboot2 magic %#x or info at %#lx",
		      multiboot_magic, multiboot_info_phys);
	*bi = loader_info;
}
