/*
 * Small helpers the test files share: atomic loads and stores of the flags
 * tests and their helper tasks signal each other with, elapsed time, and
 * the CPU tests put their helpers on.
 */
#ifndef KTEST_UTIL_H
#define KTEST_UTIL_H

#include <stdint.h>
#include "smp.h"
#include "time.h"

#define NS_PER_MS 1000000ul

static inline uint64_t ns_since(uint64_t t0)
{
	return ktime_get_ns() - t0;
}

static inline int load_int(volatile int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline long load_long(volatile long *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_int(volatile int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* The highest-numbered CPU: away from the test task on CPU 0 when there
 * are two or more. */
static inline int last_cpu(void)
{
	return (int)num_online_cpus() - 1;
}

#endif
