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
 * checking (it keeps the held-lock stacks, so unlocks stay quiet).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep.h"
#include "lockdep_internal.h"
#include "arch_spinlock.h"
#include "ksyms.h"
#include "memlayout.h"
#include "panic.h"
#include "printk.h"
#include "vsprintf.h"

/* Usage bits of a class: taken in hardirq context; taken with IRQs on. */
#define USED_IN_HARDIRQ 1u
#define ENABLED_HARDIRQ 2u

#define REPORTS_PRINTED_PER_KIND 20

/* Fields are written under the graph lock; key, subclass, name and
 * wait_type are set before the class is published in class_hash, usage
 * may be read without the lock (a bit once set stays set until reset). */
struct lock_class {
	const void *key;        /* explicit key, or a static lock's address
				 * (the template's, for a per-CPU lock) */
	const char *name;
	uint8_t subclass;
	uint8_t wait_type;
	uint8_t usage;          /* USED_IN_HARDIRQ | ENABLED_HARDIRQ */
	unsigned long usage_ip[2]; /* where each usage was first seen */
	int fwd, bwd;           /* first edge out of / into it; 0: none */
	uint32_t bfs_gen;       /* reached by the search of this generation */
	int bfs_parent;         /* the edge that search came by */
};

/* from -> to: `to` was taken while `from` was held. */
struct lock_edge {
	uint16_t from, to;
	unsigned long from_ip, to_ip; /* the two acquisitions, first time */
	int next_fwd, next_bwd;       /* next edge out of from / into to */
};

static struct lock_class classes[MAX_LOCKDEP_CLASSES];
static int nr_classes = 1;
/* Open addressing on (key, subclass); holds class indices, 0 = empty.
 * Lock-free readers, writers under the graph lock. */
static uint16_t class_hash[2 * MAX_LOCKDEP_CLASSES];
static struct lock_edge edges[MAX_LOCKDEP_EDGES];
static int nr_edges = 1;
/* Chain keys of validated held-lock chains; 0 = empty. Lock-free
 * readers, writers under the graph lock. */
static uint64_t chain_hash[CHAINHASH_SIZE];
static int nr_chains;
static int bfs_queue[MAX_LOCKDEP_CLASSES];
static uint32_t bfs_gen;

static unsigned long report_count[LOCKDEP_NR_REPORT_KINDS];
static unsigned long reports_printed[LOCKDEP_NR_REPORT_KINDS];

static arch_spinlock_t graph_spin = ARCH_SPIN_LOCK_UNLOCKED;
static bool lockdep_started; /* held-lock stacks are kept from here on */
bool lockdep_on;

unsigned long graph_lock(void)
{
	unsigned long flags = arch_local_irq_save();

	arch_spin_lock(&graph_spin);
	return flags;
}

void graph_unlock(unsigned long flags)
{
	arch_spin_unlock(&graph_spin);
	local_irq_restore(flags);
}

void lockdep_overflow(const char *what)
{
	if (__atomic_exchange_n(&lockdep_on, false, __ATOMIC_RELAXED))
		printk("lockdep: %s; the lock validator is off from here on\n",
		       what);
}

bool lockdep_enabled(void)
{
	return __atomic_load_n(&lockdep_on, __ATOMIC_RELAXED);
}

void lockdep_init(void)
{
	lockdep_started = true;
	lockdep_on = true;
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
	return __atomic_load_n(&report_count[kind], __ATOMIC_RELAXED);
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
	__atomic_fetch_add(&report_count[kind], 1, __ATOMIC_RELAXED);
}

const char *lockdep_sym(char *buf, unsigned long size, unsigned long ip)
{
	uintptr_t off, len;
	const char *name = ksym_lookup(ip, &off, &len);

	if (name)
		snprintf(buf, size, "%s+0x%lx/0x%lx", name, (unsigned long)off,
			 (unsigned long)len);
	else
		snprintf(buf, size, "%#lx", ip);
	return buf;
}

const char *lockdep_class_name(unsigned int idx)
{
	return idx && idx < MAX_LOCKDEP_CLASSES ? classes[idx].name : "?";
}

static const char *const wait_names[] = {"?", "spin", "config", "sleep"};

static void print_class(const char *prefix, unsigned int idx)
{
	const struct lock_class *c = &classes[idx];

	printk("%s(%s){%s%s}/%u, wait type %s\n", prefix, c->name,
	       c->usage & USED_IN_HARDIRQ ? "IN-HARDIRQ " : "",
	       c->usage & ENABLED_HARDIRQ ? "HARDIRQ-ON" : "",
	       c->subclass, wait_names[c->wait_type & 3]);
}

static void print_held(const struct held_lock *h, int i)
{
	char site[96];

	printk(" #%d: (%s)%s%s, at: %s\n", i,
	       h->class_idx ? classes[h->class_idx].name : h->map->name,
	       h->flags & LOCK_TRYLOCK ? " trylock" : "",
	       h->hardirq ? " in hardirq" : "",
	       lockdep_sym(site, sizeof(site), h->ip));
}

static void print_held_locks(const struct task *t)
{
	int depth = t->lockdep.depth;

	if (!depth) {
		printk("no locks held by %s/%d.\n", t->name, t->id);
		return;
	}
	printk("%d lock%s held by %s/%d:\n", depth, depth > 1 ? "s" : "",
	       t->name, t->id);
	for (int i = 0; i < depth; i++)
		print_held(&t->lockdep.held[i], i);
}

bool report_begin(enum lockdep_report_kind kind, const char *title)
{
	lockdep_count(kind);
	if (__atomic_fetch_add(&reports_printed[kind], 1, __ATOMIC_RELAXED) >=
	    REPORTS_PRINTED_PER_KIND)
		return false;
	printk("\n======================================================\n"
	       "%s\n"
	       "------------------------------------------------------\n"
	       "%s/%d on CPU %d%s:\n",
	       title, current->name, current->id, raw_smp_processor_id(),
	       in_irq() ? " (in hardirq)" : "");
	return true;
}

void report_end(void)
{
	printk("\nother info:\n");
	print_held_locks(current);
	printk("stack backtrace:\n");
	dump_stack();
}

/* ---- context ---- */

static int held_wait_type(const struct held_lock *h)
{
	return h->map->wait_type;
}

bool preempt_off_for_real(const struct task *t, unsigned int flags,
			  int wait_type)
{
	int count = preempt_count() & PREEMPT_MASK;

	if (in_irq())
		return true;
	if ((flags & LOCK_PREEMPT_OFF) && wait_type == LD_WAIT_CONFIG)
		count--;
	for (int i = 0; i < t->lockdep.depth; i++) {
		const struct held_lock *h = &t->lockdep.held[i];

		if ((h->flags & LOCK_PREEMPT_OFF) &&
		    held_wait_type(h) == LD_WAIT_CONFIG)
			count--;
	}
	return count > 0;
}

bool irqs_off_for_real(const struct task *t, unsigned int flags,
		       int wait_type)
{
	if (in_irq())
		return true;
	if ((flags & LOCK_IRQS_OFF) && wait_type == LD_WAIT_CONFIG)
		return false;
	for (int i = 0; i < t->lockdep.depth; i++) {
		const struct held_lock *h = &t->lockdep.held[i];

		if ((h->flags & LOCK_IRQS_OFF) &&
		    held_wait_type(h) == LD_WAIT_CONFIG)
			return false;
	}
	return true;
}

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
		unsigned int idx = __atomic_load_n(&class_hash[s],
						   __ATOMIC_ACQUIRE);

		if (!idx)
			return 0;
		if (classes[idx].key == key &&
		    classes[idx].subclass == subclass)
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
		lockdep_overflow("BUG: MAX_LOCKDEP_CLASSES too low");
		return 0;
	}
	idx = nr_classes++;
	c = &classes[idx];
	*c = (struct lock_class){.key = key, .name = map->name,
				 .subclass = subclass,
				 .wait_type = map->wait_type};
	for (s = class_slot(key, subclass); class_hash[s];
	     s = (s + 1) % (2 * MAX_LOCKDEP_CLASSES))
		;
	__atomic_store_n(&class_hash[s], idx, __ATOMIC_RELEASE);
	return idx;
}

/* The class of map at subclass (0 when the lock cannot be tracked), and
 * in *cpu the CPU whose per-CPU area holds the lock, or -1. */
static unsigned int get_class(struct lockdep_map *map, unsigned int subclass,
			      int *cpu)
{
	struct lock_class *cached = __atomic_load_n(&map->class_cache,
						    __ATOMIC_ACQUIRE);
	const void *key;
	unsigned int idx;
	unsigned long flags;

	if (cached && subclass == 0) {
		*cpu = map->cpu;
		return cached - classes;
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
		flags = graph_lock();
		idx = class_register(map, key, subclass);
		graph_unlock(flags);
	}
	if (idx && subclass == 0) {
		map->cpu = *cpu;
		__atomic_store_n(&map->class_cache, &classes[idx],
				 __ATOMIC_RELEASE);
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
	__atomic_store_n(&map->class_cache, 0, __ATOMIC_RELEASE);
}

/* ---- the held-lock stack ---- */

static struct held_lock *find_held(struct task *t,
				   const struct lockdep_map *map)
{
	for (int i = t->lockdep.depth - 1; i >= 0; i--)
		if (t->lockdep.held[i].map == map)
			return &t->lockdep.held[i];
	return 0;
}

bool lock_is_held(const struct lockdep_map *map)
{
	return !lockdep_started || find_held(current, map);
}

void lockdep_assert_held_failed(const struct lockdep_map *map)
{
	printk("WARNING: lockdep_assert_held(%s) failed: %s/%d does not hold "
	       "it\n", map->name, current->name, current->id);
	dump_stack();
}

static uint64_t chain_mix(uint64_t key, unsigned int class_idx)
{
	key ^= class_idx + 0x9e3779b97f4a7c15ull;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return key ? key : 1;
}

/* The chain key of entry i: the classes held before it in the same
 * context (task or hardirq), then its own. */
static uint64_t chain_key_of(const struct task *t, int i)
{
	const struct held_lock *h = &t->lockdep.held[i];
	uint64_t prev = h->hardirq ? 2 : 1;

	for (int j = i - 1; j >= 0; j--) {
		const struct held_lock *p = &t->lockdep.held[j];

		if (p->hardirq != h->hardirq)
			break;
		if (p->class_idx) {
			prev = p->chain_key;
			break;
		}
	}
	return h->class_idx ? chain_mix(prev, h->class_idx) : prev;
}

static bool chain_cached(uint64_t key)
{
	for (unsigned int s = key % CHAINHASH_SIZE;;
	     s = (s + 1) % CHAINHASH_SIZE) {
		uint64_t k = __atomic_load_n(&chain_hash[s], __ATOMIC_RELAXED);

		if (k == key)
			return true;
		if (!k)
			return false;
	}
}

/* Graph lock held. */
static void chain_add(uint64_t key)
{
	unsigned int s;

	if (nr_chains >= CHAINHASH_SIZE * 3 / 4) {
		lockdep_overflow("BUG: MAX_LOCKDEP_CHAINS too low");
		return;
	}
	for (s = key % CHAINHASH_SIZE; chain_hash[s];
	     s = (s + 1) % CHAINHASH_SIZE)
		;
	__atomic_store_n(&chain_hash[s], key, __ATOMIC_RELAXED);
	nr_chains++;
}

/* ---- the dependency graph ---- */

/* Breadth-first from start, along edges forward (to what was taken
 * later) or backward; returns the first class (start included) for which
 * match() holds, or 0. bfs_parent then leads back to start. */
static unsigned int bfs(unsigned int start, bool forward,
			bool (*match)(unsigned int idx, unsigned int arg),
			unsigned int arg)
{
	int head = 0, tail = 0;

	bfs_gen++;
	classes[start].bfs_gen = bfs_gen;
	classes[start].bfs_parent = 0;
	bfs_queue[tail++] = start;
	while (head < tail) {
		unsigned int c = bfs_queue[head++];

		if (match(c, arg))
			return c;
		for (int e = forward ? classes[c].fwd : classes[c].bwd; e;
		     e = forward ? edges[e].next_fwd : edges[e].next_bwd) {
			unsigned int n = forward ? edges[e].to : edges[e].from;

			if (classes[n].bfs_gen == bfs_gen)
				continue;
			classes[n].bfs_gen = bfs_gen;
			classes[n].bfs_parent = e;
			bfs_queue[tail++] = n;
		}
	}
	return 0;
}

static bool is_class(unsigned int idx, unsigned int target)
{
	return idx == target;
}

static bool has_usage(unsigned int idx, unsigned int bit)
{
	return classes[idx].usage & bit;
}

/* The edges of the path bfs() found from start to end, printed from the
 * end back (as lockdep does: "in reverse order"); returns their number. */
static int print_path(unsigned int start, unsigned int end, bool forward)
{
	char a[96], b[96];
	int n = 0;

	for (unsigned int c = end; c != start; n++) {
		const struct lock_edge *e = &edges[classes[c].bfs_parent];

		printk("-> #%d (%s) taken at %s\n       while holding (%s) "
		       "taken at %s\n", n, classes[e->to].name,
		       lockdep_sym(a, sizeof(a), e->to_ip),
		       classes[e->from].name,
		       lockdep_sym(b, sizeof(b), e->from_ip));
		c = forward ? e->from : e->to;
	}
	return n;
}

/* "is trying to acquire next ... but is already holding (what) prev". */
static void print_acquire(const struct held_lock *next, const char *what,
			  const struct held_lock *prev)
{
	char a[96], b[96];

	printk("is trying to acquire lock:\n (%s), at: %s\n"
	       "but is already holding %s:\n (%s), at: %s\n",
	       classes[next->class_idx].name,
	       lockdep_sym(a, sizeof(a), next->ip), what,
	       classes[prev->class_idx].name,
	       lockdep_sym(b, sizeof(b), prev->ip));
}

static void report_circular(const struct held_lock *prev,
			    const struct held_lock *next, unsigned int found)
{
	int n;

	if (!report_begin(LOCKDEP_CIRCULAR,
			  "WARNING: possible circular locking dependency "
			  "detected"))
		return;
	print_acquire(next, "lock", prev);
	printk("which lock already depends on the new lock.\n\n"
	       "the existing dependency chain (in reverse order) is:\n");
	n = print_path(next->class_idx, found, true);
	printk("and now (%s) -> (%s) closes a cycle of %d locks\n",
	       classes[prev->class_idx].name, classes[next->class_idx].name,
	       n + 1);
	report_end();
}

static void report_irq_order(const struct held_lock *prev,
			     const struct held_lock *next, unsigned int safe,
			     unsigned int unsafe)
{
	char a[96];

	if (!report_begin(LOCKDEP_IRQ_STATE,
			  "WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order "
			  "detected"))
		return;
	print_acquire(next, "lock", prev);
	print_class("the HARDIRQ-safe lock: ", safe);
	printk("  taken in hardirq at %s\n",
	       lockdep_sym(a, sizeof(a), classes[safe].usage_ip[0]));
	print_class("would come before the HARDIRQ-unsafe lock: ", unsafe);
	printk("  taken with IRQs on at %s\n"
	       "an interrupt taking the first while the second is held "
	       "with IRQs on can deadlock.\n",
	       lockdep_sym(a, sizeof(a), classes[unsafe].usage_ip[1]));
	report_end();
}

/* A new edge prev -> next: refused (and reported) if it closes a cycle
 * or puts an IRQ-safe class before an IRQ-unsafe one. Graph lock held. */
static bool add_edge(const struct held_lock *prev, const struct held_lock *next)
{
	unsigned int from = prev->class_idx, to = next->class_idx, found;
	unsigned int safe, unsafe;
	struct lock_edge *e;

	for (int i = classes[from].fwd; i; i = edges[i].next_fwd)
		if (edges[i].to == to)
			return true;
	found = bfs(to, true, is_class, from);
	if (found) {
		report_circular(prev, next, found);
		return false;
	}
	safe = bfs(from, false, has_usage, USED_IN_HARDIRQ);
	unsafe = safe ? bfs(to, true, has_usage, ENABLED_HARDIRQ) : 0;
	if (unsafe) {
		report_irq_order(prev, next, safe, unsafe);
		return false;
	}
	if (nr_edges >= MAX_LOCKDEP_EDGES) {
		lockdep_overflow("BUG: MAX_LOCKDEP_ENTRIES too low");
		return false;
	}
	e = &edges[nr_edges];
	*e = (struct lock_edge){.from = from, .to = to, .from_ip = prev->ip,
				.to_ip = next->ip,
				.next_fwd = classes[from].fwd,
				.next_bwd = classes[to].bwd};
	classes[from].fwd = classes[to].bwd = nr_edges++;
	return true;
}

static void report_recursive(const struct held_lock *prev,
			     const struct held_lock *next)
{
	if (!report_begin(LOCKDEP_RECURSIVE,
			  "WARNING: possible recursive locking detected"))
		return;
	print_acquire(next, "a lock of the same class", prev);
	printk("May be due to missing lock nesting notation "
	       "(spin_lock_nested()).\n");
	report_end();
}

/* next, about to be pushed, against what is held in its context: the
 * edge from the nearest held lock (and from the ones below a trylock,
 * which added no edge of its own). Graph lock held. */
static void check_chain(struct task *t, const struct held_lock *next)
{
	int top = t->lockdep.depth;

	for (int i = 0; i < top; i++) {
		const struct held_lock *h = &t->lockdep.held[i];

		if (h->hardirq == next->hardirq &&
		    h->class_idx == next->class_idx) {
			report_recursive(h, next);
			return;
		}
	}
	for (int i = top - 1; i >= 0; i--) {
		const struct held_lock *h = &t->lockdep.held[i];

		if (h->hardirq != next->hardirq)
			break;
		if (!h->class_idx)
			continue;
		if (!add_edge(h, next) || !(h->flags & LOCK_TRYLOCK))
			break;
	}
}

static void validate_chain(struct task *t, const struct held_lock *next)
{
	uint64_t key = next->chain_key;
	unsigned long flags;

	if (chain_cached(key))
		return;
	flags = graph_lock();
	if (lockdep_on && !chain_cached(key)) {
		check_chain(t, next);
		chain_add(key);
	}
	graph_unlock(flags);
}

/* ---- IRQ usage ---- */

static void report_inconsistent(unsigned int idx, unsigned int new_bit,
				unsigned long ip)
{
	char a[96];
	const struct lock_class *c = &classes[idx];

	if (!report_begin(LOCKDEP_IRQ_STATE,
			  "WARNING: inconsistent lock state"))
		return;
	printk("inconsistent {%s} -> {%s} usage.\n",
	       new_bit == USED_IN_HARDIRQ ? "HARDIRQ-ON-W" : "IN-HARDIRQ-W",
	       new_bit == USED_IN_HARDIRQ ? "IN-HARDIRQ-W" : "HARDIRQ-ON-W");
	print_class("lock: ", idx);
	printk("  taken in hardirq at %s\n",
	       lockdep_sym(a, sizeof(a), new_bit == USED_IN_HARDIRQ ?
						 ip : c->usage_ip[0]));
	printk("  taken with IRQs on at %s\n",
	       lockdep_sym(a, sizeof(a), new_bit == ENABLED_HARDIRQ ?
						 ip : c->usage_ip[1]));
	printk("an interrupt taking it on a CPU that holds it with IRQs on "
	       "deadlocks that CPU.\n");
	report_end();
}

static void report_irq_inversion(unsigned int idx, unsigned int other,
				 bool forward)
{
	char a[96];

	if (!report_begin(LOCKDEP_IRQ_STATE,
			  "WARNING: possible irq lock inversion dependency "
			  "detected"))
		return;
	print_class(forward ? "HARDIRQ-safe lock: " : "HARDIRQ-unsafe lock: ",
		    idx);
	print_class(forward ? "is held before the HARDIRQ-unsafe lock: " :
			      "is taken inside the HARDIRQ-safe lock: ",
		    other);
	printk("  safe: taken in hardirq at %s\n",
	       lockdep_sym(a, sizeof(a),
			   classes[forward ? idx : other].usage_ip[0]));
	printk("  unsafe: taken with IRQs on at %s\n",
	       lockdep_sym(a, sizeof(a),
			   classes[forward ? other : idx].usage_ip[1]));
	printk("the dependency:\n");
	print_path(idx, other, forward);
	report_end();
}

/* A class shows a usage for the first time: check it against its other
 * usage and against the classes ordered before or after it. */
static void mark_usage(unsigned int idx, unsigned int bit, unsigned long ip)
{
	struct lock_class *c = &classes[idx];
	unsigned int other;
	unsigned long flags;

	if (__atomic_load_n(&c->usage, __ATOMIC_RELAXED) & bit)
		return;
	flags = graph_lock();
	if (lockdep_on && !(c->usage & bit)) {
		__atomic_or_fetch(&c->usage, bit, __ATOMIC_RELAXED);
		c->usage_ip[bit - 1] = ip;
		if (c->usage & (bit ^ (USED_IN_HARDIRQ | ENABLED_HARDIRQ)))
			report_inconsistent(idx, bit, ip);
		else if (bit == USED_IN_HARDIRQ &&
			 (other = bfs(idx, true, has_usage, ENABLED_HARDIRQ)))
			report_irq_inversion(idx, other, true);
		else if (bit == ENABLED_HARDIRQ &&
			 (other = bfs(idx, false, has_usage, USED_IN_HARDIRQ)))
			report_irq_inversion(idx, other, false);
	}
	graph_unlock(flags);
}

/* ---- wait context ---- */

static void report_wait_context(struct lockdep_map *map, unsigned long ip,
				const char *why, const struct held_lock *h)
{
	char a[96];

	if (!report_begin(LOCKDEP_WAIT_CONTEXT, "BUG: Invalid wait context"))
		return;
	printk("is trying to lock:\n (%s){%s}, at: %s\n%s", map->name,
	       wait_names[map->wait_type & 3], lockdep_sym(a, sizeof(a), ip),
	       why);
	if (h)
		printk(" (%s){%s}, taken at %s", h->map->name,
		       wait_names[held_wait_type(h) & 3],
		       lockdep_sym(a, sizeof(a), h->ip));
	printk("\nthis lock sleeps on PREEMPT_RT, where sleeping here is a "
	       "bug.\n");
	report_end();
}

/* A lock that sleeps on PREEMPT_RT is taken: where may it not be? */
static void check_wait_context(struct task *t, struct lockdep_map *map,
			       unsigned int flags, bool irqs_off,
			       unsigned long ip)
{
	int wt = map->wait_type;

	if (wt != LD_WAIT_CONFIG && wt != LD_WAIT_SLEEP)
		return;
	if (in_irq()) {
		report_wait_context(map, ip, "in hardirq context", 0);
		return;
	}
	for (int i = 0; i < t->lockdep.depth; i++) {
		const struct held_lock *h = &t->lockdep.held[i];
		int hw = held_wait_type(h);

		if (hw == LD_WAIT_SPIN) {
			report_wait_context(map, ip, "while holding the raw "
					    "spinlock", h);
			return;
		}
		if (wt == LD_WAIT_SLEEP && hw == LD_WAIT_CONFIG) {
			report_wait_context(map, ip, "while holding the "
					    "spinlock_t/local_lock", h);
			return;
		}
	}
	if (preempt_off_for_real(t, flags, wt))
		report_wait_context(map, ip, "with preemption disabled", 0);
	else if (irqs_off && irqs_off_for_real(t, flags, wt))
		report_wait_context(map, ip, "with interrupts disabled", 0);
}

/* ---- the hooks ---- */

void lock_acquire(struct lockdep_map *map, unsigned int subclass,
		  unsigned int flags, unsigned long ip)
{
	struct task *t;
	struct held_lock *h;
	unsigned long irqf;
	unsigned int idx = 0, bit;
	bool irqs_off;
	int cpu = -1;

	if (!ip)
		ip = _RET_IP_;
	if (!lockdep_started || in_nmi())
		return;
	irqf = arch_local_irq_save();
	irqs_off = irqs_disabled_flags(irqf);
	t = current;
	if (lockdep_on)
		percpu_pending_lock(t, map);
	if (lockdep_on && subclass < MAX_LOCKDEP_SUBCLASSES)
		idx = get_class(map, subclass, &cpu);
	if (lockdep_on && !(flags & LOCK_TRYLOCK))
		check_wait_context(t, map, flags, irqs_off, ip);
	/* A trylock in hardirq cannot deadlock: it does not make the class
	 * IRQ-safe (as in Linux). */
	bit = in_irq() ? ((flags & LOCK_TRYLOCK) ? 0 : USED_IN_HARDIRQ) :
	      (irqs_off || (flags & LOCK_IRQS_OFF)) ? 0 : ENABLED_HARDIRQ;
	if (idx && bit && lockdep_on)
		mark_usage(idx, bit, ip);
	if (t->lockdep.depth >= MAX_LOCK_DEPTH) {
		lockdep_overflow("BUG: MAX_LOCK_DEPTH too low");
		local_irq_restore(irqf);
		return;
	}
	/* Filled in, validated against the locks below it, then pushed: a
	 * report lists the locks held before this one. */
	h = &t->lockdep.held[t->lockdep.depth];
	*h = (struct held_lock){.map = map, .ip = ip, .class_idx = idx,
				.flags = flags, .hardirq = in_irq(),
				.cpu = cpu};
	h->chain_key = chain_key_of(t, t->lockdep.depth);
	if (idx && !(flags & LOCK_TRYLOCK) && lockdep_on)
		validate_chain(t, h);
	t->lockdep.depth++;
	local_irq_restore(irqf);
}

static void report_bad_unlock(struct lockdep_map *map, unsigned long ip)
{
	char a[96];

	if (!report_begin(LOCKDEP_BAD_UNLOCK,
			  "WARNING: bad unlock balance detected!"))
		return;
	printk("is trying to release lock (%s) at:\n%s\n"
	       "but it does not hold it (never taken, already released, or "
	       "held by another task);\nthe lock is left as it is.\n",
	       map->name, lockdep_sym(a, sizeof(a), ip));
	report_end();
}

bool lock_release(struct lockdep_map *map, unsigned long ip)
{
	struct task *t;
	struct held_lock *h;
	unsigned long irqf;
	int i;

	if (!ip)
		ip = _RET_IP_;
	if (!lockdep_started || in_nmi())
		return true;
	irqf = arch_local_irq_save();
	t = current;
	if (lockdep_on)
		percpu_pending_flush(t);
	h = find_held(t, map);
	if (!h) {
		bool on = lockdep_on;

		if (on)
			report_bad_unlock(map, ip);
		local_irq_restore(irqf);
		return !on;
	}
	/* Out of order is fine: close the gap, and re-key what was above. */
	for (i = h - t->lockdep.held; i < t->lockdep.depth - 1; i++) {
		t->lockdep.held[i] = t->lockdep.held[i + 1];
		t->lockdep.held[i].chain_key = chain_key_of(t, i);
	}
	t->lockdep.depth--;
	local_irq_restore(irqf);
	return true;
}

bool lockdep_init_ok(struct lockdep_map *map)
{
	char a[96];

	if (!lockdep_started || !find_held(current, map))
		return true;
	if (report_begin(LOCKDEP_HELD_REINIT,
			 "WARNING: held lock re-initialized!")) {
		printk("is initialising lock (%s) at %s\nwhile holding it; "
		       "the lock is left as it is.\n", map->name,
		       lockdep_sym(a, sizeof(a), _RET_IP_));
		report_end();
	}
	return false;
}

void lockdep_task_exit(void)
{
	struct task *t = current;

	if (!lockdep_started)
		return;
	lockdep_percpu_flush();
	if (!t->lockdep.depth)
		return;
	if (report_begin(LOCKDEP_HELD_AT_EXIT, "WARNING: lock held at task "
			 "exit!")) {
		printk("%s/%d is exiting with locks still held; they stay "
		       "locked.\n", t->name, t->id);
		report_end();
	}
	/* A spinning lock left preemption or interrupts off: the
	 * schedule() that ends the task need not report that again. */
	t->sleep_reported = !preemptible();
	t->lockdep.depth = 0;
}

void lockdep_reset(void)
{
	unsigned long flags = graph_lock();

	for (int i = 1; i < nr_classes; i++) {
		classes[i].usage = 0;
		classes[i].fwd = classes[i].bwd = 0;
	}
	nr_edges = 1;
	for (int s = 0; s < CHAINHASH_SIZE; s++)
		__atomic_store_n(&chain_hash[s], 0, __ATOMIC_RELAXED);
	nr_chains = 0;
	lockdep_percpu_reset();
	current->lockdep.pending.var = 0; /* made before the reset */
	for (int k = 0; k < LOCKDEP_NR_REPORT_KINDS; k++) {
		__atomic_store_n(&report_count[k], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&reports_printed[k], 0, __ATOMIC_RELAXED);
	}
	lockdep_on = lockdep_started;
	graph_unlock(flags);
}

#endif /* CONFIG_LOCKDEP */
