/*
 * The per-CPU access checker (kernel/lockdep_percpu.c; see
 * docs/lockdep.md): each access through this_cpu_ptr(), get_cpu_var(),
 * per_cpu() or per_cpu_ptr() is checked against what protects that CPU's
 * copy right now: the locks held (a lock inside a per-CPU area only for
 * its own CPU's copy), and for the running CPU's own copy preemption off
 * and IRQs off, as PREEMPT_RT would have them (what a spinlock_t or
 * local_lock turned off on RT=0 does not count). Three reports:
 *   PERCPU_UNPROTECTED   nothing protects the access;
 *   PERCPU_INCONSISTENT  no protection is common to all the accesses of
 *                        the variable (the Eraser lockset);
 *   PERCPU_IRQ           used in hardirq and in a task with IRQs on.
 *
 * lockdep_percpu.c has the UNPROTECTED scenarios,
 * lockdep_percpu_consistency.c the INCONSISTENT and IRQ ones.
 *
 * Each test uses variables and locks of its own, starts and ends with a
 * clean validator (the suite's set-up and tear-down are lockdep_reset())
 * and checks the counters, as in the lockdep suite. Several-CPU
 * tests run their helpers one after the other unless the accesses are
 * correctly protected.
 */
#ifndef LOCKDEP_PERCPU_H
#define LOCKDEP_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"

/* One access to a copy: a read-modify-write through the pointer. */
#define TOUCH(p) ((*(p))++)

/* A helper's job: touch its CPU's copy of var under lock. */
struct touch_job {
	long *var;
	struct any_lock lock;
};

int touch_fn(void *arg);

struct ll_counter {
	local_lock_t lock;
	long n;
};

#endif
