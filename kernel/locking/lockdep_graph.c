/*
 * The lock validator's dependency graph (see docs/lockdep.md): an edge
 * A -> B between classes for every "B taken while A held", a
 * breadth-first search on each new edge for a cycle of any length or an
 * IRQ-safe class ordered before an IRQ-unsafe one, the cache of held-lock
 * chains already validated, and the IRQ usage of each class.
 */
#ifdef CONFIG_LOCKDEP

#include "locking/lockdep.h"
#include "locking/lockdep_internal.h"
#include "printk.h"
#include "vsprintf.h"

/* from -> to: `to` was taken while `from` was held. */
struct lock_edge {
	uint16_t from, to;
	unsigned long from_ip, to_ip; /* the two acquisitions, first time */
	int next_fwd, next_bwd;       /* next edge out of from / into to */
};

static struct lock_edge edges[MAX_LOCKDEP_EDGES];
static int nr_edges = 1;
/* The chain cache: lockdep_chain_cached() (lockdep_internal.h) reads it. */
uint64_t lockdep_chain_hash[CHAINHASH_SIZE];
static int nr_chains;
/* LAB5 BEGIN */
static int bfs_queue[MAX_LOCKDEP_CLASSES];
static uint32_t bfs_gen;
/* LAB5 END */

/* Forget every edge, usage and cached chain (graph lock held). */
void lockdep_graph_reset(int nr_classes)
{
	for (int i = 1; i < nr_classes; i++) {
		lock_classes[i].usage = 0;
		lock_classes[i].fwd = lock_classes[i].bwd = 0;
	}
	nr_edges = 1;
	for (int s = 0; s < CHAINHASH_SIZE; s++)
		WRITE_ONCE(lockdep_chain_hash[s], 0);
	nr_chains = 0;
}

static void print_class(const char *prefix, unsigned int idx)
{
	const struct lock_class *c = &lock_classes[idx];

	printk("%s(%s){%s%s%s%s}/%u, wait type %s\n", prefix, c->name,
	       c->usage & USED_IN_HARDIRQ ? "IN-HARDIRQ " : "",
	       c->usage & ENABLED_HARDIRQ ? "HARDIRQ-ON " : "",
	       c->usage & USED_IN_SOFTIRQ ? "IN-SOFTIRQ " : "",
	       c->usage & ENABLED_SOFTIRQ ? "SOFTIRQ-ON" : "",
	       c->subclass, lockdep_wait_name(c->wait_type));
}

/* The two states, as Linux's: a class used in the context and taken
 * where that context may interrupt its holder. */
struct irq_state {
	const char *name;       /* HARDIRQ, SOFTIRQ */
	const char *in, *on;    /* "hardirq", "IRQs on" */
	unsigned int used, enabled;
};

static const struct irq_state irq_states[] = {
	{"HARDIRQ", "hardirq", "IRQs on", USED_IN_HARDIRQ, ENABLED_HARDIRQ},
	{"SOFTIRQ", "softirq", "IRQs and BHs on", USED_IN_SOFTIRQ,
	 ENABLED_SOFTIRQ},
};

static const struct irq_state *state_of(unsigned int bit)
{
	return &irq_states[bit >= USED_IN_SOFTIRQ];
}

static unsigned long usage_ip(unsigned int idx, unsigned int bit)
{
	return lock_classes[idx].usage_ip[__builtin_ctz(bit)];
}

/* Graph lock held. */
static void chain_add(uint64_t key)
{
	unsigned int s;

	if (nr_chains >= CHAINHASH_SIZE * 3 / 4) {
		lockdep_overflow("CHAINHASH_SIZE");
		return;
	}
	for (s = key % CHAINHASH_SIZE; lockdep_chain_hash[s];
	     s = (s + 1) % CHAINHASH_SIZE)
		;
	WRITE_ONCE(lockdep_chain_hash[s], key);
	nr_chains++;
}

/* Breadth-first from start, along edges forward (to what was taken
 * later) or backward; returns the first class (start included) for which
 * match() holds, or 0. bfs_parent then leads back to start. */
static unsigned int bfs(unsigned int start, bool forward,
			bool (*match)(unsigned int idx, unsigned int arg),
			unsigned int arg)
{
	/* LAB5 BEGIN */
	int head = 0, tail = 0;

	bfs_gen++;
	lock_classes[start].bfs_gen = bfs_gen;
	lock_classes[start].bfs_parent = 0;
	bfs_queue[tail++] = start;
	while (head < tail) {
		unsigned int c = bfs_queue[head++];

		if (match(c, arg))
			return c;
		for (int e = forward ? lock_classes[c].fwd : lock_classes[c].bwd; e;
		     e = forward ? edges[e].next_fwd : edges[e].next_bwd) {
			unsigned int n = forward ? edges[e].to : edges[e].from;

			if (lock_classes[n].bfs_gen == bfs_gen)
				continue;
			lock_classes[n].bfs_gen = bfs_gen;
			lock_classes[n].bfs_parent = e;
			bfs_queue[tail++] = n;
		}
	}
	return 0;
	/* LAB5 STUB: return 0; */
	/* LAB5 END */
}

/* ---- the dependency graph ---- */

static bool is_class(unsigned int idx, unsigned int target)
{
	return idx == target;
}

static bool has_usage(unsigned int idx, unsigned int bit)
{
	return lock_classes[idx].usage & bit;
}

/* The edges of the path bfs() found from start to end, printed from the
 * end back (as lockdep does: "in reverse order"); returns their number. */
static int print_path(unsigned int start, unsigned int end, bool forward)
{
	char a[96], b[96];
	int n = 0;

	for (unsigned int c = end; c != start; n++) {
		const struct lock_edge *e = &edges[lock_classes[c].bfs_parent];

		printk("-> #%d (%s) taken at %s\n       while holding (%s) "
		       "taken at %s\n", n, lock_classes[e->to].name,
		       lockdep_sym(a, sizeof(a), e->to_ip),
		       lock_classes[e->from].name,
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
	       lock_classes[next->class_idx].name,
	       lockdep_sym(a, sizeof(a), next->ip), what,
	       lock_classes[prev->class_idx].name,
	       lockdep_sym(b, sizeof(b), prev->ip));
}

static void report_circular(const struct held_lock *prev,
			    const struct held_lock *next, unsigned int found)
{
	int n;

	if (!lockdep_report_begin(LOCKDEP_CIRCULAR,
			  "WARNING: possible circular locking dependency "
			  "detected"))
		return;
	print_acquire(next, "lock", prev);
	printk("which lock already depends on the new lock.\n\n"
	       "the existing dependency chain (in reverse order) is:\n");
	n = print_path(next->class_idx, found, true);
	printk("and now (%s) -> (%s) closes a cycle of %d locks\n",
	       lock_classes[prev->class_idx].name, lock_classes[next->class_idx].name,
	       n + 1);
	lockdep_report_end();
}

static void report_irq_order(const struct held_lock *prev,
			     const struct held_lock *next, unsigned int safe,
			     unsigned int unsafe, const struct irq_state *st)
{
	char a[96], title[64];

	snprintf(title, sizeof(title),
		 "WARNING: %s-safe -> %s-unsafe lock order detected",
		 st->name, st->name);
	if (!lockdep_report_begin(LOCKDEP_IRQ_STATE, title))
		return;
	print_acquire(next, "lock", prev);
	printk("the %s-safe lock:\n", st->name);
	print_class("", safe);
	printk("  taken in %s at %s\n", st->in,
	       lockdep_sym(a, sizeof(a), usage_ip(safe, st->used)));
	printk("would come before the %s-unsafe lock:\n", st->name);
	print_class("", unsafe);
	printk("  taken with %s at %s\n"
	       "a %s taking the first while the second is held with %s "
	       "can deadlock.\n", st->on,
	       lockdep_sym(a, sizeof(a), usage_ip(unsafe, st->enabled)),
	       st->in, st->on);
	lockdep_report_end();
}

/* A new edge prev -> next: refused (and reported) if it closes a cycle
 * or puts an IRQ-safe class before an IRQ-unsafe one. Graph lock held. */
static bool add_edge(const struct held_lock *prev, const struct held_lock *next)
{
	unsigned int from = prev->class_idx, to = next->class_idx, found;
	unsigned int safe, unsafe;
	struct lock_edge *e;

	for (int i = lock_classes[from].fwd; i; i = edges[i].next_fwd)
		if (edges[i].to == to)
			return true;
	found = bfs(to, true, is_class, from);
	if (found) {
		report_circular(prev, next, found);
		return false;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(irq_states); i++) {
		const struct irq_state *st = &irq_states[i];

		safe = bfs(from, false, has_usage, st->used);
		unsafe = safe ? bfs(to, true, has_usage, st->enabled) : 0;
		if (unsafe) {
			report_irq_order(prev, next, safe, unsafe, st);
			return false;
		}
	}
	if (nr_edges >= MAX_LOCKDEP_EDGES) {
		lockdep_overflow("MAX_LOCKDEP_EDGES");
		return false;
	}
	e = &edges[nr_edges];
	*e = (struct lock_edge){.from = from, .to = to, .from_ip = prev->ip,
				.to_ip = next->ip,
				.next_fwd = lock_classes[from].fwd,
				.next_bwd = lock_classes[to].bwd};
	lock_classes[from].fwd = lock_classes[to].bwd = nr_edges++;
	return true;
}

static void report_recursive(const struct held_lock *prev,
			     const struct held_lock *next)
{
	if (!lockdep_report_begin(LOCKDEP_RECURSIVE,
			  "WARNING: possible recursive locking detected"))
		return;
	print_acquire(next, "a lock of the same class", prev);
	printk("May be due to missing lock nesting notation "
	       "(spin_lock_nested()).\n");
	lockdep_report_end();
}

/* next, about to be pushed on s, against what s holds: the edge from
 * the nearest held lock (and from the ones below a trylock, which added
 * no edge of its own; an RCU reader, LOCK_NO_DEPS, is passed over both
 * ways). Graph lock held. */
static void check_chain(const struct held_locks *s,
			const struct held_lock *next)
{
	int top = s->depth;

	if (next->flags & LOCK_NO_DEPS)
		return;
	for (int i = 0; i < top; i++) {
		const struct held_lock *h = &s->held[i];

		if (h->class_idx == next->class_idx) {
			report_recursive(h, next);
			return;
		}
	}
	for (int i = top - 1; i >= 0; i--) {
		const struct held_lock *h = &s->held[i];

		if (!h->class_idx || (h->flags & LOCK_NO_DEPS))
			continue;
		if (!add_edge(h, next) || !(h->flags & LOCK_TRYLOCK))
			break;
	}
}

void lockdep_validate_chain(const struct held_locks *s,
			    const struct held_lock *next)
{
	uint64_t key = next->chain_key;
	unsigned long flags;

	if (lockdep_chain_cached(key))
		return;
	flags = lockdep_graph_lock();
	if (lockdep_on && !lockdep_chain_cached(key)) {
		check_chain(s, next);
		chain_add(key);
	}
	lockdep_graph_unlock(flags);
}

/* ---- IRQ usage ---- */

static void report_irq_inconsistent(unsigned int idx, unsigned int new_bit,
				unsigned long ip)
{
	const struct irq_state *st = state_of(new_bit);
	bool used = new_bit == st->used;
	char a[96], in_w[16], on_w[16];

	if (!lockdep_report_begin(LOCKDEP_IRQ_STATE,
			  "WARNING: inconsistent lock state"))
		return;
	snprintf(in_w, sizeof(in_w), "IN-%s-W", st->name);
	snprintf(on_w, sizeof(on_w), "%s-ON-W", st->name);
	printk("inconsistent {%s} -> {%s} usage.\n", used ? on_w : in_w,
	       used ? in_w : on_w);
	print_class("lock: ", idx);
	printk("  taken in %s at %s\n", st->in,
	       lockdep_sym(a, sizeof(a), used ? ip : usage_ip(idx, st->used)));
	printk("  taken with %s at %s\n", st->on,
	       lockdep_sym(a, sizeof(a),
			   used ? usage_ip(idx, st->enabled) : ip));
	printk("a %s taking it on a CPU that holds it with %s deadlocks "
	       "that CPU.\n", st->in, st->on);
	lockdep_report_end();
}

static void report_irq_inversion(unsigned int idx, unsigned int other,
				 bool forward, const struct irq_state *st)
{
	char a[96];

	if (!lockdep_report_begin(LOCKDEP_IRQ_STATE,
			  "WARNING: possible irq lock inversion dependency "
			  "detected"))
		return;
	printk("%s-%s lock:\n", st->name, forward ? "safe" : "unsafe");
	print_class("", idx);
	printk(forward ? "is held before the %s-unsafe lock:\n"
		       : "is taken inside the %s-safe lock:\n", st->name);
	print_class("", other);
	printk("  safe: taken in %s at %s\n", st->in,
	       lockdep_sym(a, sizeof(a),
			   usage_ip(forward ? idx : other, st->used)));
	printk("  unsafe: taken with %s at %s\n", st->on,
	       lockdep_sym(a, sizeof(a),
			   usage_ip(forward ? other : idx, st->enabled)));
	printk("the dependency:\n");
	print_path(idx, other, forward);
	lockdep_report_end();
}

/* A class shows a usage for the first time: check it against its other
 * usage and against the classes ordered before or after it. */
void lockdep_mark_usage(unsigned int idx, unsigned int bit, unsigned long ip)
{
	struct lock_class *c = &lock_classes[idx];
	unsigned int other;
	unsigned long flags;

	/* Unlocked: a bit already set stays set until a reset. */
	if (READ_ONCE(c->usage) & bit)
		return;
	flags = lockdep_graph_lock();
	if (lockdep_on && !(c->usage & bit)) {
		/* Only under the graph lock: one store, read unlocked. */
		const struct irq_state *st = state_of(bit);

		WRITE_ONCE(c->usage, c->usage | bit);
		c->usage_ip[__builtin_ctz(bit)] = ip;
		if (c->usage & (bit ^ (st->used | st->enabled)))
			report_irq_inconsistent(idx, bit, ip);
		else if (bit == st->used &&
			 (other = bfs(idx, true, has_usage, st->enabled)))
			report_irq_inversion(idx, other, true, st);
		else if (bit == st->enabled &&
			 (other = bfs(idx, false, has_usage, st->used)))
			report_irq_inversion(idx, other, false, st);
	}
	lockdep_graph_unlock(flags);
}

#endif /* CONFIG_LOCKDEP */
