/*
 * Small-object allocation: kmalloc/kfree, as in Linux, with a per-CPU
 * cache of free objects per size class in front of the shared slabs
 * (kmalloc_pcp.c; docs/allocators.md).
 */
#ifndef KMALLOC_H
#define KMALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* 16-byte aligned; NULL when memory is exhausted or size is 0. Any
 * context, hardirq included, on RT=0; on RT=1 only where the caller may
 * sleep: elsewhere NULL, and kfree() frees later, both with the
 * validator's wait-context report, as in PREEMPT_RT Linux, whose
 * GFP_ATOMIC cannot take a sleeping lock either (mm/mm_lock.h). */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
/* kfree(NULL) does nothing; a double free or a pointer kmalloc did not
 * return is reported (with a call trace) and ignored. */
void kfree(void *p);

unsigned long kmalloc_bad_frees(void);

/* Size classes 16, 32, ..., 2048 bytes; larger requests take pages. */
#define KMALLOC_NR_CLASSES 8
#define KMALLOC_MAX_SMALL 2048
/* Each CPU's sheaf of a class holds up to C free objects and is refilled
 * and flushed C/2 at a time, so the shared lock is taken at most once per
 * C/2 operations on a CPU: at most 2 * 10^6 / C per 10^6. */
#define KMALLOC_SHEAF_CAPACITY 32
#define KMALLOC_SHEAF_BATCH (KMALLOC_SHEAF_CAPACITY / 2)

/* The object size of class cls (0..KMALLOC_NR_CLASSES-1). */
static inline size_t kmalloc_class_size(int cls)
{
	return (size_t)16 << cls;
}

/*
 * The per-CPU caches are off until kmalloc_pcp_init() (kmain(), once the
 * per-CPU areas exist), which turns them on unless the boot option
 * kmalloc_pcp=0 said no. kmalloc_pcp_set() switches them at run time, for
 * the tests and the benchmark that compare both paths in one boot: off
 * drains every CPU's caches (so it must be called from preemptible task
 * context, see kmalloc_drain_all()).
 */
void kmalloc_pcp_init(bool on);
void kmalloc_pcp_set(bool on);
bool kmalloc_pcp_enabled(void);

/* The statistics' percpu_counters (kmain(), once the scheduler and
 * interrupts run and before the other CPUs do: dynamic per-CPU memory is
 * taken under a mutex). Before it, the boot CPU's counts wait in plain
 * words and are handed over. */
void kmalloc_stats_init(void);

/*
 * Return cached objects to the shared slabs (and emptied slabs to the
 * page allocator).
 * kmalloc_drain_cpu(cpu): CPU cpu's caches, from any CPU, without its
 *   lock. Precondition: nothing runs on cpu any more and no task holds
 *   its cache lock (it is offline, its tasks gone: the CPU-hotplug drain).
 * kmalloc_drain_all(): every online CPU's caches, each drained on its own
 *   CPU under its lock by the caller, which moves there and back
 *   (mm/drain.h): preemptible task context, migration enabled.
 */
void kmalloc_drain_cpu(int cpu);
void kmalloc_drain_all(void);

/* Statistics (sums of per-CPU counters: snapshots while CPUs allocate).
 * Objects in use of class cls; cls == KMALLOC_NR_CLASSES counts the
 * large (page) allocations. */
long kmalloc_objects_in_use(int cls);
/* Free objects in CPU cpu's sheaf of class cls (a racy snapshot). */
unsigned int kmalloc_cached_objects(int cpu, int cls);
/* Slabs of class cls, and the free objects on their lists. */
void kmalloc_slab_counts(int cls, unsigned long *slabs,
			 unsigned long *free_in_slabs);
/* Acquisitions of the shared kmalloc_lock, by all CPUs or by one. */
unsigned long kmalloc_lock_acquisitions(void);
unsigned long kmalloc_lock_acquisitions_cpu(int cpu);

/* The slabinfo-like dump: per class, objects in use, slabs and cached
 * objects; per CPU, cached objects and pages; shared-lock acquisitions
 * (slabinfo.c; `kbench=slabinfo`). */
void kmalloc_slabinfo(void);

#endif
