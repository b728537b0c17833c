/*
 * Small helpers the test files share: atomic loads and stores of the flags
 * tests and their helper tasks signal each other with, elapsed time, the
 * CPU tests put their helpers on, starting a helper task on a CPU, and the
 * lockdep suites' counter checks.
 */
#ifndef KTEST_UTIL_H
#define KTEST_UTIL_H

#include <stdint.h>
#include "ktest.h"
#include "sched.h"
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

/* For the validator's suites: exactly n reports of kind since the last
 * lockdep_reset(), and none of any other kind. */
#define KEXPECT_LOCKDEP_ONLY(kind, n)                                         \
	do {                                                                  \
		KEXPECT_EQ(lockdep_reports(kind), (n));                       \
		KEXPECT_EQ(lockdep_reports_total(), (n));                     \
	} while (0)
#define KEXPECT_LOCKDEP_NONE() KEXPECT_EQ(lockdep_reports_total(), 0)

/* fn(arg) in a task of its own, bound to cpu and started; NULL (and the
 * test fails) when no task could be made. */
static inline struct task *ktest_spawn_on(int cpu, int (*fn)(void *),
					  void *arg, const char *name)
{
	return ktest_spawn(fn, arg, name, cpu, SCHED_NORMAL, 0, true);
}

/* The same, waited for: fn's result, or -1 when it could not start. */
static inline int ktest_run_on(int cpu, int (*fn)(void *), void *arg,
			       const char *name)
{
	return ktest_join(ktest_spawn_on(cpu, fn, arg, name));
}

#endif
