/*
 * The per-CPU access checker: the validator's extension the RT article
 * asked for (see docs/lockdep.md). PREEMPT_RT bets that every per-CPU
 * access is protected by something; this file checks the bet.
 *
 * Each access through this_cpu_ptr(), get_cpu_var(), per_cpu() or
 * per_cpu_ptr() names a variable (its template address) and the CPU whose
 * copy is reached. The protections in force are collected: the locks held
 * (by class; a lock inside a per-CPU area only protects the same CPU's
 * copy), and, for the running CPU's own copy, "preemption off" and "IRQs
 * off" (as on PREEMPT_RT: what a spinlock_t or local_lock turned off on a
 * !RT build does not count). Then, per variable:
 *   - no protection at all is reported at once (migrate_disable() alone is
 *     none: another task on this CPU may preempt and use the same copy);
 *   - the set of protections common to every access so far is kept and
 *     intersected with each new access, as in the Eraser lockset
 *     algorithm; an empty intersection means no consistent protection;
 *   - use in hardirq context and in task context with IRQs on is the
 *     article's interrupt race, reported on its own.
 * Each kind is reported once per variable (until lockdep_reset()).
 * DEFINE_PER_CPU_STAT data is skipped.
 *
 * The check runs where the pointer is formed, which is also how code
 * reaches a lock inside a per-CPU variable to take it:
 * spin_lock(&per_cpu(v, cpu).lock). So an access with no protection is
 * held back (struct percpu_access) until the task's next validator event:
 * taking a lock inside that copy of the variable cancels it; anything else
 * (another access, another lock, an unlock, a sleep, exit, reading the
 * counters) reports it.
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep.h"
#include "lockdep_internal.h"
#include "printk.h"

/* Protection ids: lock classes by index, and these two. */
#define PROT_PREEMPT 0xfffe
#define PROT_IRQS 0xffff
#define MAX_LOCKSET 8

#define REPORTED_UNPROTECTED 1u
#define REPORTED_INCONSISTENT 2u
#define REPORTED_IRQ 4u

/* One checked variable. Written under the graph lock, inside a seq
 * section (seq odd while it changes) so that the common access, which
 * changes nothing, can be checked without the lock (access_settled()). */
struct percpu_var {
	const void *var;             /* template address; 0: a free slot */
	unsigned int seq;            /* even: stable; odd: being written */
	uint16_t set[MAX_LOCKSET];   /* protections common to all accesses */
	uint8_t nr;                  /* entries in set */
	bool seen;                   /* set holds at least one access */
	uint8_t reported;            /* REPORTED_* */
	unsigned long last_ip;       /* the previous access (also written
				      * without the lock: reports only) */
	unsigned long hardirq_ip;    /* an access in hardirq context, or 0 */
	unsigned long irqs_on_ip;    /* a task access with IRQs on, or 0 */
};

struct lockset {
	uint16_t id[MAX_LOCKSET];
	int nr;
	bool overflow;               /* more protections than MAX_LOCKSET */
};

static struct percpu_var vars[MAX_PERCPU_VARS];
static int nr_vars;

static void write_begin(struct percpu_var *v)
{
	__atomic_store_n(&v->seq, v->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct percpu_var *v)
{
	__atomic_store_n(&v->seq, v->seq + 1, __ATOMIC_RELEASE);
}

/* Graph lock held; the seq numbers go on, so that a lock-free reader in
 * the middle sees the change. */
void lockdep_percpu_reset(void)
{
	for (int i = 0; i < MAX_PERCPU_VARS; i++) {
		struct percpu_var *v = &vars[i];
		unsigned int seq = v->seq;

		write_begin(v);
		*v = (struct percpu_var){.seq = seq + 1};
		write_end(v);
	}
	nr_vars = 0;
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

/* What protects cpu's copy right now. */
static void current_lockset(struct task *t, int cpu, bool irqs_off,
			    struct lockset *s)
{
	bool hardirq = in_irq();

	s->nr = 0;
	s->overflow = false;
	for (int i = 0; i < t->lockdep.depth; i++) {
		const struct held_lock *h = &t->lockdep.held[i];

		if (h->class_idx && h->hardirq == hardirq &&
		    (h->cpu < 0 || h->cpu == cpu))
			lockset_add(s, h->class_idx);
	}
	if (cpu != raw_smp_processor_id())
		return; /* no CPU-local state protects another CPU's copy */
	if (irqs_off && lockdep_irqs_off(t, 0, 0)) {
		lockset_add(s, PROT_IRQS);
		lockset_add(s, PROT_PREEMPT); /* no interrupt, no preemption */
	} else if (lockdep_preempt_off(t, 0, 0)) {
		lockset_add(s, PROT_PREEMPT);
	}
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

static struct percpu_var *find_var(const void *var)
{
	unsigned int s = ((uintptr_t)var >> 3) % MAX_PERCPU_VARS;

	for (; vars[s].var; s = (s + 1) % MAX_PERCPU_VARS)
		if (vars[s].var == var)
			return &vars[s];
	if (nr_vars >= MAX_PERCPU_VARS * 3 / 4) {
		lockdep_overflow("BUG: MAX_PERCPU_VARS too low");
		return 0;
	}
	nr_vars++;
	__atomic_store_n(&vars[s].var, var, __ATOMIC_RELEASE);
	return &vars[s];
}

/* Without the lock: the slot of var, or 0 when it has none yet. */
static struct percpu_var *lookup_var(const void *var)
{
	unsigned int s = ((uintptr_t)var >> 3) % MAX_PERCPU_VARS;
	const void *in;

	for (; (in = __atomic_load_n(&vars[s].var, __ATOMIC_ACQUIRE));
	     s = (s + 1) % MAX_PERCPU_VARS)
		if (in == var)
			return &vars[s];
	return 0;
}

static bool lockset_has(const struct lockset *s, unsigned int id)
{
	for (int i = 0; i < s->nr; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

/* Whether this protected access would change nothing in v's record: the
 * record's set is inside the access's (the intersection keeps it), and
 * its IRQ-use sites are already known. Read without the lock; false when
 * a writer was busy, and the caller takes the lock. */
static bool access_settled(struct percpu_var *v,
			   const struct percpu_access *a,
			   const struct lockset *now)
{
	unsigned int seq = __atomic_load_n(&v->seq, __ATOMIC_ACQUIRE);
	bool settled = !(seq & 1) && v->var == a->var && v->seen &&
		       !now->overflow;

	for (int i = 0; settled && i < v->nr; i++)
		settled = lockset_has(now, v->set[i]);
	if (settled && a->local)
		settled = a->hardirq ? v->hardirq_ip != 0 :
				       !a->irqs_on || v->irqs_on_ip != 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return settled && __atomic_load_n(&v->seq, __ATOMIC_RELAXED) == seq;
}

static void print_access(const struct percpu_access *a)
{
	char s[96], t[96];

	printk("is accessing CPU %d's copy of %s (%p) at %s\n", a->cpu,
	       lockdep_sym(s, sizeof(s), (unsigned long)a->var), a->var,
	       lockdep_sym(t, sizeof(t), a->ip));
}

static void report_unprotected(const struct percpu_access *a)
{
	if (!lockdep_report_begin(LOCKDEP_PERCPU_UNPROTECTED,
			  "WARNING: unprotected per-CPU access"))
		return;
	print_access(a);
	if (!a->local)
		printk("another CPU's copy, and no lock of it is held.\n");
	else
		printk("preemptible%s, and no lock is held: another task on "
		       "this CPU may preempt and use the same copy.\n",
		       a->migrate_only ? " with only migration disabled" : "");
	lockdep_report_end();
}

static void report_percpu_inconsistent(struct percpu_var *v,
				const struct percpu_access *a,
				const struct lockset *before,
				const struct lockset *now)
{
	char s[96];

	if (!lockdep_report_begin(LOCKDEP_PERCPU_INCONSISTENT,
			  "WARNING: inconsistent per-CPU protection"))
		return;
	print_access(a);
	print_lockset("under ", now->id, now->nr);
	printk("but the earlier accesses (the last at %s) were all under\n",
	       lockdep_sym(s, sizeof(s), v->last_ip));
	print_lockset(" ", before->id, before->nr);
	printk("no protection is common to all accesses.\n");
	lockdep_report_end();
}

static void report_irq(struct percpu_var *v, int cpu)
{
	char a[96];

	if (!lockdep_report_begin(LOCKDEP_PERCPU_IRQ,
			  "WARNING: per-CPU data used in hardirq and with IRQs "
			  "on"))
		return;
	printk("CPU %d's copy of %s (%p)\n", cpu,
	       lockdep_sym(a, sizeof(a), (unsigned long)v->var), v->var);
	printk("  used in hardirq context at %s\n",
	       lockdep_sym(a, sizeof(a), v->hardirq_ip));
	printk("  used in task context with IRQs on at %s\n",
	       lockdep_sym(a, sizeof(a), v->irqs_on_ip));
	printk("an interrupt may come in the middle of the task's update.\n");
	lockdep_report_end();
}

/* Graph lock held. */
static void check_access(struct percpu_var *v, const struct percpu_access *a,
			 const struct lockset *now)
{
	struct lockset before = {.nr = v->nr};
	int n = 0;

	for (int i = 0; i < v->nr; i++)
		before.id[i] = v->set[i];
	if (!now->nr) {
		if (!(v->reported & REPORTED_UNPROTECTED)) {
			v->reported |= REPORTED_UNPROTECTED;
			report_unprotected(a);
		}
	} else if (now->overflow) {
		/* Part of the set is missing: it cannot narrow the record. */
	} else if (!v->seen) {
		for (int i = 0; i < now->nr; i++)
			v->set[i] = now->id[i];
		v->nr = now->nr;
		v->seen = true;
	} else {
		for (int i = 0; i < v->nr; i++)
			for (int j = 0; j < now->nr; j++)
				if (v->set[i] == now->id[j])
					v->set[n++] = v->set[i];
		v->nr = n;
		if (!n && before.nr && !(v->reported & REPORTED_INCONSISTENT)) {
			v->reported |= REPORTED_INCONSISTENT;
			report_percpu_inconsistent(v, a, &before, now);
		}
	}
	if (a->local) {
		if (a->hardirq) {
			if (!v->hardirq_ip)
				v->hardirq_ip = a->ip;
		} else if (a->irqs_on && !v->irqs_on_ip) {
			v->irqs_on_ip = a->ip;
		}
		if (v->hardirq_ip && v->irqs_on_ip &&
		    !(v->reported & REPORTED_IRQ)) {
			v->reported |= REPORTED_IRQ;
			report_irq(v, a->cpu);
		}
	}
	v->last_ip = a->ip;
}

/* Check the access against its variable's record. Interrupts off. */
static void record(const struct percpu_access *a, const struct lockset *now)
{
	struct percpu_var *v = lookup_var(a->var);
	unsigned long flags;

	if (v && now->nr && access_settled(v, a, now)) {
		__atomic_store_n(&v->last_ip, a->ip, __ATOMIC_RELAXED);
		return;
	}
	flags = lockdep_graph_lock();
	v = lockdep_on ? find_var(a->var) : 0;
	if (v) {
		write_begin(v);
		check_access(v, a, now);
		write_end(v);
	}
	lockdep_graph_unlock(flags);
}

/* The pending access is the task's: an interrupt handler running on top
 * of it neither reports nor cancels it. */
void lockdep_percpu_pending_flush(struct task *t)
{
	static const struct lockset none;
	struct percpu_access a = t->lockdep.pending;

	if (!a.var || in_irq() || in_nmi())
		return;
	t->lockdep.pending.var = 0;
	if (a.gen == lockdep_reset_gen) /* else made before a reset */
		record(&a, &none);
}

void lockdep_percpu_pending_lock(struct task *t, const void *map)
{
	const struct percpu_access *a = &t->lockdep.pending;
	uintptr_t copy = (uintptr_t)a->var + __per_cpu_offset[a->cpu];

	if (in_irq() || in_nmi())
		return;
	if (a->var && (uintptr_t)map >= copy && (uintptr_t)map < copy + a->size)
		t->lockdep.pending.var = 0; /* the address of a lock in it */
	else
		lockdep_percpu_pending_flush(t);
}

void lockdep_trylock(struct lockdep_map *map)
{
	unsigned long irqf;

	if (!lockdep_on || !current->lockdep.pending.var)
		return;
	local_irq_save(irqf);
	lockdep_percpu_pending_lock(current, map);
	local_irq_restore(irqf);
}

void lockdep_percpu_flush(void)
{
	unsigned long irqf;

	if (!lockdep_on || !current->lockdep.pending.var)
		return;
	local_irq_save(irqf);
	lockdep_percpu_pending_flush(current);
	local_irq_restore(irqf);
}

void lockdep_percpu_access(const void *var, unsigned long size, int cpu,
			   unsigned long ip)
{
	struct percpu_access a;
	struct lockset now;
	struct task *t;
	unsigned long irqf;
	bool irqs_off;

	if (!ip)
		ip = _RET_IP_;
	if (!lockdep_on || in_nmi())
		return;
	if ((const char *)var >= __per_cpu_stat_start &&
	    (const char *)var < __per_cpu_stat_end)
		return;
	local_irq_save(irqf);
	irqs_off = irqs_disabled_flags(irqf);
	t = current;
	lockdep_percpu_pending_flush(t);
	a = (struct percpu_access){
		.var = var, .size = size, .ip = ip, .cpu = cpu,
		.local = cpu == raw_smp_processor_id(), .hardirq = in_irq(),
		.irqs_on = !irqs_off || !lockdep_irqs_off(t, 0, 0),
		.migrate_only = t->migration_disabled > 0,
		.gen = lockdep_reset_gen};
	current_lockset(t, cpu, irqs_off, &now);
	if (now.nr || a.hardirq)
		record(&a, &now);
	else
		t->lockdep.pending = a; /* reported unless a lock in it follows */
	local_irq_restore(irqf);
}

#endif /* CONFIG_LOCKDEP */
