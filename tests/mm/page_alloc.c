/*
 * Tests for the physical page allocator (kernel/mm/page_alloc.c): what it
 * hands out, its free-page accounting, exhaustion, and the checks that
 * catch double frees and frees of pages it never handed out.
 */
#include "ktest.h"
#include "asm/page.h"
#include "page_alloc.h"
#include "asm/pgtable.h"

#define NR_TEST_PAGES 64

static void *pages[NR_TEST_PAGES];

/* A word that differs for every (page, word) pair. */
static uint64_t pattern(int page, int word)
{
	return 0x9e3779b97f4a7c15ul * (uint64_t)(page + 1) + (uint64_t)word;
}

static void fill_page(void *p, int page)
{
	uint64_t *w = p;

	for (int i = 0; i < (int)(PAGE_SIZE / 8); i++)
		w[i] = pattern(page, i);
}

/* The number of words of the page that no longer hold their pattern. */
static int damaged_words(const void *p, int page)
{
	const uint64_t *w = p;
	int bad = 0;

	for (int i = 0; i < (int)(PAGE_SIZE / 8); i++)
		bad += w[i] != pattern(page, i);
	return bad;
}

/* A page the allocator may hand out: aligned, in the direct map, above
 * the kernel image, mapped writable. */
static bool plausible_page(const void *p)
{
	uintptr_t va = (uintptr_t)p;

	return va % PAGE_SIZE == 0 && va >= DIRECT_MAP_BASE &&
	       va < DIRECT_MAP_BASE + PAGE_ALLOC_MAX_PHYS &&
	       virt_to_phys(p) >= virt_to_phys(_end) &&
	       (paging_lookup(va) & (PTE_P | PTE_W)) == (PTE_P | PTE_W);
}

static void free_test_pages(int n)
{
	for (int i = 0; i < n; i++)
		if (pages[i])
			page_free(pages[i]);
}

/* 64 pages are valid, distinct memory: none clobbers another. */
KTEST(page_alloc, pages_valid_and_disjoint)
{
	for (int i = 0; i < NR_TEST_PAGES; i++) {
		pages[i] = page_alloc();
		KEXPECT_TRUE(pages[i] && plausible_page(pages[i]));
		if (pages[i])
			fill_page(pages[i], i);
	}
	for (int i = 0; i < NR_TEST_PAGES; i++)
		if (pages[i])
			KEXPECT_EQ(damaged_words(pages[i], i), 0);
	free_test_pages(NR_TEST_PAGES);
}

/* The free count moves by exactly the number of pages taken or given. */
KTEST(page_alloc, free_count_tracks_alloc_and_free)
{
	size_t before = page_free_count();

	KASSERT_GT(before, NR_TEST_PAGES);
	KEXPECT_LE(before, page_total_count());
	for (int i = 0; i < NR_TEST_PAGES; i++)
		KASSERT_TRUE(pages[i] = page_alloc());
	KEXPECT_EQ(page_free_count(), before - NR_TEST_PAGES);
	free_test_pages(NR_TEST_PAGES / 2);
	KEXPECT_EQ(page_free_count(), before - NR_TEST_PAGES / 2);
	for (int i = NR_TEST_PAGES / 2; i < NR_TEST_PAGES; i++)
		page_free(pages[i]);
	KEXPECT_EQ(page_free_count(), before);
}

/* pages_alloc(n) gives n contiguous pages, which no later page_alloc
 * hands out again while they are in use. */
KTEST(page_alloc, multi_page_run_contiguous)
{
	const int n = 8;
	size_t before = page_free_count();
	char *run = pages_alloc(n);

	KASSERT_TRUE(run && plausible_page(run));
	KEXPECT_EQ(page_free_count(), before - n);
	for (int i = 0; i < n; i++) {
		KEXPECT_TRUE(plausible_page(run + i * PAGE_SIZE));
		fill_page(run + i * PAGE_SIZE, i);
	}
	for (int i = 0; i < NR_TEST_PAGES; i++) {
		char *p = pages[i] = page_alloc();

		KEXPECT_TRUE(p && (p + PAGE_SIZE <= run || p >= run + n * PAGE_SIZE));
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(damaged_words(run + i * PAGE_SIZE, i), 0);
	free_test_pages(NR_TEST_PAGES);
	pages_free(run, n);
	KEXPECT_EQ(page_free_count(), before);
}

/* A freed page is handed out again (first fit: the same one). */
KTEST(page_alloc, freed_page_reused)
{
	size_t before = page_free_count();
	void *p = page_alloc(), *q;

	KASSERT_TRUE(p);
	page_free(p);
	KEXPECT_EQ(page_free_count(), before);
	q = page_alloc();
	KEXPECT_EQ(q, p);
	KEXPECT_EQ(page_free_count(), before - 1);
	if (q)
		page_free(q);
	KEXPECT_EQ(page_free_count(), before);
}

/* Every free page can be allocated, then nothing more; freeing all
 * restores the count. The pages are kept on a list threaded through them. */
KTEST(page_alloc, exhaustion_and_recovery)
{
	size_t before = page_free_count(), got = 0;
	void *list = 0, *p;
	bool run_failed, single_failed;

	while ((p = page_alloc())) {
		*(void **)p = list;
		list = p;
		got++;
	}
	/* Record while memory is exhausted; report (which may allocate) later. */
	size_t left = page_free_count();
	single_failed = page_alloc() == 0;
	run_failed = pages_alloc(2) == 0;
	while (list) {
		p = list;
		list = *(void **)p;
		page_free(p);
	}
	KEXPECT_EQ(got, before);
	KEXPECT_EQ(left, 0);
	KEXPECT_TRUE(single_failed);
	KEXPECT_TRUE(run_failed);
	KEXPECT_EQ(page_free_count(), before);
}

/* A second free of a page is reported, counted once, and changes nothing. */
KTEST(page_alloc, double_free_detected)
{
	void *p = page_alloc(), *q = page_alloc();
	unsigned long bad = page_alloc_bad_frees();
	size_t count;

	KASSERT_TRUE(p && q);
	page_free(p);
	count = page_free_count();
	page_free(p);
	KEXPECT_EQ(page_alloc_bad_frees(), bad + 1);
	KEXPECT_EQ(page_free_count(), count);
	page_free(q); /* a good free still works and is not counted */
	KEXPECT_EQ(page_alloc_bad_frees(), bad + 1);
	KEXPECT_EQ(page_free_count(), count + 1);
}

/* Free pointer p and expect exactly one bad-free report, count unchanged. */
static void expect_bad_free(void *p, size_t n)
{
	unsigned long bad = page_alloc_bad_frees();
	size_t count = page_free_count();

	pages_free(p, n);
	if (page_alloc_bad_frees() != bad + 1 || page_free_count() != count)
		ktest_fail_msg(__FILE__, __LINE__,
			       "pages_free(%p, %lu): bad frees +%lu, free count %+ld",
			       p, (unsigned long)n, page_alloc_bad_frees() - bad,
			       (long)(page_free_count() - count));
}

/* Pointers the allocator never handed out are rejected, not freed. */
KTEST(page_alloc, bad_pointer_frees_rejected)
{
	char *p = page_alloc();

	KASSERT_TRUE(p);
	expect_bad_free(__data_start, 1);               /* kernel data */
	expect_bad_free((void *)page_free_count, 1);    /* kernel text */
	expect_bad_free(p + 8, 1);                      /* not aligned */
	expect_bad_free(phys_to_virt(0x1000), 1);       /* reserved low memory */
	/* the image again, through the direct map */
	expect_bad_free(phys_to_virt(virt_to_phys(__text_start)), 1);
	/* beyond the end of RAM */
	expect_bad_free(phys_to_virt(PAGE_ALLOC_MAX_PHYS - PAGE_SIZE), 1);
	expect_bad_free((void *)0x100000, 1);           /* lower half */
	page_free(p); /* p itself is still allocated and frees normally */
}

/* A run that includes a free page is rejected as a whole. */
KTEST(page_alloc, partly_free_run_rejected_whole)
{
	char *run = pages_alloc(4);

	KASSERT_TRUE(run);
	page_free(run + 2 * PAGE_SIZE);
	expect_bad_free(run, 4);
	page_free(run);
	page_free(run + PAGE_SIZE);
	page_free(run + 3 * PAGE_SIZE);
}

/* Zero pages is not a request; nor is more pages than there are. */
KTEST(page_alloc, zero_and_oversized_requests_fail)
{
	size_t before = page_free_count();

	KEXPECT_EQ(pages_alloc(0), 0);
	KEXPECT_EQ(pages_alloc(page_total_count() + 1), 0);
	KEXPECT_EQ(pages_alloc((size_t)-1), 0);
	KEXPECT_EQ(page_free_count(), before);
}
