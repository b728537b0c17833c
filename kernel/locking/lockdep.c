/*
 * The lock validator, after Linux's lockdep (see docs/lockdep.md).
 *
 * Locks are grouped into classes (an init site, an explicit key, or a
 * static lock's own address). Each task keeps the stack of locks it holds;
 * taking B while A is held adds the edge A -> B to a graph of classes, and
 * an edge that closes a cycle is a possible deadlock, reported the first
 * time the order is seen, whether or not the deadlock ever happens. A
 * chain of held classes that has been validated once is remembered by its
 * hash, so the common acquisition costs a lookup. The same hooks check the
 * context: IRQ usage of each class, sleeping locks where sleeping is not
 * allowed, unlocks of locks not held, and locks held at exit.
 *
 * The tables are fixed; when one fills, the validator says so and stops
 * checking (it keeps the held-lock stacks, so unlocks stay quiet), and
 * the test runner fails the test that was running, naming the limit.
 */
#ifdef CONFIG_LOCKDEP

#include "locking/lockdep_fast.h"
#include "atomic.h"
#include "asm/spinlock.h"
#include "ksyms.h"
#include "asm/page.h"
#include "panic.h"
#include "printk.h"
#include "vsprintf.h"

#define REPORTS_PRINTED_PER_KIND 20

struct lock_class lock_classes[MAX_LOCKDEP_CLASSES];
static int nr_classes = 1; /* lock_classes[] used; under the graph lock */
/* Open addressing on (key, subclass); holds class indices, 0 = empty.
 * Lock-free readers, writers under the graph lock. */
static uint16_t class_hash[2 * MAX_LOCKDEP_CLASSES];
/* Counted by any CPU at once, reset by lockdep_reset(): atomic. */
static atomic_long_t report_count[LOCKDEP_NR_REPORT_KINDS];
static atomic_long_t reports_printed[LOCKDEP_NR_REPORT_KINDS];

static arch_spinlock_t graph_spin = ARCH_SPIN_LOCK_UNLOCKED;
static bool lockdep_started; /* held-lock stacks are kept from here on */
/* A held-lock stack overflowed: some task holds a lock its stack does not
 * show, so an unlock of a lock not found may be legitimate. For good: no
 * reset can tell which stacks are complete again. */
static bool held_incomplete;
bool lockdep_on;
unsigned int lockdep_reset_gen;
/* What each CPU's interrupt handlers hold (struct held_locks). */
static DEFINE_PER_CPU(struct held_locks, hardirq_held_locks) = {
	.hardirq = true, .seed = 1};

unsigned long lockdep_graph_lock(void)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	arch_spin_lock(&graph_spin);
	return flags;
}

void lockdep_graph_unlock(unsigned long flags)
{
	arch_spin_unlock(&graph_spin);
	raw_local_irq_restore(flags);
}

/* The limit that last switched the validator off, and how many times one
 * did: never reset (lockdep_reset() turns the validator back on), so that
 * whoever relies on it can tell it was off for a while. */
static const char *overflow_limit;
static atomic_long_t overflow_count;

void lockdep_overflow(const char *limit)
{
	/* The one caller that turns the validator off says so. */
	if (!xchg(&lockdep_on, false))
		return;
	WRITE_ONCE(overflow_limit, limit);
	/* The limit before the count: a reader that sees the count
	 * (acquire) sees which limit it was. */
	smp_mb__before_atomic();
	atomic_long_inc(&overflow_count);
	printk("lockdep: BUG: %s too low; the lock validator is off from here "
	       "on\n", limit);
}

unsigned long lockdep_overflows(void)
{
	return atomic_long_read_acquire(&overflow_count);
}

const char *lockdep_overflow_limit(void)
{
	return READ_ONCE(overflow_limit);
}

bool lockdep_enabled(void)
{
	return READ_ONCE(lockdep_on);
}

void lockdep_init(void)
{
	lockdep_started = true;
	WRITE_ONCE(lockdep_on, true);
	printk("lockdep: lock validator on: %d classes, %d dependencies, %d "
	       "chains, %d held locks per task\n", MAX_LOCKDEP_CLASSES - 1,
	       MAX_LOCKDEP_EDGES - 1, CHAINHASH_SIZE * 3 / 4, MAX_LOCK_DEPTH);
}

/* ---- counters and report helpers ---- */

/* Reading the counters is a validator event: what the reader has left
 * pending is counted first (struct percpu_access). */
unsigned long lockdep_reports(enum lockdep_report_kind kind)
{
	lockdep_percpu_flush();
	if ((unsigned int)kind >= LOCKDEP_NR_REPORT_KINDS)
		return 0;
	return atomic_long_read(&report_count[kind]);
}

unsigned long lockdep_reports_total(void)
{
	unsigned long n = 0;

	for (int k = 0; k < LOCKDEP_NR_REPORT_KINDS; k++)
		n += lockdep_reports(k);
	return n;
}

void lockdep_count(enum lockdep_report_kind kind)
{
	atomic_long_inc(&report_count[kind]);
}

/* The site's era is the reset count plus one, so that a site's static,
 * zero at first, never matches before its first report. */
void lockdep_rcu_suspicious(unsigned int *warned, const char *file, int line,
			    const char *what)
{
	unsigned int era = lockdep_reset_gen + 1;

	if (!lockdep_started || !lockdep_on || READ_ONCE(*warned) == era)
		return;
	WRITE_ONCE(*warned, era);
	if (!lockdep_report_begin(LOCKDEP_RCU_SUSPICIOUS,
				  "WARNING: suspicious RCU usage"))
		return;
	printk("%s:%d %s!\n", file, line, what);
	lockdep_report_end();
}

const char *lockdep_sym(char *buf, unsigned long size, unsigned long ip)
{
	return ksym_snprint(buf, size, ip);
}

const char *lockdep_class_name(unsigned int idx)
{
	return idx && idx < MAX_LOCKDEP_CLASSES ? lock_classes[idx].name : "?";
}

const char *lockdep_wait_name(int wait_type)
{
	static const char *const names[] = {"?", "spin", "config", "sleep"};

	return names[wait_type & 3];
}

static void print_held(const struct held_lock *h, int i, bool hardirq)
{
	char site[96];

	printk(" #%d: (%s)%s%s, at: %s\n", i,
	       h->class_idx ? lock_classes[h->class_idx].name : h->map->name,
	       h->flags & LOCK_TRYLOCK ? " trylock" : "",
	       hardirq ? " in hardirq" : "",
	       lockdep_sym(site, sizeof(site), h->ip));
}

/* The task's locks, then in hardirq context those of its CPU's handlers
 * (which run on top of it). */
static void print_held_locks(const struct task_struct *t)
{
	const struct held_locks *task = &t->lockdep.locks;
	const struct held_locks *irq = in_hardirq() ?
				       raw_cpu_ptr(&hardirq_held_locks) : 0;
	int depth = task->depth + (irq ? irq->depth : 0);

	if (!depth) {
		printk("no locks held by %s/%d.\n", t->comm, t->pid);
		return;
	}
	printk("%d lock%s held by %s/%d:\n", depth, depth > 1 ? "s" : "",
	       t->comm, t->pid);
	for (int i = 0; i < task->depth; i++)
		print_held(&task->held[i], i, false);
	for (int i = 0; irq && i < irq->depth; i++)
		print_held(&irq->held[i], task->depth + i, true);
}

bool lockdep_report_begin(enum lockdep_report_kind kind, const char *title)
{
	lockdep_count(kind);
	if (atomic_long_inc_return(&reports_printed[kind]) >
	    REPORTS_PRINTED_PER_KIND)
		return false;
	printk("\n======================================================\n"
	       "%s\n"
	       "------------------------------------------------------\n"
	       "%s/%d on CPU %d%s:\n",
	       title, current->comm, current->pid, raw_smp_processor_id(),
	       in_hardirq() ? " (in hardirq)" : "");
	return true;
}

void lockdep_report_end(void)
{
	printk("\nother info:\n");
	print_held_locks(current);
	printk("stack backtrace:\n");
	dump_stack();
}

/* ---- context ---- */

/* ---- classes ---- */

static bool static_obj(const void *p)
{
	return (const char *)p >= __text_start && (const char *)p < _end;
}

static unsigned int class_slot(const void *key, unsigned int subclass)
{
	uint64_t h = ((uintptr_t)key ^ subclass) * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 40) % (2 * MAX_LOCKDEP_CLASSES);
}

static unsigned int class_lookup(const void *key, unsigned int subclass)
{
	for (unsigned int s = class_slot(key, subclass);;
	     s = (s + 1) % (2 * MAX_LOCKDEP_CLASSES)) {
		/* Acquire: the class class_register() filled in before
		 * its release store of the index. */
		unsigned int idx = smp_load_acquire(&class_hash[s]);

		if (!idx)
			return 0;
		if (lock_classes[idx].key == key &&
		    lock_classes[idx].subclass == subclass)
			return idx;
	}
}

/* Graph lock held. */
static unsigned int class_register(const struct lockdep_map *map,
				   const void *key, unsigned int subclass)
{
	unsigned int idx = class_lookup(key, subclass), s;
	struct lock_class *c;

	if (idx)
		return idx;
	if (nr_classes >= MAX_LOCKDEP_CLASSES) {
		lockdep_overflow("MAX_LOCKDEP_CLASSES");
		return 0;
	}
	idx = nr_classes++;
	c = &lock_classes[idx];
	*c = (struct lock_class){.key = key, .name = map->name,
				 .subclass = subclass,
				 .wait_type = map->wait_type};
	for (s = class_slot(key, subclass); class_hash[s];
	     s = (s + 1) % (2 * MAX_LOCKDEP_CLASSES))
		;
	smp_store_release(&class_hash[s], idx);
	return idx;
}

/* The class of map at subclass (0 when the lock cannot be tracked), and
 * in *cpu the CPU whose per-CPU area holds the lock, or -1. */
static unsigned int get_class(struct lockdep_map *map, unsigned int subclass,
			      int *cpu)
{
	/* Acquire: map->cpu, stored before the release below. */
	struct lock_class *cached = smp_load_acquire(&map->class_cache);
	const void *key;
	unsigned int idx;
	unsigned long flags;

	if (cached && subclass == 0) {
		*cpu = map->cpu;
		return cached - lock_classes;
	}
	*cpu = percpu_addr_cpu(map);
	if (map->untracked)
		return 0;
	key = map->key;
	if (!key && *cpu >= 0)
		key = (const char *)map - __per_cpu_offset[*cpu];
	else if (!key && static_obj(map))
		key = map;
	if (!key) {
		map->untracked = true;
		printk("INFO: trying to register non-static key: lock %s at "
		       "%p was never initialised; not validated\n", map->name,
		       map);
		dump_stack();
		return 0;
	}
	idx = class_lookup(key, subclass);
	if (!idx) {
		flags = lockdep_graph_lock();
		idx = class_register(map, key, subclass);
		lockdep_graph_unlock(flags);
	}
	if (idx && subclass == 0) {
		map->cpu = *cpu;
		smp_store_release(&map->class_cache, &lock_classes[idx]);
	}
	return idx;
}

void lockdep_init_map(struct lockdep_map *map, const char *name,
		      const struct lock_class_key *key, int wait_type)
{
	map->name = name;
	map->key = key;
	map->wait_type = wait_type;
	map->untracked = false;
	map->cpu = -1;
	smp_store_release(&map->class_cache, NULL);
}

/* ---- the held-lock stacks ---- */

/* RT=0 softirqs run on the way out of an interrupt, on top of the task
 * it interrupted, maybe in the middle of an update of its stack: they
 * push on their CPU's softirq stack (at a local_bh_enable() or in
 * ksoftirqd too: a softirq handler is its own context, as in Linux's
 * chain keys). On PREEMPT_RT a softirq is part of a task. */
DEFINE_PER_CPU(struct held_locks, lockdep_softirq_held_locks) = {.seed = 2};
DEFINE_PER_CPU_UNCHECKED(int, lockdep_softirq_preempt_base);

void lockdep_softirq_enter(void)
{
	raw_cpu_write(lockdep_softirq_preempt_base,
		      preempt_count() & PREEMPT_MASK);
}

void lockdep_softirq_exit(void)
{
	raw_cpu_write(lockdep_softirq_preempt_base, 0);
}

struct held_locks *lockdep_context_locks(struct task_struct *t)
{
	if (in_hardirq())
		return raw_cpu_ptr(&hardirq_held_locks);
	if (lockdep_softirq_ctx())
		return raw_cpu_ptr(&lockdep_softirq_held_locks);
	return &t->lockdep.locks;
}

static struct held_lock *find_in(struct held_locks *s,
				 const struct lockdep_map *map)
{
	for (int i = s->depth - 1; i >= 0; i--)
		if (s->held[i].map == map)
			return &s->held[i];
	return 0;
}

/* Whether t holds map; in hardirq context, or the handlers running on
 * top of it. */
static bool held_by(struct task_struct *t, const struct lockdep_map *map)
{
	struct held_locks *ctx = lockdep_context_locks(t);

	return find_in(&t->lockdep.locks, map) ||
	       (ctx != &t->lockdep.locks && find_in(ctx, map));
}

/* When the validator cannot tell, the answer is yes (as in Linux). */
bool lock_is_held(const struct lockdep_map *map)
{
	return !lockdep_started || held_incomplete || !lockdep_on ||
	       held_by(current, map);
}

void lockdep_assert_held_failed(const struct lockdep_map *map)
{
	printk("WARNING: lockdep_assert_held(%s) failed: %s/%d does not hold "
	       "it\n", map->name, current->comm, current->pid);
	dump_stack();
}

/* local_lock_nested_bh() (or another lockdep_assert_in_softirq()) where
 * BHs are on: the lock protects nothing there on a kernel without
 * PREEMPT_RT, where it is free (local_lock.h). */
void lockdep_assert_in_softirq_failed(unsigned long ip)
{
	char a[96];

	if (!lockdep_on ||
	    !lockdep_report_begin(LOCKDEP_NOT_IN_SOFTIRQ,
				  "WARNING: lockdep_assert_in_softirq() failed"))
		return;
	printk("called at %s, %s: a softirq-only section (such as "
	       "local_lock_nested_bh()) needs BHs off\n",
	       lockdep_sym(a, sizeof(a), ip),
	       in_hardirq() ? "in hardirq context" : "not in softirq context");
	lockdep_report_end();
}

/* ---- wait context ---- */

static void report_wait_context(struct lockdep_map *map, unsigned long ip,
				const char *why, const struct held_lock *h)
{
	char a[96];

	if (!lockdep_report_begin(LOCKDEP_WAIT_CONTEXT, "BUG: Invalid wait context"))
		return;
	printk("is trying to lock:\n (%s){%s}, at: %s\n%s", map->name,
	       lockdep_wait_name(map->wait_type), lockdep_sym(a, sizeof(a), ip),
	       why);
	if (h)
		printk(" (%s){%s}, taken at %s", h->map->name,
		       lockdep_wait_name(h->map->wait_type),
		       lockdep_sym(a, sizeof(a), h->ip));
	printk("\nthis lock sleeps on PREEMPT_RT, where sleeping here is a "
	       "bug.\n");
	lockdep_report_end();
}

/* Report what lockdep_wait_context_ok() refuses, or interrupts off that
 * no lock explains, naming the held lock at fault. */
static void check_wait_context(struct task_struct *t, struct lockdep_map *map,
			       unsigned int flags, bool irqs_off,
			       unsigned long ip)
{
	const struct held_locks *s = lockdep_task_ctx_locks(t);
	int wt = map->wait_type;

	if ((wt != LD_WAIT_CONFIG && wt != LD_WAIT_SLEEP) ||
	    (flags & LOCK_NO_DEPS))
		return;
	if (in_hardirq()) {
		report_wait_context(map, ip, "in hardirq context", 0);
		return;
	}
	if (lockdep_wait_context_ok(t, wt, flags) &&
	    !(irqs_off && lockdep_task_irqs_off(t, flags, wt)))
		return;
	for (int i = 0; i < s->depth; i++) {
		const struct held_lock *h = &s->held[i];

		if (h->map->wait_type == LD_WAIT_SPIN) {
			report_wait_context(map, ip, "while holding the raw "
					    "spinlock", h);
			return;
		}
		if (wt == LD_WAIT_SLEEP &&
		    h->map->wait_type == LD_WAIT_CONFIG) {
			report_wait_context(map, ip, "while holding the "
					    "spinlock_t/local_lock/RCU "
					    "reader", h);
			return;
		}
	}
	if (lockdep_task_preempt_off(t, flags, wt))
		report_wait_context(map, ip, "with preemption disabled", 0);
	else
		report_wait_context(map, ip, "with interrupts disabled", 0);
}

/* ---- the hooks ---- */

/* might_lock() (lockdep.h): only the wait-context check. */
void lock_might_acquire(struct lockdep_map *map, unsigned long ip)
{
	unsigned long irqf;

	if (!lockdep_started || !lockdep_on || in_nmi())
		return;
	raw_local_irq_save(irqf);
	check_wait_context(current, map, 0, irqs_disabled_flags(irqf), ip);
	raw_local_irq_restore(irqf);
}

/* What lockdep_acquire_fast() declined (a class, chain or usage seen the
 * first time, a report, a trylock, hardirq context, the validator off),
 * with interrupts off as the graph lock needs. */
void __lock_acquire(struct lockdep_map *map, unsigned int subclass,
		    unsigned int flags, unsigned long ip)
{
	struct task_struct *t;
	struct held_locks *s;
	struct held_lock *h;
	unsigned long irqf;
	unsigned int idx = 0, bit;
	bool irqs_off;
	int cpu = -1;

	if (!lockdep_started || in_nmi())
		return;
	t = current;
	raw_local_irq_save(irqf);
	irqs_off = irqs_disabled_flags(irqf);
	s = lockdep_context_locks(t);
	if (lockdep_on)
		lockdep_percpu_pending_lock(t, map);
	if (lockdep_on && subclass >= MAX_LOCKDEP_SUBCLASSES)
		printk("lockdep: subclass %u of %s is too deep (at most %d); "
		       "not validated\n", subclass, map->name,
		       MAX_LOCKDEP_SUBCLASSES - 1);
	else if (lockdep_on)
		idx = get_class(map, subclass, &cpu);
	if (lockdep_on && !(flags & LOCK_TRYLOCK))
		check_wait_context(t, map, flags, irqs_off, ip);
	/* A trylock in hardirq cannot deadlock: it does not make the class
	 * IRQ-safe (as in Linux); nor can a lock that waits for nobody. */
	bit = s->hardirq ? ((flags & (LOCK_TRYLOCK | LOCK_NO_DEPS)) ? 0
							       : USED_IN_HARDIRQ) :
	      (irqs_off || (flags & LOCK_IRQS_OFF)) ? 0 : ENABLED_HARDIRQ;
	if (idx && bit && lockdep_on)
		lockdep_mark_usage(idx, bit, ip);
	/* Softirq: the same rules, one level down (Linux's SOFTIRQ state). */
	bit = s->hardirq ? 0 : lockdep_softirq_usage(t, !irqs_off &&
						     !(flags & LOCK_IRQS_OFF));
	if (bit == USED_IN_SOFTIRQ && (flags & (LOCK_TRYLOCK | LOCK_NO_DEPS)))
		bit = 0;
	if (idx && bit && lockdep_on)
		lockdep_mark_usage(idx, bit, ip);
	if (s->depth >= MAX_LOCK_DEPTH) {
		held_incomplete = true;
		lockdep_overflow("MAX_LOCK_DEPTH");
		raw_local_irq_restore(irqf);
		return;
	}
	/* Filled in, validated against the locks below it, then pushed: a
	 * report lists the locks held before this one. */
	h = &s->held[s->depth];
	*h = (struct held_lock){.map = map, .ip = ip, .class_idx = idx,
				.flags = flags, .cpu = cpu,
				.share = lockdep_share(map->wait_type, flags)};
	h->chain_key = lockdep_chain_key_of(s, s->depth);
	if (idx && !(flags & LOCK_TRYLOCK) && lockdep_on)
		lockdep_validate_chain(s, h);
	lockdep_push_held(s);
	raw_local_irq_restore(irqf);
}

/* As Linux's mark_held_locks(): each lock the task took is held with
 * interrupts on from here, which lockdep_mark_usage() checks against its
 * use in hardirq (an inconsistent-state report when it was so used). */
void lockdep_hardirqs_on(unsigned long ip)
{
	const struct held_locks *s;

	raw_cpu_inc(irqs_on_epoch);
	if (preempt_count() == 0)
		raw_cpu_inc(preemptible_epoch); /* preemptible from here */
	if (!lockdep_on || in_hardirq())
		return;
	s = lockdep_context_locks(current);
	for (int i = 0; i < s->depth; i++) {
		unsigned int soft = lockdep_softirq_usage(current, true);

		if (!s->held[i].class_idx)
			continue;
		lockdep_mark_usage(s->held[i].class_idx, ENABLED_HARDIRQ, ip);
		if (soft == ENABLED_SOFTIRQ)
			lockdep_mark_usage(s->held[i].class_idx, soft, ip);
	}
}

static void report_bad_unlock(struct lockdep_map *map, unsigned long ip)
{
	char a[96];

	if (!lockdep_report_begin(LOCKDEP_BAD_UNLOCK,
			  "WARNING: bad unlock balance detected!"))
		return;
	printk("is trying to release lock (%s) at:\n%s\n"
	       "but it does not hold it (never taken, already released, or "
	       "held by another task);\nthe lock is left as it is.\n",
	       map->name, lockdep_sym(a, sizeof(a), ip));
	lockdep_report_end();
}

#ifdef CONFIG_LOCKDEP_TSAN
/* The fast path for code the compiler's hooks see (lockdep_fast.h):
 * this file is not instrumented, so here it is inline and unhooked. */
void lock_acquire_unhooked(struct lockdep_map *map, unsigned int subclass,
			   unsigned int flags, unsigned long ip)
{
	lock_acquire(map, subclass, flags, ip);
}

bool lock_release_unhooked(struct lockdep_map *map, unsigned long ip)
{
	return lock_release(map, ip);
}
#endif

/* What lockdep_release_fast() declined: out of order, in hardirq
 * context, a per-CPU access pending, or a lock not held. */
bool __lock_release(struct lockdep_map *map, unsigned long ip)
{
	struct task_struct *t;
	struct held_locks *s;
	struct held_lock *h;
	unsigned long irqf;

	if (!lockdep_started || in_nmi())
		return true;
	t = current;
	raw_local_irq_save(irqf);
	s = lockdep_context_locks(t);
	if (lockdep_on)
		lockdep_percpu_pending_flush(t);
	h = find_in(s, map);
	if (!h) {
		bool refuse = lockdep_on && !held_incomplete;

		if (refuse)
			report_bad_unlock(map, ip);
		raw_local_irq_restore(irqf);
		return !refuse;
	}
	lockdep_pop_held(s, h - s->held);
	raw_local_irq_restore(irqf);
	return true;
}

bool lockdep_init_ok(struct lockdep_map *map)
{
	char a[96];

	if (!lockdep_started || !held_by(current, map))
		return true;
	if (lockdep_report_begin(LOCKDEP_HELD_REINIT,
			 "WARNING: held lock re-initialized!")) {
		printk("is initialising lock (%s) at %s\nwhile holding it; "
		       "the lock is left as it is.\n", map->name,
		       lockdep_sym(a, sizeof(a), _RET_IP_));
		lockdep_report_end();
	}
	return false;
}

/* Preemption and interrupts are off exactly as far as t's held locks
 * turned them off. */
static bool held_explain_atomic(const struct task_struct *t)
{
	int count = preempt_count() & PREEMPT_MASK;
	bool irqs_off_by_lock = false;

	for (int i = 0; i < t->lockdep.locks.depth; i++) {
		if (t->lockdep.locks.held[i].flags & LOCK_PREEMPT_OFF)
			count--;
		if (t->lockdep.locks.held[i].flags & LOCK_IRQS_OFF)
			irqs_off_by_lock = true;
	}
	return count == 0 && (!irqs_disabled() || irqs_off_by_lock) &&
	       !in_hardirq();
}

void lockdep_task_exit(void)
{
	struct task_struct *t = current;

	if (!lockdep_started)
		return;
	lockdep_percpu_flush();
	lockdep_percpu_task_exit(t);
	lockdep_hb_exit(t);
	if (!t->lockdep.locks.depth)
		return;
	if (lockdep_report_begin(LOCKDEP_HELD_AT_EXIT, "WARNING: lock held at task "
			 "exit!")) {
		printk("%s/%d is exiting with locks still held; they stay "
		       "locked.\n", t->comm, t->pid);
		lockdep_report_end();
	}
	/* When the locks left preemption or interrupts off, the schedule()
	 * that ends the task need not report that again; anything more is
	 * a leak of its own. */
	if (held_explain_atomic(t))
		t->sleep_report_frame = SLEEP_REPORTED_ALL;
	t->lockdep.locks = (struct held_locks){.depth = 0}; /* seed 0 */
}

void lockdep_reset(void)
{
	unsigned long flags = lockdep_graph_lock();

	lockdep_graph_reset(nr_classes);
	lockdep_percpu_reset();
	lockdep_hb_reset();
	lockdep_reset_gen++; /* held-back accesses before it are forgotten */
	for (int k = 0; k < LOCKDEP_NR_REPORT_KINDS; k++) {
		atomic_long_set(&report_count[k], 0);
		atomic_long_set(&reports_printed[k], 0);
	}
	WRITE_ONCE(lockdep_on, lockdep_started);
	lockdep_graph_unlock(flags);
}

#endif /* CONFIG_LOCKDEP */
