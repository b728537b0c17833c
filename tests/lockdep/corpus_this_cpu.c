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

/* ------------------------------------------------------------------ */
/* this_cpu: read-modify-write sequences of this_cpu_* operations      */
/* ------------------------------------------------------------------ */

/* Read, then write back, preemptible. Racy. */
static DEFINE_PER_CPU(long, trw_v);

static void trw_step(void)
{
	long x = this_cpu_read(trw_v);

	corpus_widen();
	this_cpu_write(trw_v, x + 1);
}

static long this_cpu_read_write(void)
{
	return corpus_pair_on_c(trw_step, trw_step, &trw_v);
}

/* Read, then xchg in the new value: the xchg is atomic, the pair is not.
 * Racy. */
static DEFINE_PER_CPU(long, trx_v);

static void trx_step(void)
{
	long x = this_cpu_read(trx_v);

	corpus_widen();
	(void)this_cpu_xchg(trx_v, x + 1);
}

static long this_cpu_read_xchg(void)
{
	return corpus_pair_on_c(trx_step, trx_step, &trx_v);
}

/* Read and write each with preemption off, but not one section: a
 * preemption can come in between. Racy. */
static DEFINE_PER_CPU(long, tbp_v);

static void tbp_step(void)
{
	long x;

	preempt_disable();
	x = this_cpu_read(tbp_v);
	preempt_enable();
	corpus_widen();
	preempt_disable();
	this_cpu_write(tbp_v, x + 1);
	preempt_enable();
}

static long this_cpu_broken_preempt_off(void)
{
	return corpus_pair_on_c(tbp_step, tbp_step, &tbp_v);
}

/* Single operations: each atomic on its CPU. Correct. */
static DEFINE_PER_CPU(long, tso_v);

static void tso_inc(void)
{
	this_cpu_inc(tso_v);
}

static void tso_add(void)
{
	this_cpu_add(tso_v, 2);
	this_cpu_dec(tso_v);
}

static long this_cpu_single_ops(void)
{
	return corpus_pair_on_c(tso_inc, tso_add, &tso_v);
}

/* Read and write in one preempt_disable() section. Correct. */
static DEFINE_PER_CPU(long, tpo_v);

static void tpo_step(void)
{
	long x;

	preempt_disable();
	x = this_cpu_read(tpo_v);
	corpus_widen();
	this_cpu_write(tpo_v, x + 1);
	preempt_enable();
}

static long this_cpu_rmw_preempt_off(void)
{
	return corpus_pair_on_c(tpo_step, tpo_step, &tpo_v);
}

/* ... in one local_irq_save() section. Correct. */
static DEFINE_PER_CPU(long, tio_v);

static void tio_step(void)
{
	unsigned long flags;
	long x;

	local_irq_save(flags);
	x = this_cpu_read(tio_v);
	corpus_widen();
	this_cpu_write(tio_v, x + 1);
	local_irq_restore(flags);
}

static long this_cpu_rmw_irqs_off(void)
{
	return corpus_pair_on_c(tio_step, tio_step, &tio_v);
}

/* ... under one spinlock_t held across both. Correct. */
static DEFINE_PER_CPU(long, tl_v);
static DEFINE_SPINLOCK(tl_lock);

static void tl_step(void)
{
	long x;

	spin_lock(&tl_lock);
	x = this_cpu_read(tl_v);
	corpus_widen();
	this_cpu_write(tl_v, x + 1);
	spin_unlock(&tl_lock);
}

static long this_cpu_rmw_lock(void)
{
	return corpus_pair_on_c(tl_step, tl_step, &tl_v);
}

/* One task counts with this_cpu_inc(), the other drains with
 * this_cpu_xchg(v, 0): both single operations, nothing lost. Correct. */
static DEFINE_PER_CPU(long, txd_v);
static long txd_drained;

static void txd_inc(void)
{
	this_cpu_inc(txd_v);
}

static void txd_drain(void)
{
	txd_drained += this_cpu_xchg(txd_v, 0);
}

static long this_cpu_xchg_drain(void)
{
	txd_drained = 0;
	corpus_zero(&txd_v);
	corpus_add_context(txd_inc, corpus_cpu());
	corpus_add_context(txd_drain, corpus_cpu());
	corpus_run_contexts();
	return (long)corpus.loops - txd_drained - corpus_sum(&txd_v);
}

/* ------------------------------------------------------------------ */
/* __this_cpu: for callers that already keep the CPU                   */
/* ------------------------------------------------------------------ */

/* __this_cpu_read()/__this_cpu_write() preemptible and migratable (two
 * unbound tasks; bound to C in a stress run, where they must share a
 * CPU). Racy. */
static DEFINE_PER_CPU(long, urw_v);

static void urw_step(void)
{
	long x = __this_cpu_read(urw_v);

	corpus_widen();
	__this_cpu_write(urw_v, x + 1);
}

static long __this_cpu_rmw_preemptible(void)
{
	int cpu = corpus.stress ? corpus_cpu() : CORPUS_ANY;

	return corpus_pair(urw_step, cpu, urw_step, cpu, &urw_v);
}

/* The same with migration disabled: no longer migratable, still
 * preemptible by the other task on C. Racy. */
static DEFINE_PER_CPU(long, umd_v);

static void umd_step(void)
{
	long x;

	migrate_disable();
	x = __this_cpu_read(umd_v);
	corpus_widen();
	__this_cpu_write(umd_v, x + 1);
	migrate_enable();
}

static long __this_cpu_rmw_migrate_disabled(void)
{
	return corpus_pair_on_c(umd_step, umd_step, &umd_v);
}

/* Under preempt_disable(), in unbound tasks. Correct. */
static DEFINE_PER_CPU(long, upo_v);

static void upo_step(void)
{
	long x;

	preempt_disable();
	x = __this_cpu_read(upo_v);
	corpus_widen();
	__this_cpu_write(upo_v, x + 1);
	preempt_enable();
}

static long __this_cpu_rmw_preempt_off(void)
{
	return corpus_pair(upo_step, CORPUS_ANY, upo_step, CORPUS_ANY, &upo_v);
}

/* With IRQs off in the task, against a hard interrupt's
 * __this_cpu_inc(). Correct. */
static DEFINE_PER_CPU(long, uio_v);

static void uio_task(void)
{
	unsigned long flags;
	long x;

	local_irq_save(flags);
	x = __this_cpu_read(uio_v);
	corpus_widen();
	__this_cpu_write(uio_v, x + 1);
	local_irq_restore(flags);
}

static void uio_irq_fn(void *arg)
{
	__this_cpu_inc(uio_v);
}

static void uio_irq(void)
{
	corpus_raise_irq(corpus_cpu(), uio_irq_fn, 0);
}

static long __this_cpu_irqs_off_vs_hardirq(void)
{
	return corpus_pair(uio_task, corpus_cpu(), uio_irq,
			   corpus_irq_source_cpu(), &uio_v);
}

const struct corpus_scenario corpus_this_cpu[] = {
	RACY(this_cpu, this_cpu_read_write, 1),
	RACY(this_cpu, this_cpu_read_xchg, 1),
	RACY(this_cpu, this_cpu_broken_preempt_off, 1),
	CORRECT(this_cpu, this_cpu_single_ops, 1),
	CORRECT(this_cpu, this_cpu_rmw_preempt_off, 1),
	CORRECT(this_cpu, this_cpu_rmw_irqs_off, 1),
	CORRECT(this_cpu, this_cpu_rmw_lock, 1),
	CORRECT(this_cpu, this_cpu_xchg_drain, 1),
	RACY(__this_cpu, __this_cpu_rmw_preemptible, 2),
	RACY(__this_cpu, __this_cpu_rmw_migrate_disabled, 1),
	CORRECT(__this_cpu, __this_cpu_rmw_preempt_off, 1),
	CORRECT(__this_cpu, __this_cpu_irqs_off_vs_hardirq, 1),
	{0},
};
