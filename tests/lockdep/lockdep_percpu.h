/*
 * The per-CPU access checker (kernel/locking/lockdep_percpu.c; see
 * docs/lockdep.md): each access through this_cpu_ptr(), get_cpu_var() or
 * per_cpu() is checked against what protects that CPU's copy right now:
 * the locks held (a lock inside a per-CPU area only for its own CPU's
 * copy), and for the running CPU's own copy preemption off and IRQs off,
 * as PREEMPT_RT would have them (what a spinlock_t or local_lock turned
 * off on RT=0 does not count). Two accesses of one copy need a common
 * protection only when nothing the kernel does orders one before the
 * other. Three reports, and the lost update of two this_cpu operations:
 *   PERCPU_UNPROTECTED   one of two concurrent accesses had no protection
 *                        (or a this_cpu read and write were not one
 *                        section);
 *   PERCPU_INCONSISTENT  concurrent accesses share no protection (the
 *                        Eraser lockset);
 *   PERCPU_IRQ           used in hardirq and in a task with IRQs on.
 *
 * lockdep_percpu.c has the UNPROTECTED scenarios, lockdep_percpu_silent.c
 * the protected ones, lockdep_percpu_this_cpu.c the this_cpu rules and
 * lockdep_percpu_consistency.c the INCONSISTENT and IRQ scenarios.
 *
 * A test's own access is made concurrent with a rival's: a task started
 * before it and joined after it (rival_start()). Each test uses variables
 * and locks of its own, starts and ends with a clean validator (the
 * suite's set-up and tear-down are lockdep_reset()) and checks the
 * counters, as in the lockdep suite.
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
#include "locking/lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"

/* One access to a copy: a read-modify-write through the pointer. */
#define TOUCH(p) ((*(p))++)

/* A job: touch this CPU's copy of var under lock (of any kind, in its
 * form), or with only preemption, IRQs or migration off, or bare.
 * touch() does it; touch_fn() is the body of a helper task (or rival)
 * that does it. */
enum touch_guard { GUARD_LOCK, GUARD_PREEMPT, GUARD_IRQS, GUARD_MIGRATE,
		   GUARD_NONE };

struct touch_job {
	long *var;
	struct any_lock lock;
	enum touch_guard guard;
};

#define LOCKED_JOB(v, l) ((struct touch_job){.var = (v), .lock = (l)})
#define PREEMPT_OFF_JOB(v)                                                    \
	((struct touch_job){.var = (v), .guard = GUARD_PREEMPT})
#define IRQS_OFF_JOB(v) ((struct touch_job){.var = (v), .guard = GUARD_IRQS})
#define MIGRATE_OFF_JOB(v)                                                    \
	((struct touch_job){.var = (v), .guard = GUARD_MIGRATE})
#define BARE_JOB(v) ((struct touch_job){.var = (v), .guard = GUARD_NONE})

void touch(struct touch_job *j);
int touch_fn(void *arg);
/* A rival does rival's job on this CPU, then the test does mine. */
void touch_against(struct touch_job rival, struct touch_job mine);

/*
 * A rival: fn(arg) in a task bound to cpu that reaches the same copy as
 * the test, started before the test's own access and joined after it,
 * so that nothing orders the two accesses (creating it orders only what
 * the test did before). At SCHED_FIFO it runs at once on the test's CPU,
 * alongside the test on another; rival_start() returns once its access
 * is made (waiting by spinning, which orders nothing). touch_fn() is the
 * usual body, with a touch job as arg.
 */
struct task_struct *rival_start(int cpu, int (*fn)(void *), void *arg);
/* A rival that runs a whole path of the test's own (arg: this). */
struct rival_path {
	void (*path)(void);
};
int rival_run_path(void *path);
/* Marks the rival's access made: for bodies of the test's own. */
void rival_made_access(void);

struct ll_counter {
	local_lock_t lock;
	long n;
};

struct sl_counter {
	spinlock_t lock;
	long n;
};

#endif
