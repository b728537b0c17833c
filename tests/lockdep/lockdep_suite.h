/*
 * The lock validator's scenario matrix (kernel/locking/lockdep.c; see
 * docs/lockdep.md), one file per family of reports (lockdep_recursive.c,
 * _circular, _irq, _held, _wait, _context; the set-up is lockdep_suite.c):
 * each test provokes one report of one kind, or shows that a correct
 * variant stays silent, and checks the counters with lockdep_reports(kind)
 * and lockdep_reports_total(). The per-CPU access checker has its own
 * suite (lockdep_percpu.c).
 *
 * Rules every test here keeps:
 *   - it starts and ends with a clean validator: the suite's set-up and
 *     tear-down are lockdep_reset() (the runner lets only suites named
 *     lockdep* leave reports, and a reset keeps the next test's counters
 *     clean);
 *   - its locks are its own file-scope statics, each a class of its own
 *     (or sharing a key it sets up itself), so that no test sees another's
 *     dependencies even if a reset were forgotten;
 *   - nothing ever deadlocks: "recursion" takes two different locks of one
 *     class, and a cycle is shown by taking the orders one after the other
 *     (in one task, or in tasks that run one after the other on different
 *     CPUs), never concurrently;
 *   - a sleeping lock taken where it may not sleep is always free, so it is
 *     taken on its fast path and nothing actually sleeps.
 * Tests needing several CPUs say so with KTEST_CPUS; helper tasks only
 * record what they see, the test task checks.
 */
#ifndef LOCKDEP_SUITE_H
#define LOCKDEP_SUITE_H

#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "asm/processor.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "locking/lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

/* One lock of each kind, as a scenario step names it (L: a per-CPU
 * local_lock_t), and the _irq and _irqsave forms of the spinning ones. */
#define M(x) ANY_LOCK(LOCK_MUTEX, &(x))
#define R(x) ANY_LOCK(LOCK_RAW, &(x))
#define S(x) ANY_LOCK(LOCK_SPIN, &(x))
#define RT(x) ANY_LOCK(LOCK_RTMUTEX, &(x))
#define L(x) ANY_LOCK(LOCK_LOCAL, &(x))
#define R_IRQ(x) ANY_LOCK_FORM(LOCK_RAW, &(x), LOCK_IRQ)
#define R_IRQSAVE(x) ANY_LOCK_FORM(LOCK_RAW, &(x), LOCK_IRQSAVE)
#define S_IRQ(x) ANY_LOCK_FORM(LOCK_SPIN, &(x), LOCK_IRQ)
#define S_IRQSAVE(x) ANY_LOCK_FORM(LOCK_SPIN, &(x), LOCK_IRQSAVE)
#define L_IRQSAVE(x) ANY_LOCK_FORM(LOCK_LOCAL, &(x), LOCK_IRQSAVE)

/* Take outer, then inner under it; release both (inner first). */
static inline void take_nested(struct any_lock outer, struct any_lock inner)
{
	any_lock_acquire(&outer);
	any_lock_acquire(&inner);
	any_lock_release(&inner);
	any_lock_release(&outer);
}

#endif
