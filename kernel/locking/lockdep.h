/*
 * The lock validator (lockdep), with Linux's names: see docs/lockdep.md.
 *
 * Every lock carries a struct lockdep_map naming its class: the
 * initialisation site (the static struct lock_class_key each *_init()
 * macro expands to) or, for a statically defined lock, the lock's own
 * address. Each acquisition is pushed on the running task's stack of held
 * locks; each nesting "B taken while A held" is an edge A -> B between
 * classes, and a new edge that closes a cycle is a possible deadlock
 * whether or not it ever happens. The same file checks the context a lock
 * is taken in (IRQ usage, sleeping locks in atomic context) and, as the
 * RT article proposed, whether each per-CPU variable is accessed under a
 * consistent protection.
 *
 * With LOCKDEP=0 the hooks compile away; the counters below still exist
 * and read 0.
 */
#ifndef LOCKDEP_H
#define LOCKDEP_H

#include <stdbool.h>
#include <stdint.h>
#include "atomic.h"

enum lockdep_report_kind {
	LOCKDEP_RECURSIVE,          /* same class acquired twice */
	LOCKDEP_CIRCULAR,           /* cycle in the class graph, any length */
	LOCKDEP_IRQ_STATE,          /* inconsistent IRQ usage or IRQ-safe -> IRQ-unsafe order */
	LOCKDEP_BAD_UNLOCK,         /* release of a lock not held by this task */
	LOCKDEP_HELD_REINIT,        /* a held lock initialised again */
	LOCKDEP_WAIT_CONTEXT,       /* sleeping lock under raw spinlock / preempt off / IRQs off / hardirq */
	LOCKDEP_SLEEP_IN_ATOMIC,    /* might_sleep() or schedule() in atomic context */
	LOCKDEP_HELD_AT_EXIT,       /* task exited holding a lock */
	LOCKDEP_PREEMPTIBLE_CPU_ID, /* smp_processor_id() preemptible and migratable */
	LOCKDEP_PERCPU_UNPROTECTED, /* per-CPU data accessed with no protection */
	LOCKDEP_PERCPU_INCONSISTENT,/* per-CPU data with no protection common to its accesses */
	LOCKDEP_PERCPU_IRQ,         /* per-CPU data used in hardirq and in task context with IRQs on */
	LOCKDEP_RCU_SUSPICIOUS,     /* RCU against its rules: rcu_dereference() outside a reader, synchronize_rcu() inside one */
	LOCKDEP_NOT_IN_SOFTIRQ,     /* local_lock_nested_bh() (lockdep_assert_in_softirq()) outside softirq context */
	LOCKDEP_NR_REPORT_KINDS
};


/* What waiting for a lock means, as in Linux's wait-type checks:
 *   SPIN    raw_spinlock_t: spins everywhere; fine in any context;
 *   CONFIG  spinlock_t, local_lock_t: spins without PREEMPT_RT, sleeps
 *           with it, so checked as sleeping in both worlds;
 *   SLEEP   mutex, rt_mutex: always sleeps. */
enum lockdep_wait_type { LD_WAIT_SPIN = 1, LD_WAIT_CONFIG, LD_WAIT_SLEEP };

/* The address of a key names a class: one static key per init site. */
struct lock_class_key {
	char unused;
};

/* Same-class nesting levels (spin_lock_nested()). */
#define MAX_LOCKDEP_SUBCLASSES 8
#define SINGLE_DEPTH_NESTING 1

/* The caller's address: the site a report names. */
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))

/* lock_acquire() flags: what the acquisition itself turns off, so that the
 * context checks can tell it from what the caller had already turned off. */
#define LOCK_PREEMPT_OFF 1u
#define LOCK_IRQS_OFF 2u
#define LOCK_TRYLOCK 4u
/* A lock that waits for nobody, rcu_read_lock(): it is in the held-lock
 * stack, and what is taken inside it is checked against its wait type,
 * but it may itself be taken anywhere (no wait context of its own) and it
 * takes part in no dependency and no IRQ-usage check (Linux gets the same
 * from a recursive read and a wait_type_outer of LD_WAIT_FREE). */
#define LOCK_NO_DEPS 8u
/* A lock every context may hold at once, rcu_read_lock(): it keeps no
 * other holder out, so the per-CPU checker does not count it as
 * protection (Linux's lockdep knows it as a recursive read lock). */
#define LOCK_SHARED 16u

/*
 * might_sleep(): a function that may sleep says so first; called where
 * sleeping is not allowed (interrupts or preemption off, in an interrupt)
 * it is reported (sched.c). A debugging check: it compiles away without
 * LOCKDEP.
 */
#ifdef CONFIG_LOCKDEP
void __might_sleep(void);
#define might_sleep() __might_sleep()
#else
#define might_sleep() do {} while (0)
#endif

#ifdef CONFIG_LOCKDEP

unsigned long lockdep_reports(enum lockdep_report_kind kind);
unsigned long lockdep_reports_total(void);
/* Forget dependencies, IRQ usage, per-CPU locksets and counters (and turn
 * the validator back on after an overflow); classes and held locks stay. */
void lockdep_reset(void);
/* Whether the validator is checking (LOCKDEP=1 and no table overflowed
 * since the last lockdep_reset()). */
bool lockdep_enabled(void);
/* How many times a full table switched the validator off since boot
 * (never reset), and the name of the last limit that did ("MAX_..."), or
 * NULL: for the test runner, which must not trust a check made while the
 * validator was off. */
unsigned long lockdep_overflows(void);
const char *lockdep_overflow_limit(void);

struct lock_class;

struct lockdep_map {
	const struct lock_class_key *key; /* 0: a static lock, its own key */
	const char *name;
	struct lock_class *class_cache;   /* subclass 0's class, once known */
	uint8_t wait_type;                /* enum lockdep_wait_type */
	bool untracked;                   /* non-static and never initialised */
	int16_t cpu;                      /* in a per-CPU area: whose; else -1
					   * (valid once class_cache is set) */
};

#define LOCKDEP_MAP_INIT(lockname, wt) {.name = #lockname, .wait_type = (wt)}

/* One entry of a stack of held locks (struct held_locks). */
struct held_lock {
	struct lockdep_map *map;
	unsigned long ip;          /* where it was taken */
	uint64_t chain_key;        /* the classes held up to this one */
	uint16_t class_idx;
	uint8_t flags;             /* LOCK_* */
	int16_t cpu;               /* a per-CPU lock: whose copy; else -1 */
	uint32_t share;            /* what it adds to held_locks.counts */
};

#define MAX_LOCK_DEPTH 24

/*
 * A stack of held locks: each task's, for what it takes in task context,
 * and each CPU's hardirq one, for what that CPU's interrupt handlers take
 * (a context of its own, as in Linux's chain keys). Each is written only
 * by its owner: the task itself, or its CPU in hardirq context. So the
 * task's stack needs no interrupt disabling around an update (an
 * interrupt handler pushes on its CPU's stack, never on the task's), and
 * a task preempted in the middle of one finds its stack as it left it.
 * Others only read it (a report printed by a handler on top of the task,
 * GDB): an entry is written before the depth that covers it.
 */
/* The held locks of a stack by wait type, so that the wait-context check
 * asks counters instead of walking the stack: raw spinlocks; spinlock_t
 * and local_lock_t, and of those the ones whose acquisition turned
 * preemption / interrupts off. Packed in one word, so that a push adds
 * the entry's share and a pop subtracts it; no count passes
 * MAX_LOCK_DEPTH, so no byte carries into the next. */
union held_counts {
	uint32_t all;
	struct {
		uint8_t spin, config, config_preempt_off, config_irqs_off;
	};
};

struct held_locks {
	int depth;                 /* entries used in held[] */
	bool hardirq;              /* a CPU's hardirq stack */
	union held_counts counts;
	uint64_t seed;             /* the chain key of the empty stack: 0
				    * for a task, 1 for hardirq context */
	uint64_t shadow_key;       /* a task's: its lockdep_task.percpu_key
				    * plus lockdep_lock_key() of each entry,
				    * what the per-CPU checker's shadow
				    * knows of the task (lockdep_percpu.h) */
	struct held_lock held[MAX_LOCK_DEPTH];
};

/* An access's place in its context's history (lockdep_percpu_hb.c): the
 * context's slot and its own clock value at the access. */
struct hb_stamp {
	uint16_t slot;
	uint32_t clock;
};

/* A per-CPU access with no protection, not yet reported: it may only be
 * forming the address of a lock inside the variable, to take it
 * (spin_lock(&per_cpu(v, cpu).lock)). Reported at the task's next
 * validator event unless that event takes a lock inside [var, var+size)
 * of that CPU's copy (lockdep_percpu.c). */
struct percpu_access {
	const void *var;           /* template address; 0: none pending */
	unsigned long size;
	unsigned long ip;
	int16_t cpu;               /* whose copy */
	bool local;                /* the running CPU's own copy */
	bool hardirq;              /* made in hardirq context */
	bool irqs_on;              /* made in task context with IRQs on */
	bool migrate_only;         /* migration disabled, nothing else */
	bool write;                /* a store (or not known to be a load) */
	bool after_put;            /* bare, on the copy of the CPU the task
				    * last held (lockdep_percpu.c) */
	unsigned int gen;          /* lockdep_reset()s before it */
	struct hb_stamp when;      /* its place in the task's history */
};

/*
 * Happens-before (lockdep_percpu_hb.c): a vector clock per context (each task,
 * and each CPU's hardirq context). A context gets a slot the first time
 * it reaches per-CPU data; c[s] is the latest clock value of slot s's
 * context that this context has synchronized with (its own entry is its
 * own clock). Written under the HB lock only.
 */
#define HB_SLOTS 256

struct hb_clock {
	uint32_t c[HB_SLOTS];
};

struct hb_task {
	int slot;                  /* own slot + 1; 0: none yet */
	unsigned int gen;          /* the clock is from this lockdep_reset() era */
	struct hb_clock vc;
};

/* A this_cpu_read() of the task: a later write of the same variable
 * loses updates unless one protection covered both (lockdep_percpu.c).
 * Written only by the task. */
struct this_cpu_read_rec {
	const void *var;           /* template address; 0: none */
	unsigned long ip;
	int cpu;
	bool preemptible;          /* made preemptible */
	bool irqs_off;             /* made with interrupts off */
	unsigned long epoch;       /* the CPU's preemptible_epoch then */
	unsigned long irq_epoch;   /* and its irqs_on_epoch */
	int depth;                 /* held locks at the read */
	const struct lockdep_map *inner; /* the innermost of them, if any */
};

#define NR_THIS_CPU_READS 2

/* The task's last access to a copy of the CPU it held then (preemption
 * or IRQs off, or a lock inside that CPU's area): a later bare access to
 * that CPU's copy is a use after the CPU was given back. */
struct percpu_pinned {
	int cpu;                   /* the CPU + 1; 0: none */
	unsigned int gen;          /* lockdep_reset()s before it */
};

struct lockdep_task {
	struct held_locks locks;   /* what it holds in task context */
	struct percpu_access pending;
	struct percpu_pinned pinned;
	uint64_t percpu_key;       /* its clock, pending and pinned, hashed,
				    * for the per-CPU checker's shadow
				    * (locks.shadow_key has it); written
				    * only by the task */
	struct hb_clock pending_seen; /* the clock at the pending access */
	struct this_cpu_read_rec reads[NR_THIS_CPU_READS];
	struct hb_task hb;         /* happens-before clock (lockdep_percpu_hb.c) */
};

void lockdep_init_map(struct lockdep_map *map, const char *name,
		      const struct lock_class_key *key, int wait_type);
/* Refuses (and reports) re-initialising a lock the caller holds. */
bool lockdep_init_ok(struct lockdep_map *map);
/* lock_acquire() and lock_release() are inline (lockdep_fast.h): their
 * fast path, then these for everything else. */
void __lock_acquire(struct lockdep_map *map, unsigned int subclass,
		    unsigned int flags, unsigned long ip);
bool __lock_release(struct lockdep_map *map, unsigned long ip);
bool lock_is_held(const struct lockdep_map *map);
void lockdep_assert_held_failed(const struct lockdep_map *map);
/* might_lock(): the wait-context check of an acquisition at ip. */
void lock_might_acquire(struct lockdep_map *map, unsigned long ip);
/* An RT=0 softirq starts / ends on this CPU, interrupts off (softirq.c):
 * the preemption it finds off is the interrupted code's. */
void lockdep_softirq_enter(void);
void lockdep_softirq_exit(void);
/* lockdep_assert_in_softirq() failed at ip (LOCKDEP_NOT_IN_SOFTIRQ). */
void lockdep_assert_in_softirq_failed(unsigned long ip);

/* Per-CPU access checking: cpu's copy of the variable of size bytes at
 * template address var is being reached. */
void lockdep_percpu_access(const void *var, unsigned long size, int cpu,
			   unsigned long ip);
/* The same, for a load (write false) or a store seen by the compiler's
 * instrumentation (lockdep_percpu_tsan.c): two loads never race. */
void lockdep_percpu_access_rw(const void *var, unsigned long size, int cpu,
			      unsigned long ip, bool write);
/* The per-CPU areas of CPUs 0..nr_cpus-1 exist (setup_per_cpu_areas()):
 * the checker maps its shadow of each (lockdep_percpu.c), and the
 * compiler's hooks (lockdep_percpu_tsan.c) start telling it about
 * accesses inside them. */
void lockdep_percpu_areas_ready(int nr_cpus);
/* Dynamic per-CPU memory (mm/percpu.c): the size bytes at template
 * address var now hold a new variable, or none (alloc_percpu() and
 * free_percpu() call it). The checker forgets what it knew of the range:
 * each CPU's copy starts again unowned, and the variable may be reported
 * again, as a new one. */
void lockdep_percpu_forget(const void *var, unsigned long size);
/* The task sleeps or tells another it is done (schedule(), complete()):
 * report its pending unprotected access. Not from wake_up_process(),
 * which the scheduler also calls on behalf of a task it preempted. */
void lockdep_percpu_flush(void);
/* A trylock of the lock at map is attempted: whether or not it succeeds,
 * forming its address was not a per-CPU data access. */
void lockdep_trylock(struct lockdep_map *map);

/* this_cpu_* sequences (percpu.h calls these): a read made preemptible,
 * and a write operation of a task that has such a read recorded (how
 * many tasks have one: the write hook's fast test). */
extern atomic_t lockdep_this_cpu_reads;
void lockdep_this_cpu_read(const void *var);
void lockdep_this_cpu_write(const void *var);

/*
 * The orderings the kernel creates (docs/lockdep.md): everything the
 * running context did before lockdep_hb_release(obj) happens before what
 * a context does after a later lockdep_hb_acquire(obj); a wake-up orders
 * the waker before the woken task; kthread_join() orders the dead task
 * before the joiner.
 */
void lockdep_hb_release(const void *obj);
void lockdep_hb_acquire(const void *obj);
struct task_struct;
void lockdep_hb_wake(struct task_struct *p);
void lockdep_hb_join(struct task_struct *dead);

/* Interrupts are about to be turned on (irqflags.h): each lock the task
 * holds is now held with them on. */
void lockdep_hardirqs_on(unsigned long ip);

/* A report made elsewhere (sched.c's context checks): count it. */
void lockdep_count(enum lockdep_report_kind kind);
/* RCU used against its rules at file:line (what says how): Linux's
 * "suspicious RCU usage" report, made once per site (*warned, a static
 * of the site's) until the next lockdep_reset(). */
void lockdep_rcu_suspicious(unsigned int *warned, const char *file, int line,
			    const char *what);
/* The running task is exiting: it should hold no lock. */
void lockdep_task_exit(void);
void lockdep_init(void);

#define lockdep_set_class(lock, k)                                            \
	lockdep_init_map(&(lock)->dep_map, #k, (k), (lock)->dep_map.wait_type)
/* Whether the caller holds l (true when the validator cannot tell). */
#define lockdep_is_held(l) lock_is_held(&(l)->dep_map)
#define lockdep_assert_held(l)                                                \
	do {                                                                  \
		if (!lock_is_held(&(l)->dep_map))                             \
			lockdep_assert_held_failed(&(l)->dep_map);            \
	} while (0)
/* might_lock(l), Linux's: a path that would take l here, but does not
 * this time (it refuses, say), has the acquisition's wait context
 * checked all the same, so that the bug shows without the lock being
 * taken. Only that: no dependency and no IRQ usage is recorded. */
#define might_lock(l) lock_might_acquire(&(l)->dep_map, _THIS_IP_)
/* In softirq context: BHs off or serving, not in a hard interrupt, as
 * Linux's. The user includes sched/sched.h (in_softirq()). */
#define lockdep_assert_in_softirq()                                           \
	do {                                                                  \
		if (unlikely(!in_softirq() || in_hardirq()))                  \
			lockdep_assert_in_softirq_failed(_RET_IP_);           \
	} while (0)

#else /* !CONFIG_LOCKDEP */

struct lockdep_map {
};
struct lockdep_task {
};

#define LOCKDEP_MAP_INIT(lockname, wt) {}
#define might_lock(l) do {} while (0)

static inline unsigned long lockdep_reports(enum lockdep_report_kind kind)
{
	return 0;
}
static inline unsigned long lockdep_reports_total(void)
{
	return 0;
}
static inline void lockdep_reset(void)
{
}
static inline bool lockdep_enabled(void)
{
	return false;
}
static inline unsigned long lockdep_overflows(void)
{
	return 0;
}
static inline const char *lockdep_overflow_limit(void)
{
	return 0;
}

static inline void lockdep_init_map(struct lockdep_map *map, const char *name,
				    const struct lock_class_key *key,
				    int wait_type)
{
}
static inline bool lockdep_init_ok(struct lockdep_map *map)
{
	return true;
}
/* As with the validator off: it cannot tell, so yes. */
static inline bool lock_is_held(const struct lockdep_map *map)
{
	return true;
}
static inline void lock_acquire(struct lockdep_map *map, unsigned int subclass,
				unsigned int flags, unsigned long ip)
{
}
static inline bool lock_release(struct lockdep_map *map, unsigned long ip)
{
	return true;
}
static inline void lockdep_percpu_access(const void *var, unsigned long size,
					 int cpu, unsigned long ip)
{
}
static inline void lockdep_percpu_forget(const void *var, unsigned long size)
{
}
static inline void lockdep_percpu_areas_ready(int nr_cpus)
{
}
static inline void lockdep_percpu_flush(void)
{
}
static inline void lockdep_trylock(struct lockdep_map *map)
{
}
static inline void lockdep_count(enum lockdep_report_kind kind)
{
}
static inline void lockdep_task_exit(void)
{
}
static inline void lockdep_init(void)
{
}
static inline void lockdep_hardirqs_on(unsigned long ip)
{
}
static inline void lockdep_hb_release(const void *obj)
{
}
static inline void lockdep_hb_acquire(const void *obj)
{
}
struct task_struct;
static inline void lockdep_hb_wake(struct task_struct *p)
{
}
static inline void lockdep_hb_join(struct task_struct *dead)
{
}

static inline void lockdep_rcu_suspicious(unsigned int *warned,
					  const char *file, int line,
					  const char *what)
{
}

#define lockdep_set_class(lock, k) ((void)(lock), (void)(k))
#define lockdep_is_held(l) ((void)(l), 1)
#define lockdep_assert_held(l) ((void)(l))
#define lockdep_assert_in_softirq() do {} while (0)
static inline void lockdep_softirq_enter(void)
{
}
static inline void lockdep_softirq_exit(void)
{
}

#endif /* CONFIG_LOCKDEP */

#endif
