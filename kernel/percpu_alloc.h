/*
 * Dynamic per-CPU memory, as Linux's alloc_percpu() (mm/percpu.c): an
 * object with one copy per possible CPU, allocated at run time and reached
 * exactly like a DEFINE_PER_CPU variable (see docs/percpu.md, "Dynamic
 * per-CPU memory").
 *
 *   long *hits = alloc_percpu(long);   zeroed on every possible CPU
 *   this_cpu_inc(*hits);               one %gs: instruction, as for a
 *                                      static variable
 *   *per_cpu_ptr(hits, cpu)            CPU cpu's copy
 *   free_percpu(hits);
 *
 * What alloc_percpu() returns is not a copy: like &var of a static per-CPU
 * variable it is an address in the template, which per_cpu_ptr(),
 * this_cpu_ptr() and the %gs: prefix turn into a CPU's copy by adding
 * that CPU's offset. Dereferenced as it is, it reaches no CPU's copy (it
 * names reserved, unused template memory, so the mistake corrupts
 * nothing, but reads nobody's data).
 *
 * The memory comes from a region of PERCPU_DYNAMIC_SIZE bytes reserved at
 * the end of every CPU's per-CPU area (mm/percpu.c), so there is a
 * fixed amount: an allocation that does not fit gives NULL and a console
 * message, never a panic.
 *
 * With LOCKDEP=1 the per-CPU checker covers this memory as it covers
 * static variables: this_cpu_ptr(p) and per_cpu(*p, cpu) are checked
 * accesses; alloc_percpu() and free_percpu() tell the checker that the
 * range holds a new variable, or none (docs/lockdep.md).
 */
#ifndef PERCPU_ALLOC_H
#define PERCPU_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include "percpu.h"

/* Bytes of dynamic per-CPU memory per CPU, and the allocation granule
 * (Linux's PCPU_MIN_ALLOC_SIZE): sizes round up to it, and every
 * allocation is aligned to it at least. */
#define PERCPU_DYNAMIC_SIZE (16u << 10)
#define PCPU_MIN_ALLOC_SIZE 4u

/*
 * size bytes on every possible CPU, zeroed, aligned to align (a power of
 * two, at most a page). NULL, with a console message, when the dynamic
 * region has no room or size/align are invalid.
 *
 * May sleep (a mutex guards the allocation map, as Linux's
 * pcpu_alloc_mutex): call from task context once the scheduler runs,
 * never with a spinning lock held, preemption or interrupts off.
 */
void *__alloc_percpu(size_t size, size_t align);
#define alloc_percpu(type)                                                    \
	((__typeof__(type) *)__alloc_percpu(sizeof(type), __alignof__(type)))

/*
 * Give back what alloc_percpu() returned; NULL does nothing. A second
 * free of the same pointer, or a pointer alloc_percpu() did not return
 * (one CPU's copy from per_cpu_ptr(), a pointer into the middle of an
 * allocation, anything outside the region) is reported with a call trace
 * and ignored: the map is left as it was. May sleep, like alloc_percpu().
 */
void free_percpu(void *p);

/* A snapshot of the allocator, for tests and dumps. */
struct percpu_alloc_info {
	size_t size;                 /* the dynamic region, per CPU */
	size_t used;                 /* bytes allocated, per CPU */
	size_t largest_free;         /* the largest free run */
	unsigned long nr_allocs;     /* live allocations */
	unsigned long nr_failed;     /* NULL returns since boot */
	unsigned long double_frees;  /* free_percpu() of a freed pointer */
	unsigned long foreign_frees; /* of one alloc_percpu() never returned */
};
void percpu_alloc_info(struct percpu_alloc_info *info);

/* Whether addr lies in the dynamic region's template range (an address
 * alloc_percpu() could have returned). */
bool percpu_dynamic_addr(const void *addr);

/*
 * For reports that name per-CPU data by its template address (the
 * checker's): when addr lies in a live allocation, write "alloc_percpu
 * +off/size from site" into buf and return true. Reads the map without
 * its mutex (a report may be printed with interrupts off): an allocation
 * freed at that very moment may be described as it was.
 */
bool percpu_dynamic_describe(const void *addr, char *buf, size_t size);
/* The template address of the allocation addr lies in, or NULL (free
 * space, or not dynamic memory): the variable, as the checker names it. */
const void *percpu_dynamic_base(const void *addr);

#endif
