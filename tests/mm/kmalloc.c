/*
 * Tests for kmalloc/kfree (kernel/mm/kmalloc.c): alignment, that objects are
 * disjoint and keep their contents, that freed memory goes back to the page
 * allocator, exhaustion, and the checks on bad frees. Freed objects wait in
 * the CPUs' sheaves, which keep their slabs' pages: a test that counts
 * free pages drains the caches before each count (drained_free_pages()).
 */
#include "alloc_test.h"
#include "kmalloc.h"
#include "ktest.h"
#include "asm/page.h"
#include "page_alloc.h"
#include "string.h"

#define NR_SMALL 4096
static const size_t large_sizes[] = {3000, 4080, 4081, 10000, 100000};
#define NR_LARGE (ARRAY_SIZE(large_sizes))
#define NR_OBJS (NR_SMALL + NR_LARGE)

static unsigned char *objs[NR_OBJS];
static size_t obj_size[NR_OBJS];

/* The byte object i is filled with. */
static unsigned char fill_byte(int i)
{
	return (unsigned char)(i * 131 + 7);
}

/* The first byte of p[0..n) that is not c, or -1. */
static long first_mismatch(const unsigned char *p, size_t n, unsigned char c)
{
	for (size_t k = 0; k < n; k++)
		if (p[k] != c)
			return (long)k;
	return -1;
}

static bool overlap(int i, int j)
{
	uintptr_t a = (uintptr_t)objs[i], b = (uintptr_t)objs[j];

	return a < b + obj_size[j] && b < a + obj_size[i];
}

static void free_objs(int n)
{
	for (int i = 0; i < n; i++) {
		kfree(objs[i]);
		objs[i] = 0;
	}
}

/* Sizes 1..4096 and some large ones: 16-byte aligned, disjoint, and each
 * keeps its contents while all the others are live. */
KTEST(kmalloc, aligned_disjoint_and_hold_contents)
{
	size_t before = drained_free_pages();
	unsigned long bad = kmalloc_bad_frees();

	for (int i = 0; i < (int)NR_OBJS; i++) {
		obj_size[i] = i < NR_SMALL ? (size_t)i + 1 : large_sizes[i - NR_SMALL];
		objs[i] = kmalloc(obj_size[i]);
		if (!objs[i] || (uintptr_t)objs[i] % 16) {
			ktest_fail_msg(__FILE__, __LINE__, "kmalloc(%lu) = %p",
				       (unsigned long)obj_size[i], objs[i]);
			free_objs(i + 1);
			ktest_abort();
		}
		memset(objs[i], fill_byte(i), obj_size[i]);
	}
	for (int i = 0; i < (int)NR_OBJS; i++) {
		long k = first_mismatch(objs[i], obj_size[i], fill_byte(i));

		if (k >= 0)
			ktest_fail_msg(__FILE__, __LINE__,
				       "object %d (size %lu) at %p clobbered at byte %ld",
				       i, (unsigned long)obj_size[i], objs[i], k);
	}
	for (int i = 0; i < (int)NR_OBJS; i++)
		for (int j = i + 1; j < (int)NR_OBJS; j++)
			if (overlap(i, j))
				ktest_fail_msg(__FILE__, __LINE__,
					       "objects %d and %d overlap", i, j);
	free_objs(NR_OBJS);
	KEXPECT_EQ(drained_free_pages(), before);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}

/* kzalloc zeroes, even memory that was just dirtied and freed. */
KTEST(kmalloc, kzalloc_zeroes)
{
	static const size_t sizes[] = {1, 24, 100, 2048, 3000, 10000};

	for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
		unsigned char *p = kmalloc(sizes[i]);

		KASSERT_TRUE(p);
		memset(p, 0xa5, sizes[i]);
		kfree(p);
		p = kzalloc(sizes[i]);
		KASSERT_TRUE(p);
		KEXPECT_EQ(first_mismatch(p, sizes[i], 0), -1);
		kfree(p);
	}
}

/* Size 0 gets NULL; kfree(NULL) is a no-op, not a bad free. */
KTEST(kmalloc, zero_size_and_null_free)
{
	unsigned long bad = kmalloc_bad_frees();
	size_t before = page_free_count();

	KEXPECT_EQ(kmalloc(0), 0);
	KEXPECT_EQ(kzalloc(0), 0);
	kfree(0);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
	KEXPECT_EQ(page_free_count(), before);
}

/* 10000 alloc/free pairs leak nothing. */
KTEST(kmalloc, alloc_free_loop_no_leak)
{
	size_t before = drained_free_pages();
	unsigned long bad = kmalloc_bad_frees();

	for (int i = 0; i < 10000; i++) {
		size_t size = 1 + (size_t)(i * 37) % 5000;
		void *p = kmalloc(size);

		if (!p) {
			ktest_fail_msg(__FILE__, __LINE__,
				       "iteration %d: kmalloc(%lu) failed", i,
				       (unsigned long)size);
			break;
		}
		kfree(p);
	}
	KEXPECT_EQ(drained_free_pages(), before);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}

/* A pseudo-random size, mostly small, sometimes several pages. */
static size_t mixed_size(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	uint32_t r = *seed >> 8;
	return r % 8 == 0 ? 1 + r % 30000 : 1 + r % 2048;
}

/* Many live objects of mixed sizes, freed in another order: all memory
 * comes back to the page allocator. */
KTEST(kmalloc, mixed_sizes_all_memory_returned)
{
	const int n = 1000;
	size_t before = drained_free_pages();
	unsigned long bad = kmalloc_bad_frees();
	uint32_t seed = 12345;

	for (int i = 0; i < n; i++) {
		obj_size[i] = mixed_size(&seed);
		objs[i] = kmalloc(obj_size[i]);
		KEXPECT_TRUE(objs[i]);
		if (objs[i])
			memset(objs[i], fill_byte(i), obj_size[i]);
	}
	KEXPECT_LT(page_free_count(), before);
	for (int start = 0; start < 3; start++)    /* every third, three times */
		for (int i = start; i < n; i += 3) {
			if (objs[i])
				KEXPECT_EQ(first_mismatch(objs[i], obj_size[i],
							  fill_byte(i)), -1);
			kfree(objs[i]);
			objs[i] = 0;
		}
	KEXPECT_EQ(drained_free_pages(), before);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}

/* Requests larger than memory fail cleanly (no size overflow). */
KTEST(kmalloc, huge_request_fails)
{
	size_t before = page_free_count();

	KEXPECT_EQ(kmalloc(1ul << 40), 0);
	KEXPECT_EQ(kmalloc((size_t)-1), 0);
	KEXPECT_EQ(kmalloc((size_t)-16), 0);
	KEXPECT_EQ(kzalloc(1ul << 40), 0);
	KEXPECT_EQ(kmalloc(page_total_count() * PAGE_SIZE + 1), 0);
	KEXPECT_EQ(page_free_count(), before);
}

/* 1 MiB blocks until memory runs out: NULL comes, and freeing every
 * block (on a list threaded through them) restores the free count. */
KTEST(kmalloc, exhaustion_and_recovery)
{
	size_t before = page_free_count(), got = 0, left;
	void *list = 0, *p;

	while ((p = kmalloc(1ul << 20))) {
		*(void **)p = list;
		list = p;
		got++;
	}
	left = page_free_count();
	while (list) {
		p = list;
		list = *(void **)p;
		kfree(p);
	}
	/* Each block takes 257 pages (its header makes it just over 1 MiB),
	 * and at least 32 MiB of them were to be had. */
	ktest_log("%lu blocks, %lu pages left", (unsigned long)got,
		  (unsigned long)left);
	KEXPECT_GE(got, 32);
	KEXPECT_EQ(left, before - got * 257);
	KEXPECT_EQ(page_free_count(), before);
}

/* Free p and expect exactly one bad-free report. */
static void expect_bad_kfree(const char *what, void *p)
{
	unsigned long bad = kmalloc_bad_frees();

	kfree(p);
	if (kmalloc_bad_frees() != bad + 1)
		ktest_fail_msg(__FILE__, __LINE__,
			       "kfree(%p) (%s): bad frees +%lu, want +1", p,
			       what, kmalloc_bad_frees() - bad);
}

/* A second kfree of a small object is caught; its neighbour is fine. */
KTEST(kmalloc, double_free_detected)
{
	void *a = kmalloc(48), *b = kmalloc(48);
	unsigned long bad = kmalloc_bad_frees();

	KASSERT_TRUE(a && b);
	kfree(a);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
	expect_bad_kfree("small double free", a);
	kfree(b);
	KEXPECT_EQ(kmalloc_bad_frees(), bad + 1);
}

/* The same for a large (whole-page) allocation. */
KTEST(kmalloc, large_double_free_detected)
{
	size_t before = page_free_count();
	void *p = kmalloc(10000);

	KASSERT_TRUE(p);
	kfree(p);
	KEXPECT_EQ(page_free_count(), before);
	expect_bad_kfree("large double free", p);
	KEXPECT_EQ(page_free_count(), before);
}

static int kmalloc_test_static_object;

/* Pointers kmalloc did not return are reported and ignored. */
KTEST(kmalloc, bad_pointers_reported)
{
	char *small = kmalloc(64), *large = kmalloc(10000), *page = page_alloc();
	int on_stack = 0;
	size_t count;

	KASSERT_TRUE(small && large && page);
	*(uint64_t *)page = 0;
	count = page_free_count();
	expect_bad_kfree("middle of a small object", small + 16);
	expect_bad_kfree("middle of a large object", large + 16);
	expect_bad_kfree("stack", &on_stack);
	expect_bad_kfree("kernel data", &kmalloc_test_static_object);
	expect_bad_kfree("kernel text", (void *)kmalloc);
	expect_bad_kfree("page_alloc page", page);
	expect_bad_kfree("slab header", (void *)PAGE_ALIGN_DOWN((uintptr_t)small));
	KEXPECT_EQ(page_free_count(), count);
	/* The real objects are intact and free normally. */
	unsigned long bad = kmalloc_bad_frees();
	kfree(small);
	kfree(large);
	page_free(page);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}
