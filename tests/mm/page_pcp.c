/*
 * Tests for the per-CPU page lists (kernel/mm/page_pcp.c): batched
 * refills and flushes and what they cost in page_lock acquisitions, the
 * free count that includes the lists, double frees through a list, and
 * the drain that an exhausted allocator does before it gives up.
 */
#include <stdint.h>
#include "alloc_test.h"
#include "asm/page.h"

KTEST_SUITE(page_pcp, .exit = alloc_test_restore);

static unsigned int my_pages(void)
{
	return page_pcp_count(raw_smp_processor_id());
}

static unsigned long my_page_locks(void)
{
	return page_alloc_lock_acquisitions_cpu(raw_smp_processor_id());
}

/* An empty list is refilled with a batch; a full one gives a batch back;
 * the free count does not move for either, only for what the caller
 * holds. */
KTEST(page_pcp, batched_refill_and_flush)
{
	static void *held[PCP_HIGH + PCP_BATCH];
	size_t free_before;

	mm_drain_all();
	KEXPECT_EQ(my_pages(), 0);
	free_before = page_free_count();
	held[0] = page_alloc();
	KASSERT_TRUE(held[0]);
	KEXPECT_EQ(my_pages(), PCP_BATCH - 1);
	KEXPECT_EQ(page_free_count(), free_before - 1);
	for (int i = 1; i < (int)ARRAY_SIZE(held); i++)
		KASSERT_TRUE(held[i] = page_alloc());
	for (int i = 0; i < (int)ARRAY_SIZE(held); i++)
		page_free(held[i]);
	/* The last free found the list full and flushed a batch first. */
	KEXPECT_LE(my_pages(), PCP_HIGH);
	KEXPECT_GT(my_pages(), PCP_HIGH - PCP_BATCH);
	KEXPECT_EQ(page_free_count(), free_before);
}

/* page_lock is taken once per batch at most: N single-page calls in
 * bursts past the list take it at most 2N / PCP_BATCH + 1 times. */
KTEST(page_pcp, page_lock_once_per_batch)
{
	static void *held[2 * PCP_HIGH];
	const int rounds = 50;
	unsigned long before = my_page_locks(), locks;
	long ops = 0;

	for (int r = 0; r < rounds; r++) {
		int n = PCP_BATCH + (r * 37) % ((int)ARRAY_SIZE(held) - PCP_BATCH);

		for (int i = 0; i < n; i++)
			KASSERT_TRUE(held[i] = page_alloc());
		for (int i = 0; i < n; i++)
			page_free(held[i]);
		ops += 2 * n;
	}
	locks = my_page_locks() - before;
	ktest_log("%lu page_lock acquisitions for %ld single-page calls",
		  locks, ops);
	KEXPECT_LE(locks, 2 * ops / PCP_BATCH + 1);
}

/* A page freed twice is caught when its first free left it on another
 * CPU's list (page_alloc.double_free_detected covers this CPU's). */
KTEST_CPUS(page_pcp, double_free_through_another_list, 2)
{
	unsigned long bad = page_alloc_bad_frees();
	void *p = page_alloc();
	size_t count;

	KASSERT_TRUE(p);
	if (!hop_to(last_cpu()))
		return;
	page_free(p);           /* onto the last CPU's list */
	hop_to(0);
	count = page_free_count();
	page_free(p);
	KEXPECT_EQ(page_alloc_bad_frees(), bad + 1);
	KEXPECT_EQ(page_free_count(), count);
}

/* A page whose data holds the list's poison word is no double free. */
KTEST(page_pcp, poison_lookalike_is_not_a_double_free)
{
	unsigned long bad = page_alloc_bad_frees();
	uint64_t *p = page_alloc();

	KASSERT_TRUE(p);
	p[1] = 0x9c9f9a6e9c9f9a6eul; /* PCP_PAGE_POISON */
	page_free(p);
	KEXPECT_EQ(page_alloc_bad_frees(), bad);
}

/* With pages waiting on another CPU's list, an allocation that exhausts
 * the bitmap drains the lists and still gets every free page. */
KTEST_CPUS(page_pcp, exhaustion_drains_other_lists, 2)
{
	size_t before, got = 0;
	void *list = 0, *p;
	unsigned int other;

	if (!hop_to(last_cpu()))
		return;
	p = page_alloc();
	page_free(p);
	other = my_pages();
	hop_to(0);
	before = page_free_count();
	KEXPECT_GT(other, 0);
	while ((p = page_alloc())) {
		*(void **)p = list;
		list = p;
		got++;
	}
	other = page_pcp_count(last_cpu());
	while (list) {
		p = list;
		list = *(void **)p;
		page_free(p);
	}
	KEXPECT_EQ(got, before);
	KEXPECT_EQ(other, 0);
	KEXPECT_EQ(page_free_count(), before);
}

/* With the lists off, single pages come from the bitmap and no list
 * fills; their pages went back when they were switched off. */
KTEST(page_pcp, switched_off_bypasses_lists)
{
	void *p;
	int cpu;

	page_pcp_set(false);
	KEXPECT_FALSE(page_pcp_enabled());
	for_each_online_cpu(cpu)
		KEXPECT_EQ(page_pcp_count(cpu), 0);
	p = page_alloc();
	KASSERT_TRUE(p);
	page_free(p);
	KEXPECT_EQ(my_pages(), 0);
	page_pcp_set(true);
}
