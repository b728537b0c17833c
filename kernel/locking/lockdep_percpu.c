/*
 * The per-CPU access checker: the validator's extension the RT article
 * asked for (see docs/lockdep.md). PREEMPT_RT bets that every per-CPU
 * access is protected by something; this file checks the bet, and only
 * where it matters: where two accesses to the same CPU's copy can really
 * run at the same time.
 *
 * Each access through per_cpu(), this_cpu_ptr() or get_cpu_var() names a
 * variable (its template address) and the CPU whose copy is reached; so
 * does each load and store the compiler's hooks see (TSAN=1,
 * lockdep_percpu_tsan.c), told apart: a copy is reported only when a store is
 * among its concurrent accesses.
 * The protections in force are collected: the locks held (by class; a lock
 * inside a per-CPU area only protects the same CPU's copy), and, for the
 * running CPU's own copy, "preemption off" and "IRQs off" (as on
 * PREEMPT_RT: what a spinlock_t or local_lock turned off on a !RT build
 * does not count; in hardirq context only "IRQs off", since preemption off
 * does not keep an interrupt out). Then, per copy (struct percpu_copy):
 *   - a copy reached by one context, or handed from one to the next along
 *     an ordering the kernel creates (lockdep_percpu_hb.c: creation, wake-ups,
 *     completions, joins, waited-for cross-CPU calls, bring-up), is owned
 *     by that context and nothing is reported;
 *   - an access with no ordering to the copy's earlier ones is concurrent
 *     with them: the protections common to all of them must not be empty
 *     (the Eraser lockset algorithm, from then on). Empty is reported: as
 *     the article's interrupt race when a hardirq access meets a task
 *     access made with IRQs on, as unprotected when one side had nothing,
 *     else as inconsistent.
 * Each kind is reported once per variable (the symbol or allocation the
 * address lies in; until lockdep_reset()). A bare access to the copy of
 * the CPU the task held at its last access is a use after the CPU was
 * given back (put_cpu(), local_unlock(), ...), and reported as that.
 * DEFINE_PER_CPU_STAT and DEFINE_PER_CPU_UNCHECKED data is skipped.
 *
 * The check runs where the copy is named, which is also how code reaches
 * a lock inside a per-CPU variable to take it:
 * spin_lock(&per_cpu(v, cpu).lock). So an access with no protection is
 * held back (struct percpu_access) until the task's next validator event:
 * taking a lock inside that copy of the variable cancels it; anything else
 * (another access, another lock, an unlock, a sleep, exit, reading the
 * counters) checks it.
 *
 * this_cpu_* sequences are checked here too: one instruction needs no
 * protection, but a this_cpu_read() made preemptible and a later write
 * operation on the same variable by the same task are two, and another
 * task may run between them (a lost update).
 */
#ifdef CONFIG_LOCKDEP

#include "locking/lockdep_fast.h"
#include "locking/lockdep_percpu.h"
#include "ksyms.h"
#include "percpu_alloc.h"
#include "printk.h"
#include "string.h"

/* Protection ids: lock classes by index, and these two. */
#define PROT_PREEMPT 0xfffe
#define PROT_IRQS 0xffff
#define MAX_LOCKSET 8
#define NR_RECENT 4                  /* concurrent accessors remembered */

#define REPORTED_UNPROTECTED 1u
#define REPORTED_INCONSISTENT 2u
#define REPORTED_IRQ 4u
#define REPORTED_LOST_UPDATE 8u

enum copy_state {
	COPY_OWNED = 1,    /* every access so far ordered after the last */
	COPY_SHARED,       /* concurrent accesses: the lockset discipline */
};

struct lockset {
	uint16_t id[MAX_LOCKSET];
	int nr;
	bool overflow;               /* more protections than MAX_LOCKSET */
};

/* One checked CPU copy of a variable. Read and written under the graph
 * lock; an access that would change nothing is told by the copy's
 * shadow instead (lockdep_percpu.h), which is cleared before any change. */
struct percpu_copy {
	const void *var;             /* template address; 0: a free slot */
	int cpu;
	uint8_t state;               /* enum copy_state; 0 before any access */
	uint8_t nr;                  /* entries in set */
	uint8_t nr_recent;
	bool bare;                   /* an access in set's history had none */
	bool written;                /* and one of them was a store: two
				      * concurrent loads are no race */
	uint16_t set[MAX_LOCKSET];   /* OWNED: common to the owner's accesses;
				      * SHARED: common to the concurrent ones */
	struct hb_stamp recent[NR_RECENT]; /* OWNED: [0] is the owner's last
				      * access; SHARED: the concurrent ones */
	unsigned long last_ip;       /* the previous access (reports only) */
	unsigned long hardirq_ip;    /* a local hardirq access, or 0 */
	unsigned long irqs_on_ip;    /* a local task access with IRQs on, or 0 */
	unsigned long put_ip;        /* a bare access in set's history after
				      * its task gave the CPU back, or 0 */
};

/* Per variable: what has been reported (once per kind). */
struct percpu_var {
	const void *var;             /* template address; 0: a free slot */
	uint8_t reported;            /* REPORTED_* */
};

static struct percpu_copy copies[MAX_PERCPU_COPIES];
static int nr_copies;
static struct percpu_var vars[MAX_PERCPU_VARS];
static int nr_vars;
unsigned int lockdep_percpu_nr_areas;

atomic_t lockdep_this_cpu_reads;
DEFINE_PER_CPU_STAT(unsigned long, preemptible_epoch);
DEFINE_PER_CPU_STAT(unsigned long, irqs_on_epoch);

/* Each CPU's shadow (lockdep_percpu.h): zeroes (nothing settled), mapped
 * beside its area; then the compiler's hooks look at the areas. */
void lockdep_percpu_areas_ready(int nr_cpus)
{
	size_t size = (size_t)(__per_cpu_end - __per_cpu_start);

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		uintptr_t area = (uintptr_t)__per_cpu_start +
				 __per_cpu_offset[cpu];

		memset(percpu_map_pages((uintptr_t)percpu_shadow(area), size,
					"per-CPU checker's shadow", cpu),
		       0, size);
	}
	WRITE_ONCE(lockdep_percpu_nr_areas, nr_cpus);
}

/* Clear the shadow word of c's granule: first thing before c changes
 * (an access that reads it after this goes the slow way, to the graph
 * lock). A copy of a CPU without an area has none. */
static void copy_unsettle(const struct percpu_copy *c)
{
	if ((unsigned int)c->cpu < lockdep_percpu_nr_areas)
		WRITE_ONCE(*percpu_shadow((uintptr_t)c->var +
					  __per_cpu_offset[c->cpu]), 0);
}

/* Graph lock held. */
void lockdep_percpu_reset(void)
{
	for (int i = 0; i < MAX_PERCPU_COPIES; i++) {
		if (copies[i].var)
			copy_unsettle(&copies[i]);
		copies[i] = (struct percpu_copy){0};
	}
	nr_copies = 0;
	for (int i = 0; i < MAX_PERCPU_VARS; i++)
		vars[i] = (struct percpu_var){0};
	nr_vars = 0;
}

static bool stat_var(const void *var)
{
	return (const char *)var >= __per_cpu_stat_start &&
	       (const char *)var < __per_cpu_stat_end;
}

static void lockset_add(struct lockset *s, unsigned int id)
{
	for (int i = 0; i < s->nr; i++)
		if (s->id[i] == id)
			return;
	if (s->nr < MAX_LOCKSET)
		s->id[s->nr++] = id;
	else
		s->overflow = true;
}

static bool lockset_has(const struct lockset *s, unsigned int id)
{
	for (int i = 0; i < s->nr; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

/* The locks that protect cpu's copy: all the context holds, but a lock
 * in another CPU's area, and a shared one (LOCK_SHARED: rcu_read_lock(),
 * which keeps no other reader or writer out; on RT=0 the preemption it
 * turns off counts, as the level). */
static void held_lockset(const struct held_locks *held, int cpu,
			 struct lockset *s)
{
	s->nr = 0;
	s->overflow = false;
	for (int i = 0; i < held->depth; i++) {
		const struct held_lock *h = &held->held[i];

		if (h->class_idx && !(h->flags & LOCK_SHARED) &&
		    (h->cpu < 0 || h->cpu == cpu))
			lockset_add(s, h->class_idx);
	}
}

/* A task's own CPU's copy is also protected by its level. */
static void add_level(struct lockset *s, enum percpu_level level)
{
	if (level == PERCPU_LEVEL_IRQS)
		lockset_add(s, PROT_IRQS); /* no interrupt, no preemption */
	if (level >= PERCPU_LEVEL_PREEMPT)
		lockset_add(s, PROT_PREEMPT);
}

/* The level of task t now, counted as on PREEMPT_RT (see above). */
static enum percpu_level task_level(const struct task_struct *t,
				    bool irqs_off)
{
	if (irqs_off && lockdep_irqs_off(t, 0, 0))
		return PERCPU_LEVEL_IRQS;
	return lockdep_preempt_off(t, 0, 0) ? PERCPU_LEVEL_PREEMPT :
					      PERCPU_LEVEL_NONE;
}

/* What protects cpu's copy right now. */
static void current_lockset(struct task_struct *t, int cpu, bool irqs_off,
			    struct lockset *s)
{
	const struct held_locks *held = lockdep_context_locks(t);

	held_lockset(held, cpu, s);
	if (cpu != raw_smp_processor_id())
		return; /* no CPU-local state protects another CPU's copy */
	if (held->hardirq)
		lockset_add(s, PROT_IRQS); /* not PROT_PREEMPT: see above */
	else
		add_level(s, task_level(t, irqs_off));
}

static void print_lockset(const char *prefix, const uint16_t *id, int nr)
{
	printk("%s{", prefix);
	for (int i = 0; i < nr; i++)
		printk("%s%s", i ? ", " : "",
		       id[i] == PROT_PREEMPT ? "preemption off" :
		       id[i] == PROT_IRQS ? "IRQs off" :
					     lockdep_class_name(id[i]));
	printk("}\n");
}

static unsigned int slot_of(const void *var, int cpu, unsigned int size)
{
	return (((uintptr_t)var >> 3) * 31 + (unsigned int)cpu) % size;
}

/* Graph lock held: var's record, made if new (0: the table is full). */
static struct percpu_var *find_var(const void *var)
{
	unsigned int s = slot_of(var, 0, MAX_PERCPU_VARS);

	for (; vars[s].var; s = (s + 1) % MAX_PERCPU_VARS)
		if (vars[s].var == var)
			return &vars[s];
	if (nr_vars >= MAX_PERCPU_VARS * 3 / 4) {
		lockdep_overflow("MAX_PERCPU_VARS");
		return 0;
	}
	nr_vars++;
	vars[s].var = var;
	return &vars[s];
}

/* Graph lock held: the copy's record, made if new (0: the table is full). */
static struct percpu_copy *find_copy(const void *var, int cpu)
{
	unsigned int s = slot_of(var, cpu, MAX_PERCPU_COPIES);

	for (; copies[s].var; s = (s + 1) % MAX_PERCPU_COPIES)
		if (copies[s].var == var && copies[s].cpu == cpu)
			return &copies[s];
	if (nr_copies >= MAX_PERCPU_COPIES * 3 / 4) {
		lockdep_overflow("MAX_PERCPU_COPIES");
		return 0;
	}
	nr_copies++;
	copies[s].cpu = cpu;
	copies[s].var = var;
	return &copies[s];
}

/* The running access: its stamp, and the clock its context had then
 * (for a held-back access, a copy taken at the time). */
struct now_clock {
	struct hb_stamp me;
	const struct hb_clock *seen;
};

/* The copy's earlier access at st was made by the same context (program
 * order), or is ordered before the access now. */
static bool stamp_before(const struct hb_stamp *st, const struct now_clock *n)
{
	if (st->slot == n->me.slot)
		return st->clock <= n->me.clock;
	return lockdep_hb_ordered(n->seen, st);
}

static bool all_before(const struct percpu_copy *c, const struct now_clock *n)
{
	for (int i = 0; i < c->nr_recent; i++)
		if (!stamp_before(&c->recent[i], n))
			return false;
	return true;
}

/* A per-CPU variable's name: its symbol, or for dynamic per-CPU memory
 * the allocation it lies in and who made it. */
#define VAR_NAME_MAX 160

static const char *var_name(char *buf, unsigned long size, const void *var)
{
	if (percpu_dynamic_describe(var, buf, size))
		return buf;
	return lockdep_sym(buf, size, (unsigned long)var);
}

static void print_access(const struct percpu_access *a)
{
	char s[VAR_NAME_MAX], t[96];

	printk("is accessing CPU %d's copy of %s (%p) at %s\n", a->cpu,
	       var_name(s, sizeof(s), a->var), a->var,
	       lockdep_sym(t, sizeof(t), a->ip));
}

static void print_other(const struct percpu_copy *c)
{
	char s[96];

	printk("concurrently with the access at %s, which nothing orders "
	       "before it,\n", lockdep_sym(s, sizeof(s), c->last_ip));
}

/* The bare access was a use of the copy of the CPU its task had held
 * and given back (put_cpu(), preempt_enable(), local_unlock(), ...). */
static void report_after_put(const struct percpu_copy *c,
			     const struct percpu_access *a)
{
	char s[96];

	if (!lockdep_report_begin(LOCKDEP_PERCPU_UNPROTECTED,
			  "WARNING: per-CPU data used after the CPU was given "
			  "back"))
		return;
	print_access(a);
	print_other(c);
	printk("a task reached CPU %d's data while it held that CPU, gave "
	       "the CPU back\n(put_cpu(), preempt_enable(), local_unlock(), "
	       "...), then used the copy at %s\nwith no protection: another "
	       "task on that CPU may use it at the same time.\n", a->cpu,
	       lockdep_sym(s, sizeof(s), c->put_ip));
	lockdep_report_end();
}

static void report_unprotected(const struct percpu_copy *c,
			       const struct percpu_access *a, bool now_empty)
{
	if (c->put_ip) {
		report_after_put(c, a);
		return;
	}
	if (!lockdep_report_begin(LOCKDEP_PERCPU_UNPROTECTED,
			  "WARNING: unprotected per-CPU access"))
		return;
	print_access(a);
	print_other(c);
	if (!now_empty)
		printk("and one of the two held no protection of this copy.\n");
	else if (!a->local)
		printk("another CPU's copy, and no lock of it is held.\n");
	else
		printk("preemptible%s, and no lock is held: another task on "
		       "this CPU may preempt and use the same copy.\n",
		       a->migrate_only ? " with only migration disabled" : "");
	lockdep_report_end();
}

static void report_percpu_inconsistent(const struct percpu_copy *c,
				       const struct percpu_access *a,
				       const struct lockset *now,
				       const struct lockset *before)
{
	if (!lockdep_report_begin(LOCKDEP_PERCPU_INCONSISTENT,
			  "WARNING: inconsistent per-CPU protection"))
		return;
	print_access(a);
	print_lockset("under ", now->id, now->nr);
	print_other(c);
	print_lockset("under ", before->id, before->nr);
	printk("no protection is common to both.\n");
	lockdep_report_end();
}

static void report_irq(const struct percpu_copy *c)
{
	char a[VAR_NAME_MAX];

	if (!lockdep_report_begin(LOCKDEP_PERCPU_IRQ,
			  "WARNING: per-CPU data used in hardirq and with IRQs "
			  "on"))
		return;
	printk("CPU %d's copy of %s (%p)\n", c->cpu,
	       var_name(a, sizeof(a), c->var), c->var);
	printk("  used in hardirq context at %s\n",
	       lockdep_sym(a, sizeof(a), c->hardirq_ip));
	printk("  used in task context with IRQs on at %s\n",
	       lockdep_sym(a, sizeof(a), c->irqs_on_ip));
	printk("an interrupt may come in the middle of the task's update.\n");
	lockdep_report_end();
}

/* The variable var lies in: a copy record is kept per address reached
 * (a struct's field through the compiler's hooks, the whole struct
 * through a macro), a report once per variable, the symbol or the
 * allocation. */
static const void *var_base(const void *var)
{
	const void *base = percpu_dynamic_base(var);
	uintptr_t off, size;

	if (base)
		return base;
	if (ksym_lookup((uintptr_t)var, &off, &size) && off < size)
		return (const char *)var - off;
	return var;
}

/* Graph lock held: report kind k about var only the first time. */
static bool first_report(const void *var, unsigned int k)
{
	struct percpu_var *v = find_var(var_base(var));

	if (!v || (v->reported & k))
		return false;
	v->reported |= k;
	return true;
}

/* The access's IRQ use, kept for the interrupt race. */
static void note_irq_use(struct percpu_copy *c, const struct percpu_access *a)
{
	if (!a->local)
		return;
	if (a->hardirq) {
		if (!c->hardirq_ip)
			c->hardirq_ip = a->ip;
	} else if (a->irqs_on && !c->irqs_on_ip) {
		c->irqs_on_ip = a->ip;
	}
}

/* The running context owns the copy from this access on. */
static void take_ownership(struct percpu_copy *c, const struct percpu_access *a,
			   const struct lockset *now, const struct hb_stamp *me)
{
	c->state = COPY_OWNED;
	c->bare = !now->nr;
	c->written = a->write;
	c->put_ip = a->after_put ? a->ip : 0;
	c->nr = now->overflow ? 0 : now->nr;
	for (int i = 0; i < c->nr; i++)
		c->set[i] = now->id[i];
	c->recent[0] = *me;
	c->nr_recent = 1;
	c->hardirq_ip = c->irqs_on_ip = 0;
	note_irq_use(c, a);
}

/* Keep only what now also holds (an overflowed set narrows nothing). */
static void narrow(struct percpu_copy *c, const struct percpu_access *a,
		   const struct lockset *now)
{
	int n = 0;

	c->written |= a->write;
	if (a->after_put && !c->put_ip)
		c->put_ip = a->ip;

	c->bare |= !now->nr;
	if (now->overflow)
		return;
	for (int i = 0; i < c->nr; i++)
		if (lockset_has(now, c->set[i]))
			c->set[n++] = c->set[i];
	c->nr = n;
}

static void remember(struct percpu_copy *c, const struct hb_stamp *me)
{
	for (int i = 0; i < c->nr_recent; i++)
		if (c->recent[i].slot == me->slot) {
			c->recent[i] = *me;
			return;
		}
	if (c->nr_recent == NR_RECENT) {
		/* Forget the oldest: a later access is then compared with
		 * fewer, which can only keep the copy shared. */
		for (int i = 1; i < NR_RECENT; i++)
			c->recent[i - 1] = c->recent[i];
		c->nr_recent--;
	}
	c->recent[c->nr_recent++] = *me;
}

/* An access concurrent with the copy's recent ones: they must share a
 * protection. */
static void check_concurrent(struct percpu_copy *c,
			     const struct percpu_access *a,
			     const struct lockset *now)
{
	struct lockset before = {.nr = c->nr};
	bool irq_race, bare = c->bare;

	for (int i = 0; i < c->nr; i++)
		before.id[i] = c->set[i];
	note_irq_use(c, a);
	narrow(c, a, now);
	if (c->nr || now->overflow || !c->written)
		return; /* a common protection, or loads only */
	irq_race = c->hardirq_ip && c->irqs_on_ip;
	if (irq_race) {
		if (first_report(c->var, REPORTED_IRQ))
			report_irq(c);
	} else if (bare || !now->nr) {
		if (first_report(c->var, REPORTED_UNPROTECTED))
			report_unprotected(c, a, !now->nr);
	} else if (first_report(c->var, REPORTED_INCONSISTENT)) {
		report_percpu_inconsistent(c, a, now, &before);
	}
}

/* Graph lock held. */
static void check_access(struct percpu_copy *c, const struct percpu_access *a,
			 const struct lockset *now, const struct now_clock *n)
{
	const struct hb_stamp *me = &n->me;

	if (!c->state) {
		take_ownership(c, a, now, me);
	} else if (c->state == COPY_OWNED && c->recent[0].slot == me->slot &&
		   c->recent[0].clock <= me->clock) {
		narrow(c, a, now); /* the owner again: its weakest protection */
		c->recent[0] = *me;
		note_irq_use(c, a);
	} else if (all_before(c, n)) {
		take_ownership(c, a, now, me);
	} else {
		c->state = COPY_SHARED;
		check_concurrent(c, a, now);
		remember(c, me);
	}
	c->last_ip = a->ip;
}

/* Whether t last held cpu (struct percpu_pinned). */
static bool pinned_on(const struct task_struct *t, int cpu)
{
	const struct percpu_pinned *p = &t->lockdep.pinned;

	return p->cpu == cpu + 1 && p->gen == lockdep_reset_gen;
}

static bool pins_cpu(const struct lockset *now, struct task_struct *t,
		     int cpu);

/* Whether t repeating its access a with the protections now (of level
 * level) would leave c and t as they are: an owner's access under all the
 * protections recorded, its IRQ use noted, the CPU it holds the one t
 * holds already. A bare one would be held back instead. */
static bool settled_at(const struct percpu_copy *c,
		       const struct percpu_access *a, const struct lockset *now,
		       enum percpu_level level, struct task_struct *t)
{
	if (!now->nr || now->overflow)
		return false;
	for (int i = 0; i < c->nr; i++)
		if (!lockset_has(now, c->set[i]))
			return false;
	if (!a->local)
		return true;
	if (level != PERCPU_LEVEL_IRQS && !c->irqs_on_ip)
		return false;
	return !pins_cpu(now, t, a->cpu) || pinned_on(t, a->cpu);
}

/*
 * After t's access a, checked as it happened with the locks held (its
 * lockset without the level): tell the copy's shadow which repeats of a
 * are settled (lockdep_percpu.h), at each level for a's own CPU's copy,
 * loads only or stores too. Only while c is t's with a's stamp: then a
 * repeat with the same shadow value (the same epoch and state of t, the
 * same locks, the same byte) meets what settled_at() saw.
 */
static void settle(const struct percpu_copy *c, const struct percpu_access *a,
		   const struct lockset *held, struct task_struct *t)
{
	uintptr_t addr = (uintptr_t)a->var + __per_cpu_offset[a->cpu];
	const union held_counts *n = &t->lockdep.locks.counts;
	unsigned int code = 0;

	if (c->state != COPY_OWNED || c->recent[0].slot != a->when.slot ||
	    c->recent[0].clock != a->when.clock ||
	    (unsigned int)a->cpu >= lockdep_percpu_nr_areas)
		return;
	for (int level = PERCPU_LEVEL_NONE; level <= PERCPU_LEVEL_IRQS;
	     level++) {
		struct lockset now = *held;

		if (a->local)
			add_level(&now, level);
		if (settled_at(c, a, &now, level, t))
			code |= PERCPU_SETTLED_AT(level);
	}
	if (!code)
		return;
	if (c->written)
		code |= PERCPU_SETTLED_STORE;
	code |= n->config_preempt_off << PERCPU_CODE_PREEMPT_SHIFT;
	if (n->config_irqs_off)
		code |= PERCPU_CODE_IRQS_UNCOUNTED;
	WRITE_ONCE(*percpu_shadow(addr),
		   t->lockdep.locks.shadow_key ^
		   percpu_shadow_bits(addr, a->local) ^ code);
}

/*
 * Check the access against its copy's record. Interrupts off. The copy's
 * shadow is cleared before anything changes; held, for a task's access
 * checked as it happens (not one held back), is its locks' part of now,
 * and the shadow learns the repeats that are settled.
 */
static void record(const struct percpu_access *a, const struct lockset *now,
		   const struct hb_clock *seen, const struct lockset *held)
{
	const struct now_clock n = {.me = a->when, .seen = seen};
	unsigned long flags = lockdep_graph_lock();
	struct percpu_copy *c = lockdep_on ? find_copy(a->var, a->cpu) : 0;

	if (c) {
		copy_unsettle(c);
		check_access(c, a, now, &n);
		if (held)
			settle(c, a, held, current);
	}
	lockdep_graph_unlock(flags);
}

/* t's part of its shadow values (lockdep_percpu.h): its place in its
 * history, whether an access is held back, the CPU it held last, the
 * reset era; hashed. Refreshed by t whenever one of them changes. */
static uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	return k ^ k >> 33;
}

void lockdep_percpu_key_refresh(struct task_struct *t)
{
	const struct percpu_pinned *p = &t->lockdep.pinned;
	struct hb_stamp st = {0};
	uint64_t when = 0, state, key;

	if (lockdep_hb_peek(t, &st))
		when = (uint64_t)(st.slot + 1) << 32 | st.clock;
	state = (uint64_t)lockdep_reset_gen << 16 |
		(uint64_t)(p->gen == lockdep_reset_gen ? p->cpu : 0) << 1 |
		(t->lockdep.pending.var != 0);
	key = fmix64(fmix64(when) + state);
	t->lockdep.locks.shadow_key += key - t->lockdep.percpu_key;
	t->lockdep.percpu_key = key;
}

/* The pending access is the task's: an interrupt handler running on top
 * of it neither reports nor cancels it. */
void lockdep_percpu_pending_flush(struct task_struct *t)
{
	static const struct lockset none;
	struct percpu_access a = t->lockdep.pending;

	if (!a.var || in_hardirq() || lockdep_softirq_ctx())
		return;
	t->lockdep.pending.var = 0;
	lockdep_percpu_key_refresh(t);
	if (a.gen == lockdep_reset_gen) /* else made before a reset */
		record(&a, &none, &t->lockdep.pending_seen, 0);
}

void lockdep_percpu_pending_lock(struct task_struct *t, const void *map)
{
	const struct percpu_access *a = &t->lockdep.pending;
	uintptr_t copy = (uintptr_t)a->var + __per_cpu_offset[a->cpu];

	if (in_hardirq() || lockdep_softirq_ctx())
		return;
	if (a->var && (uintptr_t)map >= copy && (uintptr_t)map < copy + a->size) {
		t->lockdep.pending.var = 0; /* the address of a lock in it */
		lockdep_percpu_key_refresh(t);
	} else {
		lockdep_percpu_pending_flush(t);
	}
}

void lockdep_trylock(struct lockdep_map *map)
{
	unsigned long irqf;

	if (!lockdep_on || !current->lockdep.pending.var)
		return;
	raw_local_irq_save(irqf);
	lockdep_percpu_pending_lock(current, map);
	raw_local_irq_restore(irqf);
}

void lockdep_percpu_flush(void)
{
	unsigned long irqf;

	if (!lockdep_on || !current->lockdep.pending.var)
		return;
	raw_local_irq_save(irqf);
	lockdep_percpu_pending_flush(current);
	raw_local_irq_restore(irqf);
}

/* Whether the task holds cpu's copy by holding the CPU: preemption or
 * IRQs off, or a lock inside that CPU's area (a local_lock). */
static bool pins_cpu(const struct lockset *now, struct task_struct *t, int cpu)
{
	const struct held_locks *held = lockdep_context_locks(t);

	if (lockset_has(now, PROT_PREEMPT) || lockset_has(now, PROT_IRQS))
		return true;
	for (int i = 0; i < held->depth; i++)
		if (held->held[i].class_idx && held->held[i].cpu == cpu)
			return true;
	return false;
}

/* A task access: remember the CPU it holds, or whether a bare access is
 * to the copy of the CPU it held last. */
static void note_pinned(struct task_struct *t, struct percpu_access *a,
			const struct lockset *now)
{
	struct percpu_pinned *p = &t->lockdep.pinned;

	if (a->hardirq || lockdep_softirq_ctx())
		return; /* not the task's own */
	if (a->local && pins_cpu(now, t, a->cpu))
		*p = (struct percpu_pinned){.cpu = a->cpu + 1,
					    .gen = lockdep_reset_gen};
	else if (!now->nr && p->cpu == a->cpu + 1 &&
		 p->gen == lockdep_reset_gen && !t->migration_disabled)
		a->after_put = true;
}

/* A macro's access (per_cpu(), this_cpu_ptr()): a store, as far as the
 * checker can tell; a settled repeat costs no more than the compiler's
 * hooks' (lockdep_percpu_tsan.c). */
void lockdep_percpu_access(const void *var, unsigned long size, int cpu,
			   unsigned long ip)
{
	if ((unsigned int)cpu < READ_ONCE(lockdep_percpu_nr_areas) &&
	    lockdep_percpu_settled((uintptr_t)var + __per_cpu_offset[cpu], cpu,
				   true))
		return;
	lockdep_percpu_access_rw(var, size, cpu, ip ? ip : _RET_IP_, true);
}

void lockdep_percpu_access_rw(const void *var, unsigned long size, int cpu,
			      unsigned long ip, bool write)
{
	struct percpu_access a;
	struct lockset now;
	struct task_struct *t;
	unsigned long irqf;
	bool irqs_off;

	/* No task yet: a CPU on its way in, before its idle task. */
	if (!lockdep_on || in_nmi() || !current)
		return;
	if (stat_var(var))
		return;
	raw_local_irq_save(irqf);
	irqs_off = irqs_disabled_flags(irqf);
	t = current;
	lockdep_percpu_pending_flush(t);
	a = (struct percpu_access){
		.var = var, .size = size, .ip = ip, .cpu = cpu,
		.local = cpu == raw_smp_processor_id(), .hardirq = in_hardirq(),
		.irqs_on = !irqs_off || !lockdep_irqs_off(t, 0, 0),
		.migrate_only = t->migration_disabled > 0, .write = write,
		.gen = lockdep_reset_gen};
	if (!lockdep_hb_stamp(&a.when)) {
		raw_local_irq_restore(irqf);
		return;
	}
	current_lockset(t, cpu, irqs_off, &now);
	note_pinned(t, &a, &now);
	if (a.hardirq || lockdep_softirq_ctx()) {
		record(&a, &now, lockdep_hb_clock(), 0);
	} else if (now.nr) {
		struct lockset held;

		held_lockset(&t->lockdep.locks, cpu, &held);
		lockdep_percpu_key_refresh(t);
		record(&a, &now, lockdep_hb_clock(), &held);
	} else {
		/* Checked unless a lock in it follows: against what the task
		 * knows now, not what it will have learnt by then. */
		t->lockdep.pending = a;
		lockdep_hb_snapshot(&t->lockdep.pending_seen);
		lockdep_percpu_key_refresh(t);
	}
	raw_local_irq_restore(irqf);
}

/* ---- this_cpu_* sequences ---- */

static void report_lost_update(const struct this_cpu_read_rec *r,
			       unsigned long ip)
{
	char s[VAR_NAME_MAX], t[96];

	if (!lockdep_report_begin(LOCKDEP_PERCPU_UNPROTECTED,
			  "WARNING: per-CPU lost update"))
		return;
	printk("this_cpu_read() of %s (%p) at %s\n",
	       var_name(s, sizeof(s), r->var), r->var,
	       lockdep_sym(t, sizeof(t), r->ip));
	printk("and the write at %s are not one section: %s, and no lock "
	       "is held across both:\n", lockdep_sym(s, sizeof(s), ip),
	       r->preemptible ? "the read was preemptible" :
	       r->cpu != raw_smp_processor_id() ? "the task moved CPU" :
	       "the CPU was preemptible in between");
	printk("another task on this CPU may update it in between, and its "
	       "update is lost.\n");
	lockdep_report_end();
}

static void drop_read(struct this_cpu_read_rec *r)
{
	r->var = 0;
	atomic_dec(&lockdep_this_cpu_reads);
}

/* Called in task context (percpu.h): remember the read, newest first. */
void lockdep_this_cpu_read(const void *var)
{
	unsigned long ip = _RET_IP_;
	struct lockdep_task *l;
	struct this_cpu_read_rec *r;
	int depth;

	/* No task yet: a CPU on its way in, before sched_init_ap(). An
	 * RT=0 softirq's reads are not the task's it runs on top of. */
	if (!lockdep_on || stat_var(var) || !current || lockdep_softirq_ctx())
		return;
	l = &current->lockdep;
	depth = l->locks.depth;
	r = &l->reads[0];
	for (int i = 0; i < NR_THIS_CPU_READS; i++)
		if (l->reads[i].var == var)
			r = &l->reads[i];
	if (r == &l->reads[0] && r->var != var) {
		if (l->reads[NR_THIS_CPU_READS - 1].var)
			drop_read(&l->reads[NR_THIS_CPU_READS - 1]);
		for (int i = NR_THIS_CPU_READS - 1; i > 0; i--)
			l->reads[i] = l->reads[i - 1];
		atomic_inc(&lockdep_this_cpu_reads);
	}
	*r = (struct this_cpu_read_rec){
		.var = var, .ip = ip, .cpu = raw_smp_processor_id(),
		.preemptible = preemptible(), .irqs_off = irqs_disabled(),
		.epoch = raw_cpu_read(preemptible_epoch),
		.irq_epoch = raw_cpu_read(irqs_on_epoch), .depth = depth,
		.inner = depth ? l->locks.held[depth - 1].map : 0};
}

/* Another task may have run on the CPU between the read and now: the
 * read was preemptible, or the CPU has been since, or this is another
 * CPU. A lock taken before the read and still held at the same place
 * covers both all the same. */
static bool window_open(const struct lockdep_task *l,
			const struct this_cpu_read_rec *r)
{
	bool held = r->depth && l->locks.depth >= r->depth &&
		    l->locks.held[r->depth - 1].map == r->inner;

	if (held)
		return false;
	if (r->preemptible || r->cpu != raw_smp_processor_id())
		return true;
	/* Interrupts off at the read and never on since: one section,
	 * whatever preempt_disable() pairs came and went inside it. */
	if (r->irqs_off && r->irq_epoch == raw_cpu_read(irqs_on_epoch))
		return false;
	return r->epoch != raw_cpu_read(preemptible_epoch);
}

void lockdep_this_cpu_write(const void *var)
{
	unsigned long ip = _RET_IP_;
	struct lockdep_task *l;
	unsigned long flags;

	if (!lockdep_on || in_hardirq() || !current || lockdep_softirq_ctx())
		return; /* an interrupt's write is the IRQ rule's business */
	l = &current->lockdep;
	for (int i = 0; i < NR_THIS_CPU_READS; i++) {
		struct this_cpu_read_rec *r = &l->reads[i];
		bool report;

		if (r->var != var)
			continue;
		report = window_open(l, r);
		if (report) {
			flags = lockdep_graph_lock();
			report = lockdep_on && first_report(var,
							    REPORTED_LOST_UPDATE);
			lockdep_graph_unlock(flags);
		}
		if (report)
			report_lost_update(r, ip);
		drop_read(r);
	}
}

/* ---- dynamic per-CPU memory ---- */

static bool in_range(const void *var, uintptr_t lo, uintptr_t hi)
{
	return (uintptr_t)var >= lo && (uintptr_t)var < hi;
}

/* Graph lock held: the copy as if never accessed. Its key (var, cpu)
 * stays, so the tables keep their shape; its shadow settles nothing. */
static void copy_forget(struct percpu_copy *c)
{
	copy_unsettle(c);
	c->state = 0;
	c->nr = 0;
	c->nr_recent = 0;
	c->bare = false;
	c->last_ip = c->hardirq_ip = c->irqs_on_ip = 0;
}

/*
 * The range [var, var+size) of the dynamic per-CPU region holds a new
 * variable, or none. Its copies' records are reset rather than removed
 * (the hash tables keep their keys: see copy_forget()), so the tables
 * grow only with the distinct addresses ever checked, as for static
 * variables. The caller's own pending access and this_cpu reads of the
 * range go too; another task's would be a use after free.
 */
void lockdep_percpu_forget(const void *var, unsigned long size)
{
	uintptr_t lo = (uintptr_t)var, hi = lo + size;
	struct lockdep_task *l;
	unsigned long flags = lockdep_graph_lock();

	for (int i = 0; i < MAX_PERCPU_COPIES; i++)
		if (in_range(copies[i].var, lo, hi) && copies[i].state)
			copy_forget(&copies[i]);
	for (int i = 0; i < MAX_PERCPU_VARS; i++)
		if (in_range(vars[i].var, lo, hi))
			vars[i].reported = 0;
	lockdep_graph_unlock(flags);
	if (!current)
		return;
	l = &current->lockdep;
	if (in_range(l->pending.var, lo, hi)) {
		l->pending.var = 0;
		lockdep_percpu_key_refresh(current);
	}
	for (int i = 0; i < NR_THIS_CPU_READS; i++)
		if (in_range(l->reads[i].var, lo, hi))
			drop_read(&l->reads[i]);
}

/* The task's shadow key leaves with it: locks.shadow_key is the sum of
 * what its locks add from here on (lockdep_task_exit() may empty them). */
void lockdep_percpu_task_exit(struct task_struct *t)
{
	for (int i = 0; i < NR_THIS_CPU_READS; i++)
		if (t->lockdep.reads[i].var)
			drop_read(&t->lockdep.reads[i]);
	t->lockdep.locks.shadow_key -= t->lockdep.percpu_key;
	t->lockdep.percpu_key = 0;
}

#endif /* CONFIG_LOCKDEP */
