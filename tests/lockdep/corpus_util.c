/*
 * The corpus's shared helpers (corpus_util.h) and its table of tables.
 */
#include <stdbool.h>

#include "bottom_half.h"
#include "corpus_util.h"
#include "irqflags.h"
#include "preempt.h"
#include "sched.h"

struct corpus_params corpus = {.loops = 3};

const struct corpus_scenario *const corpus_tables[] = {
	corpus_init,
	corpus_irq,
	corpus_remote,
	corpus_this_cpu,
	corpus_protection,
	corpus_unchecked,
	corpus_softirq,
#ifdef CONFIG_LOCKDEP_TSAN
	corpus_pointer, /* seen only by the compiler's hooks */
#endif
	0,
};

int corpus_cpu(void)
{
	return last_cpu();
}

int corpus_other_cpu(void)
{
	return 0;
}

void corpus_broken(const char *why)
{
	if (!corpus.broken)
		corpus.broken = why;
}

void corpus_widen(void)
{
	for (int i = 0; i < corpus.widen; i++)
		cpu_relax();
}

/* Plain accesses, which the compiler's hooks check (a volatile one is
 * marked, as READ_ONCE() is, and never checked); the barriers keep the
 * load and the store apart across the window. */
void corpus_rmw(long *p)
{
	long x = *p;

	barrier();
	corpus_widen();
	barrier();
	*p = x + 1;
}

void corpus_rmw_per_cpu(long *var, int cpu)
{
	long x = per_cpu(*var, cpu);

	corpus_widen();
	per_cpu(*var, cpu) = x + 1;
}

void corpus_zero(long *var)
{
	int cpu;

	for_each_possible_cpu(cpu)
		__atomic_store_n(raw_per_cpu_ptr(var, cpu), 0,
				 __ATOMIC_RELAXED);
}

long corpus_sum(long *var)
{
	long s = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		s += __atomic_load_n(raw_per_cpu_ptr(var, cpu),
				     __ATOMIC_RELAXED);
	return s;
}

void corpus_raise_irq(int cpu, void (*fn)(void *), void *arg)
{
	if (cpu == raw_smp_processor_id())
		ktest_in_hardirq(fn, arg);
	else
		smp_call_function_single(cpu, fn, arg, true);
}

int corpus_irq_source_cpu(void)
{
	return corpus.stress ? corpus_other_cpu() : corpus_cpu();
}

void corpus_irq_rmw(void *arg)
{
	corpus_rmw(this_cpu_ptr((long *)arg));
}

/* ---- steps ---- */

void corpus_step_bare(const struct corpus_side *side, long *var)
{
	corpus_rmw(this_cpu_ptr(var));
}

void corpus_step_preempt_off(const struct corpus_side *side, long *var)
{
	preempt_disable();
	corpus_rmw(this_cpu_ptr(var));
	preempt_enable();
}

void corpus_step_irqs_off(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_rmw(this_cpu_ptr(var));
	local_irq_restore(flags);
}

void corpus_step_migrate_off(const struct corpus_side *side, long *var)
{
	migrate_disable();
	corpus_rmw(this_cpu_ptr(var));
	migrate_enable();
}

void corpus_step_get_cpu_var(const struct corpus_side *side, long *var)
{
	corpus_rmw(&get_cpu_var(*var));
	put_cpu_var(*var);
}

void corpus_step_locked(const struct corpus_side *side, long *var)
{
	struct any_lock l = side->lock;

	any_lock_acquire(&l);
	corpus_rmw(this_cpu_ptr(var));
	any_lock_release(&l);
}

void corpus_step_hardirq(const struct corpus_side *side, long *var)
{
	corpus_raise_irq(corpus_cpu(), corpus_irq_rmw, var);
}

void corpus_step_ipi(const struct corpus_side *side, long *var)
{
	smp_call_function_single(corpus_cpu(), corpus_irq_rmw, var, true);
}

void corpus_step_remote(const struct corpus_side *side, long *var)
{
	corpus_rmw_per_cpu(var, corpus_cpu());
}

void corpus_step_remote_irqs_off(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	corpus_rmw_per_cpu(var, corpus_cpu());
	local_irq_restore(flags);
}

void corpus_step_remote_locked(const struct corpus_side *side, long *var)
{
	struct any_lock l = side->lock;

	any_lock_acquire(&l);
	corpus_rmw_per_cpu(var, corpus_cpu());
	any_lock_release(&l);
}

const struct corpus_side corpus_bare = SIDE(bare, C);
const struct corpus_side corpus_preempt_off = SIDE(preempt_off, C);
const struct corpus_side corpus_migrate_off = SIDE(migrate_off, C);

/* ---- contexts ---- */

#define MAX_CONTEXTS (NR_CPUS + 2)

struct context {
	const struct corpus_side *side;
	long *var;
	int cpu;
};

static struct context contexts[MAX_CONTEXTS];
static struct task_struct *context_tasks[MAX_CONTEXTS];
static int nr_contexts;
static int contexts_started;         /* tasks made, of nr_contexts */
static volatile int contexts_done;   /* tasks through their steps */

/*
 * A context's steps, then the finish line: no context ends before every
 * one has made all its accesses. A context that ended early would be
 * joined, and its joiner's next cross-CPU call (the batched TLB flush of
 * freed stacks, a drain) runs in the hardirq context of every CPU: that
 * orders the hardirq accesses of a context still to come after all the
 * ended one did, and a racy pair looks ordered on a run where the host
 * happened to hold one side back. Waiting there is spinning: a racer
 * must not sleep, or its waker would order itself before the rest.
 */
static int context_fn(void *arg)
{
	struct context *c = arg;

	for (int i = 0; i < corpus.loops; i++)
		c->side->step(c->side, c->var);
	__atomic_fetch_add(&contexts_done, 1, __ATOMIC_RELEASE);
	while (load_int(&contexts_done) < contexts_started)
		yield();
	return 0;
}

void corpus_add_context(const struct corpus_side *side, long *var, int cpu)
{
	if (nr_contexts < MAX_CONTEXTS)
		contexts[nr_contexts++] = (struct context){side, var, cpu};
	else
		corpus_broken("more contexts than MAX_CONTEXTS");
}

/* Made first, then woken: each knows how many will reach the line. */
void corpus_start_contexts(void)
{
	store_int(&contexts_done, 0);
	contexts_started = 0;
	for (int i = 0; i < nr_contexts; i++) {
		context_tasks[i] = ktest_spawn(context_fn, &contexts[i],
					       "corpus", contexts[i].cpu,
					       SCHED_NORMAL, 0, false);
		contexts_started += context_tasks[i] != 0;
	}
	ktest_wake_all(context_tasks, nr_contexts);
}

void corpus_join_contexts(void)
{
	for (int i = 0; i < nr_contexts; i++)
		ktest_join(context_tasks[i]);
	nr_contexts = 0;
}

void corpus_run_contexts(void)
{
	corpus_start_contexts();
	corpus_join_contexts();
}

static int where_cpu(enum corpus_where w)
{
	switch (w) {
	case ON_C:
		return corpus_cpu();
	case ON_O:
		return corpus_other_cpu();
	case ON_IRQ_SRC:
		return corpus_irq_source_cpu();
	default:
		return CORPUS_ANY;
	}
}

long corpus_pair(const struct corpus_side *a, const struct corpus_side *b,
		 long *var)
{
	corpus_zero(var);
	corpus_add_context(a, var, where_cpu(a->where));
	corpus_add_context(b, var, where_cpu(b->where));
	corpus_run_contexts();
	return 2l * corpus.loops - corpus_sum(var);
}

bool corpus_racy(const struct corpus_scenario *s)
{
	return s->racy || (s->racy_without_bh_lock &&
			   IS_ENABLED(CONFIG_PREEMPT_RT) &&
			   !softirq_needs_bh_lock());
}

long corpus_run(const struct corpus_scenario *s)
{
	if (s->run)
		return s->run();
	return corpus_pair(&s->side[0], &s->side[1], s->var);
}

void corpus_spin_until(volatile long *v, long want)
{
	if (!ktest_poll_until(__atomic_load_n(v, __ATOMIC_ACQUIRE) >= want,
			      KTEST_WAIT_MS, POLL_SPIN))
		corpus_broken("a worker made no progress");
}

struct task_struct *corpus_start(int (*fn)(void *), void *arg, int cpu)
{
	return ktest_spawn(fn, arg, "corpus", cpu, SCHED_NORMAL, 0, true);
}

/* t is asleep: off its run queue and switched out. */
static bool asleep(struct task_struct *t)
{
	return READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE &&
	       !__atomic_load_n(&t->on_rq, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
}

bool corpus_wait_asleep(struct task_struct *t)
{
	return ktest_poll_until(asleep(t), KTEST_WAIT_MS, POLL_SLEEP);
}
