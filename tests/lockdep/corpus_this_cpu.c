/*
 * The detector corpus (percpu_corpus.h): this_cpu_* read-modify-write
 * sequences (racy when a preemption can come between the read and the
 * write; correct as single operations or inside one protected section),
 * and the __this_cpu_* tier, which the caller must use with preemption off
 * or migration disabled.
 */
#include <stdbool.h>

#include "corpus_util.h"
#include "irqflags.h"
#include "preempt.h"

/* Each scenario's copy (and lock); the table at the end says which. */
static DEFINE_PER_CPU(long, trw_v);
static DEFINE_PER_CPU(long, trx_v);
static DEFINE_PER_CPU(long, tbp_v);
static DEFINE_PER_CPU(long, tso_v);
static DEFINE_PER_CPU(long, tpo_v);
static DEFINE_PER_CPU(long, tio_v);
static DEFINE_PER_CPU(long, tl_v);
static DEFINE_SPINLOCK(tl_lock);
static DEFINE_PER_CPU(long, txd_v);
static DEFINE_PER_CPU(long, urw_v);
static DEFINE_PER_CPU(long, umd_v);
static DEFINE_PER_CPU(long, upo_v);
static DEFINE_PER_CPU(long, uio_v);

/* this_cpu: read, then write back, preemptible. */
static void this_cpu_rmw(const struct corpus_side *side, long *var)
{
	long x = this_cpu_read(*var);

	corpus_widen();
	this_cpu_write(*var, x + 1);
}

/* Read, then xchg in the new value: the xchg is atomic, the pair is not. */
static void trx_step(const struct corpus_side *side, long *var)
{
	long x = this_cpu_read(*var);

	corpus_widen();
	(void)this_cpu_xchg(*var, x + 1);
}

/* Read and write each with preemption off, but not one section. */
static void tbp_step(const struct corpus_side *side, long *var)
{
	long x;

	preempt_disable();
	x = this_cpu_read(*var);
	preempt_enable();
	corpus_widen();
	preempt_disable();
	this_cpu_write(*var, x + 1);
	preempt_enable();
}

/* Single operations: each atomic on its CPU. */
static void tso_inc(const struct corpus_side *side, long *var)
{
	this_cpu_inc(*var);
}

static void tso_add(const struct corpus_side *side, long *var)
{
	this_cpu_add(*var, 2);
	this_cpu_dec(*var);
}

/* Read and write in one preempt_disable() section, in one
 * local_irq_save() section, under one spinlock_t held across both. */
static void tpo_step(const struct corpus_side *side, long *var)
{
	preempt_disable();
	this_cpu_rmw(side, var);
	preempt_enable();
}

static void tio_step(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_rmw(side, var);
	local_irq_restore(flags);
}

static void tl_step(const struct corpus_side *side, long *var)
{
	spin_lock(&tl_lock);
	this_cpu_rmw(side, var);
	spin_unlock(&tl_lock);
}

/* One task counts with this_cpu_inc(), the other drains with
 * this_cpu_xchg(v, 0): both single operations, nothing lost. Correct. */
static long txd_drained;

static void txd_drain(const struct corpus_side *side, long *var)
{
	txd_drained += this_cpu_xchg(*var, 0);
}

static long this_cpu_xchg_drain(void)
{
	static const struct corpus_side inc = OWN_SIDE(tso_inc, C);
	static const struct corpus_side drain = OWN_SIDE(txd_drain, C);

	txd_drained = 0;
	corpus_zero(&txd_v);
	corpus_add_context(&inc, &txd_v, corpus_cpu());
	corpus_add_context(&drain, &txd_v, corpus_cpu());
	corpus_run_contexts();
	return (long)corpus.loops - txd_drained - corpus_sum(&txd_v);
}

/* __this_cpu_read()/__this_cpu_write(), bare or with migration disabled
 * or preemption off around them. */
static void __this_cpu_rmw(const struct corpus_side *side, long *var)
{
	long x = __this_cpu_read(*var);

	corpus_widen();
	__this_cpu_write(*var, x + 1);
}

static void umd_step(const struct corpus_side *side, long *var)
{
	migrate_disable();
	__this_cpu_rmw(side, var);
	migrate_enable();
}

static void upo_step(const struct corpus_side *side, long *var)
{
	preempt_disable();
	__this_cpu_rmw(side, var);
	preempt_enable();
}

/* __this_cpu_* preemptible and migratable: two unbound tasks; bound to C
 * in a stress run, where they must share a CPU. Racy. */
static long __this_cpu_rmw_preemptible(void)
{
	enum corpus_where w = corpus.stress ? ON_C : ON_ANY;
	struct corpus_side side = {.step = __this_cpu_rmw, .where = w};

	return corpus_pair(&side, &side, &urw_v);
}

/* With IRQs off in the task, against a hard interrupt's
 * __this_cpu_inc(). */
static void uio_task(const struct corpus_side *side, long *var)
{
	unsigned long flags;

	local_irq_save(flags);
	__this_cpu_rmw(side, var);
	local_irq_restore(flags);
}

static void uio_irq_fn(void *arg)
{
	__this_cpu_inc(uio_v);
}

static void uio_irq(const struct corpus_side *side, long *var)
{
	corpus_raise_irq(corpus_cpu(), uio_irq_fn, 0);
}

const struct corpus_scenario corpus_this_cpu[] = {
	/* Read then write, read then xchg, each preemptible; read and write
	 * each with preemption off but in two sections. */
	RACY_PAIR(this_cpu, this_cpu_read_write, 1, trw_v,
		  OWN_SIDE(this_cpu_rmw, C), OWN_SIDE(this_cpu_rmw, C)),
	RACY_PAIR(this_cpu, this_cpu_read_xchg, 1, trx_v, OWN_SIDE(trx_step, C),
		  OWN_SIDE(trx_step, C)),
	RACY_PAIR(this_cpu, this_cpu_broken_preempt_off, 1, tbp_v,
		  OWN_SIDE(tbp_step, C), OWN_SIDE(tbp_step, C)),
	/* Single operations; one protected section around read and write. */
	CORRECT_PAIR(this_cpu, this_cpu_single_ops, 1, tso_v,
		     OWN_SIDE(tso_inc, C), OWN_SIDE(tso_add, C)),
	CORRECT_PAIR(this_cpu, this_cpu_rmw_preempt_off, 1, tpo_v,
		     OWN_SIDE(tpo_step, C), OWN_SIDE(tpo_step, C)),
	CORRECT_PAIR(this_cpu, this_cpu_rmw_irqs_off, 1, tio_v,
		     OWN_SIDE(tio_step, C), OWN_SIDE(tio_step, C)),
	CORRECT_PAIR(this_cpu, this_cpu_rmw_lock, 1, tl_v, OWN_SIDE(tl_step, C),
		     OWN_SIDE(tl_step, C)),
	CORRECT(this_cpu, this_cpu_xchg_drain, 1),
	/* __this_cpu: preemptible and migratable; migration disabled (no
	 * longer migratable, still preemptible by the other task on C); under
	 * preempt_disable(), in unbound tasks; with IRQs off against a hard
	 * interrupt. */
	RACY(__this_cpu, __this_cpu_rmw_preemptible, 2),
	RACY_PAIR(__this_cpu, __this_cpu_rmw_migrate_disabled, 1, umd_v,
		  OWN_SIDE(umd_step, C), OWN_SIDE(umd_step, C)),
	CORRECT_PAIR(__this_cpu, __this_cpu_rmw_preempt_off, 1, upo_v,
		     OWN_SIDE(upo_step, ANY), OWN_SIDE(upo_step, ANY)),
	CORRECT_PAIR(__this_cpu, __this_cpu_irqs_off_vs_hardirq, 1, uio_v,
		     OWN_SIDE(uio_task, C), OWN_SIDE(uio_irq, IRQ_SRC)),
	{0},
};
