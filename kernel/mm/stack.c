/*
 * Kernel stacks in the stack region (see stack.h): slot i covers
 * [KSTACK_REGION + i * SLOT, + SLOT); its first page is the guard, the rest
 * is the stack, backed by pages from the page allocator.
 */
#include <stdint.h>
#include "irqflags.h"
#include "mm/stack.h"
#include "asm/page.h"
#include "mm/page_alloc.h"
#include "asm/pgtable.h"
#include "locking/mutex.h"
#include "locking/spinlock.h"
#include "rwonce.h"

#define KSTACK_REGION 0xffffc90000000000ul
#define KSTACK_SLOT (KSTACK_SIZE + PAGE_SIZE)
#define KSTACK_SLOTS 16384
#define KSTACK_PAGES ((int)(KSTACK_SIZE / PAGE_SIZE))

/* Slot i is in use when bit i is set; under slot_lock. */
static uint64_t slot_used[KSTACK_SLOTS / 64];
static DEFINE_RAW_SPINLOCK(slot_lock);

static long slot_take(void)
{
	unsigned long flags;
	long slot = -1;

	raw_spin_lock_irqsave(&slot_lock, flags);
	for (int w = 0; w < KSTACK_SLOTS / 64 && slot < 0; w++) {
		if (slot_used[w] != ~0ul) {
			int b = __builtin_ctzl(~slot_used[w]);

			slot_used[w] |= 1ul << b;
			slot = w * 64 + b;
		}
	}
	raw_spin_unlock_irqrestore(&slot_lock, flags);
	return slot;
}

static void slot_put(long slot)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&slot_lock, flags);
	slot_used[slot / 64] &= ~(1ul << (slot % 64));
	raw_spin_unlock_irqrestore(&slot_lock, flags);
}

static uintptr_t slot_stack(long slot)
{
	return KSTACK_REGION + slot * KSTACK_SLOT + PAGE_SIZE;
}

/*
 * A freed stack's pages may still be in other CPUs' TLBs (the task ran
 * there, or they touched objects on its stack), so neither its pages nor
 * its slot may be reused before every CPU has flushed. Flushing means an
 * IPI to every CPU and a wait for all of them, too dear for each exit:
 * freed stacks wait here, unmapped, and are released in batches, one
 * flush for KSTACK_LAZY_MAX of them (Linux's vmalloc does the same).
 */
#define KSTACK_LAZY_MAX 32

struct dead_stack {
	long slot;
	uint64_t pa[KSTACK_PAGES];
	int nr_pages;
};

/* Under lazy_lock. */
static struct dead_stack lazy[KSTACK_LAZY_MAX];
static int nr_lazy;
static DEFINE_RAW_SPINLOCK(lazy_lock);

static void release_dead(const struct dead_stack *d)
{
	for (int i = 0; i < d->nr_pages; i++)
		page_free(phys_to_virt(d->pa[i]));
	slot_put(d->slot);
}

/*
 * One drainer at a time: it owns `batch` and waits for every CPU's TLB
 * flush. A sleeping lock, as Linux's vmap_purge_lock: a caller that must
 * have room (unmap_stack() with the list full) sleeps until the drainer
 * is done, where a flag had it spin, and a realtime task spinning on the
 * CPU of a preempted drainer never let it finish. On PREEMPT_RT the lock
 * also lends the waiter's priority to the drainer.
 */
DEFINE_MUTEX(kstack_drain_lock);

static void drain_locked(void)
{
	static struct dead_stack batch[KSTACK_LAZY_MAX];
	unsigned long flags;
	int n;

	raw_spin_lock_irqsave(&lazy_lock, flags);
	n = nr_lazy;
	for (int i = 0; i < n; i++)
		batch[i] = lazy[i];
	nr_lazy = 0;
	raw_spin_unlock_irqrestore(&lazy_lock, flags);
	if (n) {
		flush_tlb_all();
		for (int i = 0; i < n; i++)
			release_dead(&batch[i]);
	}
}

void kstack_drain(void)
{
	mutex_lock(&kstack_drain_lock);
	drain_locked();
	mutex_unlock(&kstack_drain_lock);
}

/* Unmap a stack's first `mapped` pages and queue them for release. */
static void unmap_stack(uintptr_t base, int mapped, long slot)
{
	struct dead_stack d = {.slot = slot, .nr_pages = mapped};
	unsigned long flags;
	bool full;

	for (int i = 0; i < mapped; i++) {
		d.pa[i] = paging_translate(base + i * PAGE_SIZE);
		paging_unmap_page(base + i * PAGE_SIZE);
	}
	for (;;) {
		raw_spin_lock_irqsave(&lazy_lock, flags);
		full = nr_lazy == KSTACK_LAZY_MAX;
		if (!full)
			lazy[nr_lazy++] = d;
		raw_spin_unlock_irqrestore(&lazy_lock, flags);
		if (!full)
			break;
		kstack_drain(); /* sleeps while another drainer works */
	}
	/* A full list is drained now, unless someone is at it already:
	 * then this stack is in its batch or the next. */
	if (READ_ONCE(nr_lazy) == KSTACK_LAZY_MAX &&
	    mutex_trylock(&kstack_drain_lock)) {
		drain_locked();
		mutex_unlock(&kstack_drain_lock);
	}
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
			unmap_stack(base, i, slot);
			return 0;
		}
	}
	return (void *)base;
}

void kstack_free(void *stack)
{
	uintptr_t base = (uintptr_t)stack;

	unmap_stack(base, KSTACK_PAGES,
		    (long)((base - KSTACK_REGION) / KSTACK_SLOT));
}
