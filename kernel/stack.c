/*
 * Kernel stacks in the stack region (see stack.h): slot i covers
 * [KSTACK_REGION + i * SLOT, + SLOT); its first page is the guard, the rest
 * is the stack, backed by pages from the page allocator.
 */
#include <stdint.h>
#include "stack.h"
#include "memlayout.h"
#include "page_alloc.h"
#include "paging.h"
#include "spinlock.h"

#define KSTACK_REGION 0xffffc90000000000ul
#define KSTACK_SLOT (KSTACK_SIZE + PAGE_SIZE)
#define KSTACK_SLOTS 16384
#define KSTACK_PAGES ((int)(KSTACK_SIZE / PAGE_SIZE))

/* Slot i is in use when bit i is set; under slot_lock. */
static uint64_t slot_used[KSTACK_SLOTS / 64];
static arch_spinlock_t slot_lock = ARCH_SPIN_LOCK_UNLOCKED;

static long slot_take(void)
{
	unsigned long flags = arch_local_irq_save();
	long slot = -1;

	arch_spin_lock(&slot_lock);
	for (int w = 0; w < KSTACK_SLOTS / 64 && slot < 0; w++) {
		if (slot_used[w] != ~0ul) {
			int b = __builtin_ctzl(~slot_used[w]);

			slot_used[w] |= 1ul << b;
			slot = w * 64 + b;
		}
	}
	arch_spin_unlock(&slot_lock);
	local_irq_restore(flags);
	return slot;
}

static void slot_put(long slot)
{
	unsigned long flags = arch_local_irq_save();

	arch_spin_lock(&slot_lock);
	slot_used[slot / 64] &= ~(1ul << (slot % 64));
	arch_spin_unlock(&slot_lock);
	local_irq_restore(flags);
}

static uintptr_t slot_stack(long slot)
{
	return KSTACK_REGION + slot * KSTACK_SLOT + PAGE_SIZE;
}

/* Unmap the first `mapped` pages of a stack, flush every CPU's TLB (a
 * task may have run on any of them), and only then free the pages. */
static void unmap_stack(uintptr_t base, int mapped)
{
	uint64_t pa[KSTACK_PAGES];

	for (int i = 0; i < mapped; i++) {
		pa[i] = paging_translate(base + i * PAGE_SIZE);
		paging_unmap_page(base + i * PAGE_SIZE);
	}
	flush_tlb_kernel_range(base, base + mapped * PAGE_SIZE);
	for (int i = 0; i < mapped; i++)
		page_free(phys_to_virt(pa[i]));
}

void *kstack_alloc(void)
{
	long slot = slot_take();
	uintptr_t base;

	if (slot < 0)
		return 0;
	base = slot_stack(slot);
	for (int i = 0; i < KSTACK_PAGES; i++) {
		void *page = page_alloc();

		if (!page || !paging_map_page(base + i * PAGE_SIZE,
					      virt_to_phys(page),
					      PTE_W | PTE_NX)) {
			if (page)
				page_free(page);
			unmap_stack(base, i);
			slot_put(slot);
			return 0;
		}
	}
	return (void *)base;
}

void kstack_free(void *stack)
{
	uintptr_t base = (uintptr_t)stack;

	unmap_stack(base, KSTACK_PAGES);
	slot_put((long)((base - KSTACK_REGION) / KSTACK_SLOT));
}

void *kstack_guard(void *stack)
{
	return (char *)stack - PAGE_SIZE;
}
