/*
 * The allocators' shared-lock counters: how often each CPU took
 * kmalloc_lock or page_lock, the figure the per-CPU caches exist to make
 * small. Each CPU counts its own acquisitions in a plain per-CPU word, as
 * Linux's vm_event counters and SLUB's CONFIG_SLUB_STATS do, bumped with
 * the lock held (mm_lock.h), and read per CPU or summed over the CPUs.
 *
 * Not a percpu_counter (which the allocators use for their object
 * counts, kmalloc.c): a percpu_counter folds each CPU's share into one
 * shared count, and the tests and the benchmark need the share of one
 * CPU exact, so that allocations on other CPUs meanwhile do not count.
 */
#ifndef MM_STAT_H
#define MM_STAT_H

#include "percpu.h"
#include "rwonce.h"

/* A per-CPU lock counter; the per-CPU checker skips statistics. */
#define MM_LOCK_STAT_DEFINE(name) static DEFINE_PER_CPU_STAT(unsigned long, name)

/* CPU cpu's count: exact once that CPU stops taking the lock, and for
 * the calling CPU's own. */
#define mm_lock_stat_cpu(name, cpu) READ_ONCE(*raw_per_cpu_ptr(&(name), (cpu)))

/* The sum over the possible CPUs (a snapshot while CPUs allocate). */
#define mm_lock_stat_sum(name)                                                \
	({                                                                    \
		unsigned long mm_sum_ = 0;                                    \
		int mm_cpu_;                                                  \
		for_each_possible_cpu(mm_cpu_)                                \
			mm_sum_ += mm_lock_stat_cpu(name, mm_cpu_);           \
		mm_sum_;                                                      \
	})

#endif
