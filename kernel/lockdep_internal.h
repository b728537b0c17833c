/*
 * What lockdep.c shares with lockdep_percpu.c: the graph lock that guards
 * the tables, the report helpers, and the context questions both ask.
 */
#ifndef LOCKDEP_INTERNAL_H
#define LOCKDEP_INTERNAL_H

#include "lockdep.h"
#include "sched.h"

#define MAX_LOCKDEP_CLASSES 1024   /* index 0 means "no class" */
#define MAX_LOCKDEP_EDGES 8192
#define CHAINHASH_SIZE 8192        /* cached chains; at most 3/4 used */
#define MAX_PERCPU_VARS 1024       /* distinct per-CPU variables checked */

/* Whether the validator checks: off until lockdep_init(), and after a
 * table overflowed (until lockdep_reset()). Read without the lock. */
extern bool lockdep_on;

/* The graph lock: an arch spinlock with interrupts off, below every lock
 * the validator tracks. It guards the class table, the dependency graph,
 * the chain cache's writers and the per-CPU table. */
unsigned long graph_lock(void);
void graph_unlock(unsigned long flags);

/* One table is full: one line, and the validator turns off. */
void lockdep_overflow(const char *what);

/* Reports. begin counts the report and prints its banner with the task
 * and CPU; it returns false when the report should not be printed (too
 * many of this kind already). end prints the held locks and the stack. */
bool report_begin(enum lockdep_report_kind kind, const char *title);
void report_end(void);
/* "name+0xoff/0xsize" of ip, in buf. */
const char *lockdep_sym(char *buf, unsigned long size, unsigned long ip);
const char *lockdep_class_name(unsigned int idx);

/* Preemption and interrupts off for real: not counting what a held
 * spinlock_t or local_lock did on a !PREEMPT_RT build, since on
 * PREEMPT_RT it would not have (the checks reason as on PREEMPT_RT).
 * flags: those of an acquisition in progress, already applied. */
bool preempt_off_for_real(const struct task *t, unsigned int flags,
			  int wait_type);
bool irqs_off_for_real(const struct task *t, unsigned int flags,
		       int wait_type);

/* lockdep_percpu.c's part of lockdep_reset() (graph lock held). */
void lockdep_percpu_reset(void);

/* t's pending unprotected per-CPU access (see struct percpu_access): t is
 * taking the lock at map, which cancels it if the lock lies inside the
 * variable; or t does something else, which reports it. Interrupts off. */
void percpu_pending_lock(struct task *t, const void *map);
void percpu_pending_flush(struct task *t);

#endif
