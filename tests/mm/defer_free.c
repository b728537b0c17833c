/*
 * The allocators where a caller cannot sleep (kernel/mm/mm_lock.h): on
 * RT=0 a hard interrupt allocates and frees through the shared slabs; on
 * RT=1 their locks sleep, so an allocation there is refused (NULL) and a
 * free waits for the CPU's next allocator call from a context that may
 * sleep (defer_free.c), each with the validator's wait-context report.
 * Counted, not timed: the objects in use and the free pages go back to
 * where they were once that call is made, and no free is lost or made
 * twice.
 */
#include "alloc_test.h"
#include "compiler.h"
#include "defer_free.h"
#include "lockdep.h"
#include "spinlock.h"
#include "string.h"

KTEST_SUITE(defer_free, .exit = alloc_test_restore);

#define OBJ_CLASS 2 /* 64 bytes */

/* What the hard interrupt is given and what it makes. */
struct atomic_probe {
	void *in_obj, *in_large, *in_page;  /* freed there */
	void *obj, *large, *page;           /* allocated there */
	unsigned long deferred;             /* defer_free_count() moved by */
};

static void atomic_probe_fn(void *arg)
{
	struct atomic_probe *a = arg;
	unsigned long before = defer_free_count();

	a->obj = kmalloc(kmalloc_class_size(OBJ_CLASS));
	a->large = kmalloc(5000);
	a->page = page_alloc();
	kfree(a->in_obj);
	kfree(a->in_large);
	page_free(a->in_page);
	a->deferred = defer_free_count() - before;
}

static void probe_once(void (*run)(void (*)(void *), void *))
{
	struct atomic_probe a = {.in_obj = kmalloc(kmalloc_class_size(OBJ_CLASS)),
				 .in_large = kmalloc(5000),
				 .in_page = page_alloc()};
	long obj = kmalloc_objects_in_use(OBJ_CLASS);
	long large = kmalloc_objects_in_use(KMALLOC_NR_CLASSES);
	unsigned long bad = kmalloc_bad_frees() + page_alloc_bad_frees();

	KASSERT_TRUE(a.in_obj && a.in_large && a.in_page);
	run(atomic_probe_fn, &a);
	/* Not made yet on RT=1: the next call that may sleep makes them. */
	KEXPECT_EQ(kmalloc_objects_in_use(OBJ_CLASS), obj);
	kfree(kmalloc(16));
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		KEXPECT_TRUE(!a.obj && !a.large && !a.page);
		KEXPECT_EQ(a.deferred, 3);
		/* Three refusals, three frees that could not be made. */
		KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 6);
		KEXPECT_EQ(kmalloc_objects_in_use(OBJ_CLASS), obj - 1);
		KEXPECT_EQ(kmalloc_objects_in_use(KMALLOC_NR_CLASSES), large - 1);
	} else {
		KEXPECT_TRUE(a.obj && a.large && a.page);
		KEXPECT_EQ(a.deferred, 0);
		KEXPECT_EQ(kmalloc_objects_in_use(OBJ_CLASS), obj);
		KEXPECT_EQ(kmalloc_objects_in_use(KMALLOC_NR_CLASSES), large);
		kfree(a.obj);
		kfree(a.large);
		page_free(a.page);
	}
	KEXPECT_EQ(kmalloc_bad_frees() + page_alloc_bad_frees(), bad);
}

static DEFINE_RAW_SPINLOCK(probe_lock);

/* Task context under a raw spinlock: preemption off, cannot sleep. */
static void under_raw_lock(void (*fn)(void *), void *arg)
{
	raw_spin_lock(&probe_lock);
	fn(arg);
	raw_spin_unlock(&probe_lock);
}

/* RT=0: everything is allocated and freed in place. RT=1: refused and
 * deferred; the deferred frees are made, each once. */
KTEST(defer_free, hardirq)
{
	size_t pages = drained_free_pages();

	probe_once(ktest_in_hardirq);
	KEXPECT_EQ(drained_free_pages(), pages);
}

KTEST(defer_free, raw_spinlock_held)
{
	size_t pages = drained_free_pages();

	probe_once(under_raw_lock);
	KEXPECT_EQ(drained_free_pages(), pages);
}

/* The same with the per-CPU caches off: every call on the shared path. */
KTEST(defer_free, hardirq_caches_off)
{
	size_t pages;

	alloc_caches_set(false);
	pages = drained_free_pages();
	probe_once(ktest_in_hardirq);
	KEXPECT_EQ(drained_free_pages(), pages);
}
