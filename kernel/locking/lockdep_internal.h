/*
 * What lockdep.c shares with lockdep_percpu.c: the graph lock that guards
 * the tables, the report helpers, and the context questions both ask.
 */
#ifndef LOCKDEP_INTERNAL_H
#define LOCKDEP_INTERNAL_H

#include "locking/lockdep.h"
#include "rwonce.h"
#include "sched/sched.h"
#include "rwonce.h"

#define MAX_LOCKDEP_CLASSES 1024   /* index 0 means "no class" */
#define MAX_LOCKDEP_EDGES 8192
#define CHAINHASH_SIZE 8192        /* cached chains; at most 3/4 used */
#define MAX_PERCPU_VARS 1024       /* distinct per-CPU variables checked */
#define MAX_PERCPU_COPIES 4096     /* distinct (variable, CPU) copies checked */

/* Usage bits of a class, as Linux's: taken in hardirq context; taken
 * with IRQs on; taken in softirq context (serving); taken with IRQs and
 * BHs on. Each pair is one "state" (lockdep_graph.c): a class in both
 * halves of one can deadlock its CPU. */
#define USED_IN_HARDIRQ 1u
#define ENABLED_HARDIRQ 2u
#define USED_IN_SOFTIRQ 4u
#define ENABLED_SOFTIRQ 8u
#define LOCK_USAGE_BITS 4

/* The softirq usage an acquisition in task context (not hardirq) shows,
 * with interrupts on (irqs_on) or off: the BH count's, the task's on
 * PREEMPT_RT. */
static inline unsigned int lockdep_softirq_usage(const struct task_struct *t,
						 bool irqs_on)
{
	int sc = IS_ENABLED(CONFIG_PREEMPT_RT) ? t->softirq_disable_cnt
					       : preempt_count() & SOFTIRQ_MASK;

	if (sc & SOFTIRQ_OFFSET)
		return USED_IN_SOFTIRQ;
	return !sc && irqs_on ? ENABLED_SOFTIRQ : 0;
}

/* Fields are written under the graph lock; key, subclass, name and
 * wait_type are set before the class is published in class_hash, usage
 * may be read without the lock (a bit once set stays set until reset). */
struct lock_class {
	const void *key;        /* explicit key, or a static lock's address
				 * (the template's, for a per-CPU lock) */
	const char *name;
	uint8_t subclass;
	uint8_t wait_type;
	uint8_t usage;          /* USED_IN_* | ENABLED_* */
	unsigned long usage_ip[LOCK_USAGE_BITS]; /* where each was first seen,
				 * by bit number */
	int fwd, bwd;           /* first edge out of / into it; 0: none */
	uint32_t bfs_gen;       /* reached by the search of this generation */
	int bfs_parent;         /* the edge that search came by */
};

/* Every class; index 0 is "no class". Owned by lockdep.c. */
extern struct lock_class lock_classes[MAX_LOCKDEP_CLASSES];

/* Whether the validator checks: off until lockdep_init(), and after a
 * table overflowed (until lockdep_reset()). Read without the lock. */
extern bool lockdep_on;
/* How many lockdep_reset()s there have been: a held-back per-CPU access
 * made before the last one is forgotten, not reported. */
extern unsigned int lockdep_reset_gen;

/* The graph lock: an arch spinlock with interrupts off, below every lock
 * the validator tracks. It guards the class table, the dependency graph,
 * the chain cache's writers and the per-CPU table. */
unsigned long lockdep_graph_lock(void);
void lockdep_graph_unlock(unsigned long flags);

/* One table is full: one line, and the validator turns off. */
/* A table is full: limit (its size's name, e.g. "MAX_LOCKDEP_EDGES") is
 * too low. The validator switches itself off, says so, and the test runner
 * is told (lockdep_overflows()). */
void lockdep_overflow(const char *limit);

/* Reports. begin counts the report and prints its banner with the task
 * and CPU; it returns false when the report should not be printed (too
 * many of this kind already). end prints the held locks and the stack. */
bool lockdep_report_begin(enum lockdep_report_kind kind, const char *title);
void lockdep_report_end(void);
/* The name of a wait type (enum lockdep_wait_type). */
const char *lockdep_wait_name(int wait_type);
/* "name+0xoff/0xsize" of ip, in buf. */
const char *lockdep_sym(char *buf, unsigned long size, unsigned long ip);
const char *lockdep_class_name(unsigned int idx);

/* The held locks of the running context: t's, or in hardirq context
 * its CPU's (struct held_locks). */
struct held_locks *lockdep_context_locks(struct task_struct *t);

/* The chain cache (lockdep_graph.c): the keys of the held-lock chains
 * already validated, by open addressing; 0 = empty. Read without a lock;
 * written under the graph lock. */
extern uint64_t lockdep_chain_hash[CHAINHASH_SIZE];

static inline bool lockdep_chain_cached(uint64_t key)
{
	for (unsigned int s = key % CHAINHASH_SIZE;;
	     s = (s + 1) % CHAINHASH_SIZE) {
		uint64_t k = READ_ONCE(lockdep_chain_hash[s]);

		if (k == key)
			return true;
		if (!k)
			return false;
	}
}

/* The fast path's question: whether key is in the chain cache at its
 * own slot. A key that a collision moved on is for the slow path. A
 * marked load: the inline fast path is compiled into instrumented code,
 * whose plain loads each pay the per-CPU checker's address filter. */
static inline bool lockdep_chain_cached_fast(uint64_t key)
{
	return READ_ONCE(lockdep_chain_hash[key % CHAINHASH_SIZE]) == key;
}

/* lockdep_graph.c: validate a held-lock chain not seen before (next is
 * about to be pushed on s); a class shows an IRQ usage (bit) for the
 * first time; forget every edge, usage and chain (graph lock held). */
void lockdep_validate_chain(const struct held_locks *s,
			    const struct held_lock *next);
void lockdep_mark_usage(unsigned int idx, unsigned int bit, unsigned long ip);
void lockdep_graph_reset(int nr_classes);

/* Stamp an access of the running context (false: no slot left, and the
 * validator has turned off). */
bool lockdep_hb_stamp(struct hb_stamp *st);
/* The running context's clock (0: none since the last reset), and a copy
 * of it for an access checked later (struct percpu_access). */
const struct hb_clock *lockdep_hb_clock(void);
void lockdep_hb_snapshot(struct hb_clock *dst);
/* Whether the access stamped before happens before a context that had
 * seen the clock seen. */
bool lockdep_hb_ordered(const struct hb_clock *seen,
			const struct hb_stamp *before);
/* t exits: its slot goes back to the pool. */
void lockdep_hb_exit(struct task_struct *t);
/* lockdep_percpu_hb.c's part of lockdep_reset(). */
void lockdep_hb_reset(void);

/* How many times this CPU has turned interrupts on (lockdep.c). */
DECLARE_PER_CPU_STAT(unsigned long, irqs_on_epoch);

/* t exits: its recorded this_cpu reads are dropped. */
void lockdep_percpu_task_exit(struct task_struct *t);

/* lockdep_percpu.c's part of lockdep_reset() (graph lock held). */
void lockdep_percpu_reset(void);

/* t's pending unprotected per-CPU access (see struct percpu_access): t is
 * taking the lock at map, which cancels it if the lock lies inside the
 * variable; or t does something else, which reports it. Interrupts off. */
void lockdep_percpu_pending_lock(struct task_struct *t, const void *map);
void lockdep_percpu_pending_flush(struct task_struct *t);

#endif
