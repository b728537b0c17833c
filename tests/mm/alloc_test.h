/*
 * What the allocator tests (tests/mm/kmalloc_pcp.c, page_pcp.c) share:
 * moving the test task from CPU to CPU, drained free-page counts, and
 * switching the per-CPU caches for a scenario run on both paths.
 */
#ifndef TESTS_ALLOC_TEST_H
#define TESTS_ALLOC_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include "drain.h"
#include "kmalloc.h"
#include "ktest.h"
#include "ktest_util.h"
#include "page_alloc.h"
#include "rcupdate.h"
#include "sched.h"
#include "smp.h"

/* Move the calling task to cpu (test tasks start bound to CPU 0, and go
 * back there with hop_to(0)); false, with a failure, if it did not get
 * there. */
static inline bool hop_to(int cpu)
{
	if (set_cpus_allowed(current, cpumask_of(cpu)) == 0 &&
	    raw_smp_processor_id() == cpu)
		return true;
	ktest_fail_msg(__FILE__, __LINE__, "could not move to CPU %d", cpu);
	return false;
}

/* The free page count with the tasks already put freed (a grace period
 * after their last reference) and every CPU's caches drained first. */
static inline size_t drained_free_pages(void)
{
	rcu_barrier();
	mm_drain_all();
	return page_free_count();
}

/* Both layers of per-CPU caches on or off (off drains them). */
static inline void alloc_caches_set(bool on)
{
	kmalloc_pcp_set(on);
	page_pcp_set(on);
}

/* The suites' tear-down: every test leaves the caches on and the test
 * task on CPU 0, also when a KASSERT ended it early. */
static inline void alloc_test_restore(void)
{
	alloc_caches_set(true);
	hop_to(0);
}

#endif
