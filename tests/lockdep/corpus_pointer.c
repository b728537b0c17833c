/*
 * The detector corpus (percpu_corpus.h): per-CPU data reached through
 * plain pointers, which only the compiler's hooks see (TSAN=1,
 * kernel/locking/lockdep_percpu_tsan.c; corpus_tables[] lists this table only
 * then). per_cpu_ptr() forms the address and is no access; the loads and
 * stores through it are. The shapes: a remote sum racing an owner, a
 * pointer saved and used after the CPU was given back, a pointer handed
 * to a helper, a struct member reached through this_cpu_ptr() and
 * updated by a callee, loads that never race with each other, and the
 * same on dynamic per-CPU memory.
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "irqflags.h"
#include "percpu_alloc.h"
#include "preempt.h"

#ifdef CONFIG_LOCKDEP_TSAN

/* The running CPU's copy of var, through an address only. */
static long *my_copy(long *var)
{
	return per_cpu_ptr(var, raw_smp_processor_id());
}

/* A helper the pointer is handed to: one update with the window. */
static __attribute__((noinline)) void bump(long *p)
{
	corpus_rmw(p);
}

/* ---- sides ---- */

/* Every CPU's copy summed with plain loads: a remote reader. */
static void sum_remote(const struct corpus_side *side, long *var)
{
	long s = 0;
	int cpu;

	for_each_online_cpu(cpu)
		s += *per_cpu_ptr(var, cpu);
	if (s < 0)
		corpus_broken("a negative sum");
}

/* The same under the side's lock. */
static void corpus_step_sum_locked(const struct corpus_side *side, long *var)
{
	struct any_lock l = side->lock;

	any_lock_acquire(&l);
	sum_remote(side, var);
	any_lock_release(&l);
}

/* The same pair in Linux's words for a lockless statistic: the owner
 * updates its copy with WRITE_ONCE(), the remote sum reads each copy with
 * READ_ONCE(). Marked accesses: as KCSAN, the checker does not see them,
 * so it does not report what the plain pair above shows. */
static void owner_marked(const struct corpus_side *side, long *var)
{
	long *p;

	preempt_disable();
	p = this_cpu_ptr(var);
	WRITE_ONCE(*p, READ_ONCE(*p) + 1);
	preempt_enable();
}

static void sum_marked(const struct corpus_side *side, long *var)
{
	long s = 0;
	int cpu;

	for_each_online_cpu(cpu)
		s += READ_ONCE(*per_cpu_ptr(var, cpu));
	if (s < 0)
		corpus_broken("a negative sum");
}

/* One load of this CPU's copy, nothing held: loads only. */
static void load_bare(const struct corpus_side *side, long *var)
{
	if (*my_copy(var) < 0)
		corpus_broken("a negative copy");
}

/* C's copy updated from here through a saved pointer, bare or under the
 * side's lock. */
static void saved_remote(const struct corpus_side *side, long *var)
{
	bump(per_cpu_ptr(var, corpus_cpu()));
}

static void corpus_step_saved_remote_locked(const struct corpus_side *side, long *var)
{
	struct any_lock l = side->lock;

	any_lock_acquire(&l);
	bump(per_cpu_ptr(var, corpus_cpu()));
	any_lock_release(&l);
}

/* get_cpu(), the slot read, put_cpu(), then the write through the saved
 * pointer (explore_bugs.get_cpu_pairing's shape); and its fix. */
static void after_put(const struct corpus_side *side, long *var)
{
	long *p = per_cpu_ptr(var, get_cpu());
	long x = *p;

	put_cpu();
	corpus_widen();
	*p = x + 1;
}

static void before_put(const struct corpus_side *side, long *var)
{
	bump(per_cpu_ptr(var, get_cpu()));
	put_cpu();
}

/* this_cpu_ptr() with preemption off, the helper after or before
 * preempt_enable(). */
static void helper_after_enable(const struct corpus_side *side, long *var)
{
	long *p;

	preempt_disable();
	p = this_cpu_ptr(var);
	preempt_enable();
	bump(p);
}

static void helper_pinned(const struct corpus_side *side, long *var)
{
	preempt_disable();
	bump(my_copy(var));
	preempt_enable();
}

/* The helper with only migration off: the CPU stays, others run on it. */
static void helper_migrate_only(const struct corpus_side *side, long *var)
{
	migrate_disable();
	bump(my_copy(var));
	migrate_enable();
}

/* The helper with IRQs off, or preemption only, against a hardirq. */
static void helper_irqs_off(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	bump(my_copy(var));
	local_irq_restore(flags);
}

/* A struct's member through this_cpu_ptr() under the struct's local
 * lock, updated by a callee inside the section or after it. */
static DEFINE_PER_CPU(struct corpus_local_counter, mc_in) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct corpus_local_counter, mc_out) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void member_in_section(const struct corpus_side *side, long *var)
{
	struct corpus_local_counter *t =
		container_of(var, struct corpus_local_counter, n);

	local_lock(&t->lock);
	bump(&this_cpu_ptr(t)->n);
	local_unlock(&t->lock);
}

static void member_after_unlock(const struct corpus_side *side, long *var)
{
	struct corpus_local_counter *t =
		container_of(var, struct corpus_local_counter, n), *c;

	local_lock(&t->lock);
	c = this_cpu_ptr(t);
	local_unlock(&t->lock);
	bump(&c->n);
}

/* ---- static variables ---- */

static DEFINE_PER_CPU(long, sv_v);
static DEFINE_PER_CPU(long, si_v);
static DEFINE_PER_CPU(long, sl_v);
static DEFINE_PER_CPU(long, sr_v);
static DEFINE_PER_CPU(long, sm_v);
static DEFINE_PER_CPU(long, ps_v);
static DEFINE_PER_CPU(long, pl_v);
static DEFINE_PER_CPU(long, ap_v);
static DEFINE_PER_CPU(long, bp_v);
static DEFINE_PER_CPU(long, ha_v);
static DEFINE_PER_CPU(long, hp_v);
static DEFINE_PER_CPU(long, hm_v);
static DEFINE_PER_CPU(long, hi_v);
static DEFINE_PER_CPU(long, hq_v);
static DEFINE_PER_CPU(long, lo_v);
static DEFINE_SPINLOCK(ptr_lock);

/*
 * Scenarios of their own: the two sides on var, or on a new alloc_percpu()
 * long (var 0); with counted updates, or with a side that only reads
 * (nothing to count).
 */
static long run_pair(long *var, const struct corpus_side s[2], bool counts)
{
	long *p = var ? var : alloc_percpu(long), lost;

	if (!p) {
		corpus_broken("alloc_percpu() failed");
		return CORPUS_NO_COUNT;
	}
	lost = corpus_pair(&s[0], &s[1], p);
	if (!var)
		free_percpu(p);
	return counts ? lost : CORPUS_NO_COUNT;
}

#define OWN_PAIR(fn, var, counts, a, b)                                       \
	static long fn(void)                                                  \
	{                                                                     \
		static const struct corpus_side s[2] = {a, b};                \
		return run_pair(var, s, counts);                              \
	}

OWN_PAIR(sum_vs_owner, &sv_v, false, SIDE(preempt_off, C),
	 OWN_SIDE(sum_remote, O))
OWN_PAIR(sum_vs_owner_irqs_off, &si_v, false, SIDE(irqs_off, C),
	 OWN_SIDE(sum_remote, O))
OWN_PAIR(sum_under_lock, &sl_v, false, LOCKED_SIDE(locked, C, SPIN, ptr_lock),
	 LOCKED_SIDE(sum_locked, O, SPIN, ptr_lock))
OWN_PAIR(sum_marked_vs_owner_marked, &sm_v, false, OWN_SIDE(owner_marked, C),
	 OWN_SIDE(sum_marked, O))
OWN_PAIR(sum_vs_reader, &sr_v, false, OWN_SIDE(load_bare, C),
	 OWN_SIDE(sum_remote, O))
OWN_PAIR(loads_only, &lo_v, false, OWN_SIDE(load_bare, C),
	 OWN_SIDE(load_bare, C))
OWN_PAIR(dynamic_sum_vs_owner, 0, false, SIDE(preempt_off, C),
	 OWN_SIDE(sum_remote, O))
OWN_PAIR(dynamic_sum_under_lock, 0, false,
	 LOCKED_SIDE(locked, C, SPIN, ptr_lock),
	 LOCKED_SIDE(sum_locked, O, SPIN, ptr_lock))
OWN_PAIR(dynamic_after_put, 0, true, OWN_SIDE(after_put, C),
	 OWN_SIDE(after_put, C))
OWN_PAIR(dynamic_before_put, 0, true, OWN_SIDE(before_put, C),
	 OWN_SIDE(before_put, C))
OWN_PAIR(dynamic_saved_remote, 0, true, SIDE(preempt_off, C),
	 OWN_SIDE(saved_remote, O))
OWN_PAIR(dynamic_loads_only, 0, false, OWN_SIDE(load_bare, C),
	 OWN_SIDE(sum_remote, O))
OWN_PAIR(dynamic_helper_pinned, 0, true, OWN_SIDE(helper_pinned, C),
	 OWN_SIDE(helper_pinned, C))

const struct corpus_scenario corpus_pointer[] = {
	/* A remote sum with plain loads while C's owner updates its copy
	 * (with preemption off, then IRQs off: neither keeps the other CPU
	 * out); under one lock on both sides; with loads on both sides;
	 * with READ_ONCE() and WRITE_ONCE(). */
	RACY(sum, sum_vs_owner, 2),
	RACY(sum, sum_vs_owner_irqs_off, 2),
	CORRECT(sum, sum_under_lock, 2),
	CORRECT(sum, sum_vs_reader, 2),
	CORRECT(sum, sum_marked_vs_owner_marked, 2),
	/* C's copy written through a saved per_cpu_ptr() from O: bare,
	 * then under the owner's lock. */
	RACY_PAIR(saved, saved_remote_write, 2, ps_v, SIDE(preempt_off, C),
		  OWN_SIDE(saved_remote, O)),
	CORRECT_PAIR(saved, saved_remote_locked, 2, pl_v,
		     LOCKED_SIDE(locked, C, SPIN, ptr_lock),
		     LOCKED_SIDE(saved_remote_locked, O, SPIN, ptr_lock)),
	/* Two tasks on C: the write after put_cpu(), or before it. */
	RACY_PAIR(saved, saved_after_put, 1, ap_v, OWN_SIDE(after_put, C),
		  OWN_SIDE(after_put, C)),
	CORRECT_PAIR(saved, saved_before_put, 1, bp_v,
		     OWN_SIDE(before_put, C), OWN_SIDE(before_put, C)),
	/* The pointer handed to a helper: after preempt_enable(), inside
	 * the section, with migration off only; with IRQs off against a
	 * hardirq, and with preemption off against it. */
	RACY_PAIR(helper, helper_after_enable, 1, ha_v,
		  OWN_SIDE(helper_after_enable, C),
		  OWN_SIDE(helper_after_enable, C)),
	CORRECT_PAIR(helper, helper_pinned, 1, hp_v,
		     OWN_SIDE(helper_pinned, C), OWN_SIDE(helper_pinned, C)),
	RACY_PAIR(helper, helper_migrate_only, 1, hm_v,
		  OWN_SIDE(helper_migrate_only, C),
		  OWN_SIDE(helper_migrate_only, C)),
	CORRECT_PAIR(helper, helper_irqs_off_vs_hardirq, 1, hi_v,
		     OWN_SIDE(helper_irqs_off, C), SIDE(hardirq, IRQ_SRC)),
	RACY_PAIR(helper, helper_preempt_vs_hardirq, 1, hq_v,
		  OWN_SIDE(helper_pinned, C), SIDE(hardirq, IRQ_SRC)),
	/* A struct member through this_cpu_ptr() under its local lock,
	 * updated by a callee inside the section, or after local_unlock(). */
	CORRECT_PAIR(member, member_in_section, 1, mc_in.n,
		     OWN_SIDE(member_in_section, C),
		     OWN_SIDE(member_in_section, C)),
	RACY_PAIR(member, member_after_unlock, 1, mc_out.n,
		  OWN_SIDE(member_after_unlock, C),
		  OWN_SIDE(member_after_unlock, C)),
	/* Loads on two tasks of C: never a race. */
	CORRECT(loads, loads_only, 1),
	/* Dynamic per-CPU memory. */
	RACY(dynamic, dynamic_sum_vs_owner, 2),
	CORRECT(dynamic, dynamic_sum_under_lock, 2),
	RACY(dynamic, dynamic_after_put, 1),
	CORRECT(dynamic, dynamic_before_put, 1),
	RACY(dynamic, dynamic_saved_remote, 2),
	CORRECT(dynamic, dynamic_loads_only, 2),
	CORRECT(dynamic, dynamic_helper_pinned, 1),
	{0},
};

#endif /* CONFIG_LOCKDEP_TSAN */
