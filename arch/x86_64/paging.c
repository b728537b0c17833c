/*
 * The kernel page tables (see asm/pgtable.h). Page-table pages come from the
 * page allocator as physical addresses; before paging_init() switches CR3
 * they are reached through the boot tables' mapping of the first GiB at
 * KERNEL_VMA, afterwards through the direct map.
 */
#include "asm/pgtable.h"
#include "asm/processor.h"
#include "asm/page.h"
#include "multiboot.h"
#include "mm/page_alloc.h"
#include "panic.h"
#include "smp.h"
#include "asm/irqflags.h"
#include "asm/spinlock.h"
#include "string.h"

#define PT_ENTRIES 512
#define LARGE_PAGE (2ul << 20)
#define PCI_HOLE_START 0xc0000000ul /* device memory below 4 GiB */
#define PCI_HOLE_END   0x100000000ul

extern char boot_stack_guard[], __ksyms_start[];

static uint64_t kernel_cr3;
static bool direct_map_live;
/* Serialises changes to the kernel tables (ioremap, guard pages). */
static arch_spinlock_t paging_lock = ARCH_SPIN_LOCK_UNLOCKED;

static uint64_t *table_virt(uint64_t pa)
{
	return direct_map_live ? phys_to_virt(pa) : (uint64_t *)(pa + KERNEL_VMA);
}

/* A zeroed page for a page table, by physical address; 0 if none. With
 * spare, the page is *spare, taken (set_pte() allocates it before it
 * takes paging_lock: on RT=1 the page allocator's lock sleeps). */
static uint64_t pt_alloc(uint64_t *spare)
{
	uint64_t pa = spare ? *spare : page_alloc_phys();

	if (spare)
		*spare = 0;

	if (pa)
		memset(table_virt(pa), 0, PAGE_SIZE);
	return pa;
}

static unsigned pt_index(uintptr_t va, int level)
{
	return (va >> (12 + 9 * (level - 1))) & (PT_ENTRIES - 1);
}

/* Replace a 2 MiB mapping by 512 4 KiB ones with the same flags. */
static bool split_large(uint64_t *pde, uint64_t *spare)
{
	uint64_t pa = *pde & PTE_ADDR_MASK & ~(LARGE_PAGE - 1);
	uint64_t flags = (*pde & ~PTE_ADDR_MASK) & ~PTE_PS;
	uint64_t pt = pt_alloc(spare);
	uint64_t *e;

	if (!pt)
		return false;
	e = table_virt(pt);
	for (int i = 0; i < PT_ENTRIES; i++)
		e[i] = (pa + i * PAGE_SIZE) | flags;
	*pde = pt | PTE_P | PTE_W;
	return true;
}

/*
 * The entry for va at the given level (1 = page table, 2 = page directory)
 * in the tables rooted at root, creating missing tables on the way (with
 * table_flags) when create is set; NULL if absent. A large page met above
 * the target level is split when creating. Tables come from pt_alloc(spare).
 */
static uint64_t *pte_walk_spare(uint64_t root, uintptr_t va, int target,
				bool create, uint64_t table_flags,
				uint64_t *spare)
{
	uint64_t *table = table_virt(root);

	for (int level = 4; level > target; level--) {
		uint64_t *e = &table[pt_index(va, level)];

		if ((*e & PTE_P) && (*e & PTE_PS)) {
			if (!create || !split_large(e, spare))
				return create ? 0 : e;
		}
		if (!(*e & PTE_P)) {
			uint64_t pa;

			if (!create || !(pa = pt_alloc(spare)))
				return 0;
			*e = pa | table_flags;
		}
		table = table_virt(*e & PTE_ADDR_MASK);
	}
	return &table[pt_index(va, target)];
}

static uint64_t *pte_walk_in(uint64_t root, uintptr_t va, int target,
			     bool create, uint64_t table_flags)
{
	return pte_walk_spare(root, va, target, create, table_flags, 0);
}

static uint64_t *pte_walk(uintptr_t va, int target, bool create)
{
	return pte_walk_in(kernel_cr3, va, target, create, PTE_P | PTE_W);
}

static void map_large_early(uintptr_t va, uint64_t pa, uint64_t flags)
{
	uint64_t *e = pte_walk(va, 2, true);

	if (!e)
		panic("paging: out of memory for the direct map");
	*e = pa | flags | PTE_PS | PTE_P;
}

/* Under paging_lock: the 4 KiB entry for va written, with at most the
 * one table *spare (if any) created; false if another table is missing. */
static bool set_pte_locked(uintptr_t va, uint64_t entry, uint64_t *spare)
{
	unsigned long irq = arch_local_irq_save();
	uint64_t *e;

	arch_spin_lock(&paging_lock);
	e = pte_walk_spare(kernel_cr3, va, 1, true, PTE_P | PTE_W, spare);
	if (e)
		*e = entry;
	arch_spin_unlock(&paging_lock);
	arch_local_irq_restore(irq);
	return e != 0;
}

/* Write the 4 KiB entry for va (splitting a 2 MiB page, creating tables
 * as needed) and drop this CPU's stale translation. As Linux allocates a
 * page table before it takes the page-table lock, each missing table is
 * allocated with paging_lock dropped, and the walk starts again (three
 * rounds at most: a page table, a directory, a pointer table). */
static bool set_pte(uintptr_t va, uint64_t entry)
{
	uint64_t spare = 0;
	bool done;

	while (!(done = set_pte_locked(va, entry, &spare)) && !spare)
		if (!(spare = page_alloc_phys()))
			return false;
	if (spare) /* another CPU created the table meanwhile */
		page_free(phys_to_virt(spare));
	if (done)
		invlpg(va);
	return done;
}

bool paging_map_page(uintptr_t va, uint64_t pa, uint64_t flags)
{
	return set_pte(va, pa | flags | PTE_P);
}

void paging_unmap_page(uintptr_t va)
{
	set_pte(va, 0);
}

uint64_t paging_lookup(uintptr_t va)
{
	uint64_t *table = table_virt(kernel_cr3);

	for (int level = 4; level >= 1; level--) {
		uint64_t e = table[pt_index(va, level)];

		if (!(e & PTE_P) || (e & PTE_PS) || level == 1)
			return e & ~PTE_ADDR_MASK;
		table = table_virt(e & PTE_ADDR_MASK);
	}
	return 0;
}

uint64_t paging_translate(uintptr_t va)
{
	uint64_t *table = table_virt(kernel_cr3);

	for (int level = 4; level >= 1; level--) {
		uint64_t e = table[pt_index(va, level)];
		uint64_t span = 1ul << (12 + 9 * (level - 1));

		if (!(e & PTE_P))
			return 0;
		if ((e & PTE_PS) || level == 1)
			return (e & PTE_ADDR_MASK & ~(span - 1)) + (va & (span - 1));
		table = table_virt(e & PTE_ADDR_MASK);
	}
	return 0;
}

static void flush_range_local(void *arg)
{
	const uintptr_t *range = arg;

	for (uintptr_t va = range[0]; va < range[1]; va += PAGE_SIZE)
		invlpg(va);
}

void flush_tlb_kernel_range(uintptr_t start, uintptr_t end)
{
	uintptr_t range[2] = {start, end};

	flush_range_local(range);
	smp_call_function_many(cpu_online_mask, flush_range_local, range, true);
}

static void flush_local(void *unused)
{
	write_cr3(read_cr3());
}

void flush_tlb_all(void)
{
	flush_local(0);
	smp_call_function_many(cpu_online_mask, flush_local, 0, true);
}

static uint64_t image_flags(uintptr_t va)
{
	if (va >= (uintptr_t)__text_start && va < (uintptr_t)__text_end)
		return PTE_G;
	if ((va >= (uintptr_t)__rodata_start && va < (uintptr_t)__rodata_end) ||
	    va >= (uintptr_t)__ksyms_start)
		return PTE_G | PTE_NX;
	return PTE_G | PTE_NX | PTE_W;
}

static void map_image(void)
{
	for (uintptr_t va = (uintptr_t)__text_start; va < (uintptr_t)_end;
	     va += PAGE_SIZE) {
		uint64_t *e = pte_walk(va, 1, true);

		if (!e)
			panic("paging: out of memory for the kernel image");
		if (va != (uintptr_t)boot_stack_guard)
			*e = (va - KERNEL_VMA) | image_flags(va) | PTE_P;
	}
}

static bool chunk_in_memory_map(uint64_t pa)
{
	if (pa >= PCI_HOLE_START && pa < PCI_HOLE_END)
		return false;
	for (int r = 0; r < loader_info.nr_regions; r++) {
		const struct mem_region *m = &loader_info.regions[r];

		if (pa < m->base + m->len && m->base < pa + LARGE_PAGE)
			return true;
	}
	return false;
}

static void map_direct(void)
{
	for (uint64_t pa = 0; pa < DIRECT_MAP_SIZE; pa += LARGE_PAGE)
		if (chunk_in_memory_map(pa))
			map_large_early(DIRECT_MAP_BASE + pa, pa,
					PTE_W | PTE_G | PTE_NX);
}

/* Every kernel-half PML4 slot gets its table now and keeps it: a user
 * address space copies the slots once (pgd_alloc), so whatever the kernel
 * maps later (stacks, ioremap) is seen through every address space. */
static void populate_kernel_half(void)
{
	uint64_t *pml4 = table_virt(kernel_cr3);

	for (int i = PT_ENTRIES / 2; i < PT_ENTRIES; i++) {
		if (pml4[i] & PTE_P)
			continue;
		if (!(pml4[i] = pt_alloc(0)))
			panic("paging: out of memory for the kernel half");
		pml4[i] |= PTE_P | PTE_W;
	}
}

void paging_init(void)
{
	kernel_cr3 = pt_alloc(0);
	if (!kernel_cr3)
		panic("paging: no page for the PML4");
	map_image();
	map_direct();
	populate_kernel_half();
	write_cr4(read_cr4() | CR4_PGE);
	write_cr3(kernel_cr3);
	direct_map_live = true;
}

uint64_t paging_kernel_cr3(void)
{
	return kernel_cr3;
}

void *ioremap(uint64_t pa, size_t size)
{
	uint64_t start = PAGE_ALIGN_DOWN(pa);

	for (uint64_t p = start; p < pa + size; p += PAGE_SIZE)
		if (!paging_map_page(DIRECT_MAP_BASE + p, p,
				     PTE_W | PTE_G | PTE_NX | PTE_PCD | PTE_PWT))
			panic("ioremap: out of memory mapping %lx", pa);
	return phys_to_virt(pa);
}

/* ---- user address spaces ---- */

uint64_t pgd_alloc(void)
{
	uint64_t pgd = pt_alloc(0);

	if (pgd)
		memcpy(table_virt(pgd) + PT_ENTRIES / 2,
		       table_virt(kernel_cr3) + PT_ENTRIES / 2,
		       PT_ENTRIES / 2 * sizeof(uint64_t));
	return pgd;
}

/* No lock and no TLB flush: an address space is changed only by its one
 * task (or by its loader before it runs), and only from not-present
 * entries, which no TLB holds. */
bool pgd_map_user(uint64_t pgd, uintptr_t va, uint64_t pa, uint64_t flags)
{
	uint64_t *e = pte_walk_in(pgd, va, 1, true, PTE_P | PTE_W | PTE_U);

	if (!e)
		return false;
	*e = pa | flags | PTE_U | PTE_P;
	return true;
}

uint64_t pgd_lookup_user(uint64_t pgd, uintptr_t va)
{
	uint64_t *e = pte_walk_in(pgd, va, 1, false, 0);

	return e ? *e : 0;
}

/* Free a table at level (and what it maps, but PTE_SHARED pages). */
static void free_user_table(uint64_t pa, int level)
{
	uint64_t *t = table_virt(pa);

	for (int i = 0; i < PT_ENTRIES; i++) {
		if (!(t[i] & PTE_P))
			continue;
		if (level > 1)
			free_user_table(t[i] & PTE_ADDR_MASK, level - 1);
		else if (!(t[i] & PTE_SHARED))
			page_free(phys_to_virt(t[i] & PTE_ADDR_MASK));
	}
	page_free(t);
}

void pgd_free(uint64_t pgd)
{
	uint64_t *pml4 = table_virt(pgd);

	for (int i = 0; i < PT_ENTRIES / 2; i++)
		if (pml4[i] & PTE_P)
			free_user_table(pml4[i] & PTE_ADDR_MASK, 3);
	page_free(pml4);
}

void switch_pgd(uint64_t pgd)
{
	if (read_cr3() != pgd)
		write_cr3(pgd);
}
