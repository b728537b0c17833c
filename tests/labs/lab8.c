/*
 * Lab 8's tests (docs/labs/lab8.md): one CPU's sheaf through its refills
 * and flushes in half batches, counted exactly (cached objects, objects
 * in use, shared-lock acquisitions, free pages once drained), and the
 * sheaf used inside a spinlock_t and a mutex, where the local lock nests
 * in both worlds with no validator report (a test outside the lockdep
 * suites fails on any). The storms, the 2*10^6/C bound over random
 * bursts, the drains and the hardirq path are the kernel's own tests
 * (tests/mm/kmalloc_pcp.c, tests/mm/kmalloc_storm.c).
 */
#include "mm/alloc_test.h"
#include "mutex.h"
#include "spinlock.h"

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)
/* kmalloc-1024: a class little else allocates while the tests run, so
 * this CPU's sheaf of it changes only by what the test does. */
#define CLS 6
#define C KMALLOC_SHEAF_CAPACITY
#define B KMALLOC_SHEAF_BATCH

KTEST_SUITE(lab8, .exit = alloc_test_restore);

static unsigned long my_locks(void)
{
	return kmalloc_lock_acquisitions_cpu(raw_smp_processor_id());
}

static unsigned int my_cached(void)
{
	return kmalloc_cached_objects(raw_smp_processor_id(), CLS);
}

/*
 * From an empty sheaf: C + 1 allocations refill it three times (at the
 * 1st, the (B+1)th and the (C+1)th call) and leave B - 1 objects; the
 * frees fill it to C after B + 1 of them, the next flushes the B oldest,
 * and the rest fill it to C again. Every figure is exact.
 */
KTEST(lab8, refill_and_flush_in_half_batches)
{
	static void *objs[C + 1];
	size_t pages = drained_free_pages(); /* every sheaf empty */
	long in_use = kmalloc_objects_in_use(CLS);
	unsigned long locks = my_locks();

	KASSERT_EQ(my_cached(), 0);
	objs[0] = kmalloc(kmalloc_class_size(CLS));
	KASSERT_TRUE(objs[0]);
	KEXPECT_EQ(my_cached(), B - 1);
	KEXPECT_EQ(my_locks() - locks, 1);
	for (int i = 1; i <= C; i++)
		KASSERT_TRUE(objs[i] = kmalloc(kmalloc_class_size(CLS)));
	KEXPECT_EQ(my_cached(), B - 1);
	KEXPECT_EQ(my_locks() - locks, 3);
	KEXPECT_EQ(kmalloc_objects_in_use(CLS), in_use + C + 1);
	for (int i = 0; i <= B; i++)
		kfree(objs[i]);
	KEXPECT_EQ(my_cached(), C);             /* full, not yet flushed */
	KEXPECT_EQ(my_locks() - locks, 3);
	kfree(objs[B + 1]);
	KEXPECT_EQ(my_cached(), B + 1);         /* B flushed, one pushed */
	KEXPECT_EQ(my_locks() - locks, 4);
	for (int i = B + 2; i <= C; i++)
		kfree(objs[i]);
	KEXPECT_EQ(my_cached(), C);
	KEXPECT_EQ(my_locks() - locks, 4);
	KEXPECT_EQ(kmalloc_objects_in_use(CLS), in_use);
	ktest_log("kmalloc-%zu on CPU %d: %d allocations and frees, %lu "
		  "shared-lock acquisitions, %u objects cached",
		  kmalloc_class_size(CLS), raw_smp_processor_id(), 2 * (C + 1),
		  my_locks() - locks, my_cached());
	KEXPECT_EQ(drained_free_pages(), pages); /* nothing lost or kept */
}

/* 1000 kmalloc/kfree pairs of a class whose sheaf holds an object;
 * returns the shared-lock acquisitions they took. */
static unsigned long pairs(void)
{
	unsigned long locks;

	kfree(kmalloc(kmalloc_class_size(CLS))); /* the sheaf holds one */
	locks = my_locks();
	for (int i = 0; i < 1000; i++) {
		void *p = kmalloc(kmalloc_class_size(CLS));

		if (!p)
			return ~0ul;
		kfree(p);
	}
	return my_locks() - locks;
}

/*
 * Inside a spinlock_t: on PREEMPT_RT a sleeping lock, which leaves the
 * task preemptible, so kmalloc uses the sheaf and its local lock nests
 * in the spinlock_t (no shared-lock acquisition); without PREEMPT_RT the
 * spinlock_t disables preemption and every call takes the shared path.
 * Inside a mutex the sheaf is used in both worlds. The validator checks
 * the nesting in both (a local_lock_t is a lock that sleeps on RT, and a
 * raw spinlock may not be held around it).
 */
KTEST(lab8, sheaf_inside_spinlock_and_mutex)
{
	static DEFINE_SPINLOCK(outer_spin);
	static DEFINE_MUTEX(outer_mutex);
	unsigned long spin_locks, mutex_locks;

	spin_lock(&outer_spin);
	spin_locks = pairs();
	spin_unlock(&outer_spin);
	mutex_lock(&outer_mutex);
	mutex_locks = pairs();
	mutex_unlock(&outer_mutex);
	ktest_log("1000 pairs: %lu shared-lock acquisitions inside a "
		  "spinlock_t, %lu inside a mutex", spin_locks, mutex_locks);
	KEXPECT_EQ(spin_locks, RT_WORLD ? 0 : 2000);
	KEXPECT_EQ(mutex_locks, 0);
}
