/*
 * Where the trampoline goes: a page of usable RAM below 1 MiB, from the
 * loader's memory map (asm/realmode.h). The highest such page, as Linux
 * allocates its real-mode area top-down: the lowest pages are the ones
 * firmware is most likely to touch (the real-mode interrupt table, the
 * BIOS data area). Page 0 is never taken.
 *
 * The page needs no reservation of its own: the page allocator never
 * hands out anything below the end of the kernel image (page_alloc_init()),
 * so all of the first MiB stays out of its reach.
 */
#include "asm/realmode.h"
#include "asm/page.h"
#include "multiboot.h"
#include "printk.h"

#define REAL_MODE_LIMIT 0x100000ul /* a SIPI's page number is 8 bits */

uint64_t trampoline_phys;

uint64_t trampoline_find(const struct boot_info *bi)
{
	uint64_t best = 0;

	for (int i = 0; i < bi->nr_regions; i++) {
		const struct mem_region *r = &bi->regions[i];
		uint64_t start = PAGE_ALIGN(r->base);
		uint64_t end = PAGE_ALIGN_DOWN(r->base + r->len);

		if (r->type != MEM_USABLE || r->base + r->len < r->base)
			continue;
		if (end > REAL_MODE_LIMIT)
			end = REAL_MODE_LIMIT;
		if (start < PAGE_SIZE)
			start = PAGE_SIZE;
		if (start < end && end - PAGE_SIZE > best)
			best = end - PAGE_SIZE;
	}
	return best;
}

bool reserve_real_mode(void)
{
	trampoline_phys = trampoline_find(&loader_info);
	if (!trampoline_phys) {
		printk("smpboot: the memory map has no usable page below 1 MiB "
		       "for the AP trampoline; booting on one CPU\n");
		return false;
	}
	printk("smpboot: AP trampoline at 0x%lx, usable low memory in the "
	       "%s\n", trampoline_phys,
	       loader_info.mmap_from_efi ? "EFI memory map"
					 : "loader's memory map");
	return true;
}
