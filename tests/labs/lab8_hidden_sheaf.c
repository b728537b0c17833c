/*
 * Lab 8's hidden checks (docs/labs/lab8.md): what the visible tests do not
 * look at.
 *  - The 2*10^6/C bound against an adversary, not random bursts: after
 *    each shared-lock acquisition it heads for the other edge of the
 *    sheaf (frees after a refill, allocations after a flush). Half
 *    batches keep C/2 calls between two acquisitions whatever the order;
 *    a sheaf refilled to full, or flushed to empty, is driven to take the
 *    lock every few calls.
 *  - The sheaf is a stack: the object freed last comes out first, and a
 *    flush sends back the oldest, from the bottom.
 *  - A free joins the freeing CPU's sheaf, wherever the object came from,
 *    and a flush there sends it home to its slab: nothing lost.
 *  - The page lists keep the same rules: a stack whose flush sends back
 *    the oldest, and a page freed on another CPU joins that CPU's list
 *    without page_lock.
 *  - A CPU that goes offline with objects and pages in its caches gives
 *    them all back (its hotplug DEAD step flushes them): nothing lost.
 */
#include "cpuhotplug.h"
#include "mm/alloc_test.h"

#define CLS 5 /* kmalloc-512: little else allocates it meanwhile */
#define SIZE kmalloc_class_size(CLS)
#define C KMALLOC_SHEAF_CAPACITY
#define B KMALLOC_SHEAF_BATCH

KTEST_SUITE(lab8_hidden, .exit = alloc_test_restore);

static unsigned long my_locks(void)
{
	return kmalloc_lock_acquisitions_cpu(raw_smp_processor_id());
}

KTEST(lab8_hidden, adversary_bounded)
{
	const long ops = 250000;
	static void *held[4 * C];
	int n = 0;
	bool up = true; /* freeing, towards a flush */
	unsigned long locks, start;
	long done;

	while (n < 2 * C) /* a reserve to free from */
		KASSERT_TRUE(held[n++] = kmalloc(SIZE));
	start = my_locks();
	for (done = 0; done < ops; done++) {
		locks = my_locks();
		if (n == 0)
			up = false;
		else if (n == (int)ARRAY_SIZE(held))
			up = true;
		if (up)
			kfree(held[--n]);
		else
			KASSERT_TRUE(held[n++] = kmalloc(SIZE));
		if (my_locks() != locks)
			up = !up;
	}
	locks = my_locks() - start;
	ktest_log("adversary: %lu kmalloc_lock acquisitions per %ld ops "
		  "(bound %ld)", locks, ops, 2 * ops / C + 1);
	KEXPECT_LE(locks, 2 * ops / C + 1);
	while (n)
		kfree(held[--n]);
}

KTEST(lab8_hidden, stack_order_and_oldest_flushed)
{
	static void *objs[C + 1];
	int cpu = raw_smp_processor_id();
	void *p;

	mm_drain_all();
	for (int i = 0; i <= C; i++)
		KASSERT_TRUE(objs[i] = kmalloc(SIZE));
	/* B - 1 older objects at the bottom, then objs[0..C]: the flush at
	 * the (B+2)th free takes those B - 1 and objs[0]. */
	for (int i = 0; i <= C; i++)
		kfree(objs[i]);
	KEXPECT_EQ(kmalloc_cached_objects(cpu, CLS), C);
	for (int i = C; i >= 1; i--) {
		p = kmalloc(SIZE);
		KEXPECT_TRUE(p == objs[i]);
		objs[i] = p;
	}
	KEXPECT_EQ(kmalloc_cached_objects(cpu, CLS), 0);
	p = kmalloc(SIZE); /* a refill: not objs[0] from the sheaf */
	KEXPECT_EQ(kmalloc_cached_objects(cpu, CLS), B - 1);
	kfree(p);
	for (int i = 1; i <= C; i++)
		kfree(objs[i]);
}

KTEST_CPUS(lab8_hidden, free_joins_freeing_cpu, 2)
{
	static void *objs[C + 1];
	int other = last_cpu();
	size_t pages = drained_free_pages();
	unsigned int here;
	unsigned long locks;

	for (int i = 0; i <= C; i++)
		KASSERT_TRUE(objs[i] = kmalloc(SIZE));
	here = kmalloc_cached_objects(0, CLS);
	KASSERT_TRUE(hop_to(other));
	locks = my_locks();
	for (int i = 0; i < C; i++)
		kfree(objs[i]);
	KEXPECT_EQ(kmalloc_cached_objects(other, CLS), C);
	KEXPECT_EQ(my_locks() - locks, 0);
	kfree(objs[C]);
	KEXPECT_EQ(kmalloc_cached_objects(other, CLS), B + 1);
	KEXPECT_EQ(my_locks() - locks, 1);
	KEXPECT_EQ(kmalloc_cached_objects(0, CLS), here);
	hop_to(0);
	KEXPECT_EQ(drained_free_pages(), pages);
}

KTEST_CPUS(lab8_hidden, page_list_stack_and_freeing_cpu, 2)
{
	int other = last_cpu();
	unsigned long locks;
	unsigned int n;
	void *a, *b, *p;

	mm_drain_all();
	KASSERT_TRUE(a = page_alloc()); /* a refill: the list holds more */
	KASSERT_TRUE(b = page_alloc());
	page_free(a);
	page_free(b);
	p = page_alloc();
	KEXPECT_TRUE(p == b);
	KASSERT_TRUE(hop_to(other));
	n = page_pcp_count(other);
	locks = page_alloc_lock_acquisitions_cpu(other);
	page_free(p);
	/* Another task's free on that CPU may come between: at least ours. */
	KEXPECT_GE(page_pcp_count(other), n + 1);
	KEXPECT_EQ(page_alloc_lock_acquisitions_cpu(other) - locks, 0);
	hop_to(0);
}

/* A full page list's flush sends back its oldest PCP_BATCH pages: the
 * pages freed first are not handed out again from the list, the ones
 * freed last are, last first. */
KTEST(lab8_hidden, page_list_flushes_the_oldest)
{
	static void *pages[PCP_HIGH + 1];
	int cpu = raw_smp_processor_id();
	void *p;

	mm_drain_all();
	for (int i = 0; i <= PCP_HIGH; i++)
		KASSERT_TRUE(pages[i] = page_alloc());
	mm_drain_all(); /* the refills' leftovers gone: the list is empty */
	for (int i = 0; i <= PCP_HIGH; i++)
		page_free(pages[i]); /* the last finds the list full */
	KEXPECT_EQ(page_pcp_count(cpu), PCP_HIGH - PCP_BATCH + 1);
	for (int i = PCP_HIGH; i >= PCP_BATCH; i--) {
		p = page_alloc();
		KEXPECT_TRUE(p == pages[i]);
		pages[i] = p;
	}
	KEXPECT_EQ(page_pcp_count(cpu), 0);
	for (int i = PCP_BATCH; i <= PCP_HIGH; i++)
		page_free(pages[i]);
}

KTEST_CPUS(lab8_hidden, offline_cpu_gives_its_caches_back, 2)
{
	static void *objs[C], *pages[PCP_BATCH];
	int other = last_cpu();
	long in_use = kmalloc_objects_in_use(CLS);
	size_t free_pages = drained_free_pages();

	KASSERT_TRUE(hop_to(other));
	for (int i = 0; i < C; i++)
		KASSERT_TRUE(objs[i] = kmalloc(SIZE));
	for (int i = 0; i < PCP_BATCH; i++)
		KASSERT_TRUE(pages[i] = page_alloc());
	for (int i = 0; i < C; i++)
		kfree(objs[i]);
	for (int i = 0; i < PCP_BATCH; i++)
		page_free(pages[i]);
	KEXPECT_GT(kmalloc_cached_objects(other, CLS), 0);
	KEXPECT_GT(page_pcp_count(other), 0);
	KASSERT_TRUE(hop_to(0));
	KASSERT_EQ(cpu_down(other), 0);
	KEXPECT_EQ(kmalloc_cached_objects(other, CLS), 0);
	KEXPECT_EQ(page_pcp_count(other), 0);
	KEXPECT_EQ(kmalloc_objects_in_use(CLS), in_use);
	KEXPECT_EQ(cpu_up(other), 0);
	KEXPECT_EQ(drained_free_pages(), free_pages);
}
