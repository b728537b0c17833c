/*
 * Tests of the state boot leaves the machine in: CPU mode, the kernel page
 * tables (arch/x86_64/paging.c), the memory map and command line from the
 * boot loader (arch/x86_64/multiboot.c, kernel/bootinfo.h) and the symbol
 * table (kernel/ksyms.c).
 */
#include "asm/page.h"
#include "asm/pgtable.h"
#include "bootinfo.h"
#include "ksyms.h"
#include "ktest_util.h"
#include "page_alloc.h"
#include "string.h"

extern char boot_stack_guard[], boot_stack_bottom[];
void kmain(void);

/* Long mode with NX: what boot.asm sets in EFER before paging is on. */
KTEST(boot, long_mode_and_nx_enabled)
{
	uint64_t efer = rdmsr(MSR_EFER);

	KEXPECT_TRUE(efer & EFER_LME);
	KEXPECT_TRUE(efer & EFER_LMA);
	KEXPECT_TRUE(efer & EFER_NXE);
}

/* Paging is on, and WP makes read-only pages read-only for ring 0 too. */
KTEST(boot, paging_and_write_protect_enabled)
{
	uint64_t cr0 = read_cr0();

	KEXPECT_TRUE(cr0 & CR0_PE);
	KEXPECT_TRUE(cr0 & CR0_PG);
	KEXPECT_TRUE(cr0 & CR0_WP);
	KEXPECT_TRUE(read_cr4() & CR4_PAE);
}

/* Code runs at the kernel's link address, in ring 0, on a stack in the
 * kernel's half (a task stack, in the stack region). */
KTEST(boot, higher_half_ring0)
{
	volatile int on_stack = 0;

	KEXPECT_GE((uintptr_t)&on_stack, DIRECT_MAP_BASE);
	KEXPECT_GE((uintptr_t)kmain, KERNEL_VMA);
	KEXPECT_GE((uintptr_t)ktest_fn_boot_higher_half_ring0, KERNEL_VMA);
	KEXPECT_EQ(read_cs() & 3, 0);
}

/* Permissions of one page of the image: present, and W/NX exactly so. */
static void expect_page_flags(const char *what, const void *va, bool w, bool nx)
{
	uint64_t f = paging_lookup((uintptr_t)va);

	if (!(f & PTE_P) || !!(f & PTE_W) != w || !!(f & PTE_NX) != nx)
		ktest_fail_msg(__FILE__, __LINE__,
			       "%s at %p: flags %#lx, want P %s %s", what, va,
			       (unsigned long)f, w ? "W" : "!W",
			       nx ? "NX" : "!NX");
}

/* Each image section is mapped with its own permissions (W^X). */
KTEST(boot, image_sections_mapped_w_xor_x)
{
	expect_page_flags("text start", __text_start, false, false);
	expect_page_flags("kmain", (void *)kmain, false, false);
	expect_page_flags("rodata start", __rodata_start, false, true);
	expect_page_flags("data start", __data_start, true, true);
	expect_page_flags("bss (boot_info)", &boot_info, true, true);
	expect_page_flags("boot stack", boot_stack_bottom, true, true);
}

/* The identity mapping boot.asm used is gone once paging_init is done. */
KTEST(boot, lower_half_unmapped)
{
	KEXPECT_FALSE(paging_lookup(0) & PTE_P);
	KEXPECT_FALSE(paging_lookup(0x100000) & PTE_P);
	KEXPECT_FALSE(paging_lookup(0x7ffffffff000ul) & PTE_P);
}

/* The page below the boot stack is a hole, so an overflow faults. */
KTEST(boot, boot_stack_guard_unmapped)
{
	KEXPECT_EQ((uintptr_t)boot_stack_guard % PAGE_SIZE, 0);
	KEXPECT_EQ(boot_stack_bottom - boot_stack_guard, (long)PAGE_SIZE);
	KEXPECT_FALSE(paging_lookup((uintptr_t)boot_stack_guard) & PTE_P);
	KEXPECT_TRUE(paging_lookup((uintptr_t)boot_stack_bottom) & PTE_P);
}

static bool usable(const struct mem_region *r)
{
	return r->type == MEM_USABLE && r->len > 0;
}

/* The loader's memory map: non-empty, >= 64 MiB usable, no overlaps. */
KTEST(boot, memory_map_sane)
{
	uint64_t total = 0;
	int n = boot_info.nr_regions;

	KASSERT_GT(n, 0);
	KASSERT_LE(n, BOOT_MAX_REGIONS);
	for (int i = 0; i < n; i++) {
		const struct mem_region *a = &boot_info.regions[i];

		if (!usable(a))
			continue;
		KEXPECT_GE(a->base + a->len, a->base); /* no wrap-around */
		total += a->len;
		for (int j = i + 1; j < n; j++) {
			const struct mem_region *b = &boot_info.regions[j];

			if (usable(b) && a->base < b->base + b->len &&
			    b->base < a->base + a->len)
				ktest_fail_msg(__FILE__, __LINE__,
					       "usable regions %d and %d overlap",
					       i, j);
		}
	}
	KEXPECT_GE(total, 64ul << 20);
	/* The page allocator's view agrees: at least 60 MiB of it is free. */
	KEXPECT_GE(page_total_count(), (60ul << 20) / PAGE_SIZE);
}

/* GRUB loaded the image, [1 MiB, _end), into usable memory. */
KTEST(boot, kernel_image_in_usable_memory)
{
	uint64_t start = 0x100000, end = virt_to_phys(_end);
	int inside = 0;

	KASSERT_GT(end, start);
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		inside += usable(r) && r->base <= start &&
			  end <= r->base + r->len;
	}
	KEXPECT_EQ(inside, 1);
}

/* The runner boots with ktest=GLOB; cmdline_get finds it too. */
KTEST(boot, command_line_has_ktest)
{
	char glob[BOOT_CMDLINE_MAX];

	KEXPECT_TRUE(strstr(boot_info.cmdline, "ktest="));
	KASSERT_TRUE(cmdline_get("ktest", glob, sizeof(glob)));
	KEXPECT_TRUE(strstr(boot_info.cmdline, glob));
	KEXPECT_FALSE(cmdline_get("no-such-option", glob, sizeof(glob)));
}

/* Symbols resolve both ways: address -> name+offset, name -> address. */
KTEST(boot, ksyms_lookup_and_address)
{
	uintptr_t off = 0, size = 0;
	const char *name = ksym_lookup((uintptr_t)page_free_count + 3, &off, &size);

	KASSERT_TRUE(name);
	KEXPECT_STREQ(name, "page_free_count");
	KEXPECT_EQ(off, 3);
	KEXPECT_GT(size, 3);
	KEXPECT_NE(ksym_address("kmain"), 0);
	KEXPECT_EQ(ksym_address("kmain"), (uintptr_t)kmain);
	KEXPECT_EQ(ksym_address("no_such_symbol_in_the_kernel"), 0);
	/* Data too (the per-CPU checker names variables), but nothing
	 * outside the kernel image. */
	name = ksym_lookup((uintptr_t)&boot_info + 1, &off, &size);
	KASSERT_TRUE(name);
	KEXPECT_STREQ(name, "boot_info");
	KEXPECT_EQ(off, 1);
	KEXPECT_FALSE(ksym_lookup(0xffff800000001000ul, &off, &size));
}
