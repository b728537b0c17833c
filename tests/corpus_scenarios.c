/*
 * The scenarios of the per-CPU detector corpus (percpu_corpus.h), by
 * family, then the table. Each is a few lines of ordinary per-CPU code
 * and a label: racy (two contexts reach one CPU's copy with nothing that
 * orders them or protects both) or correct.
 *
 * The scenario's own CPU, C, is the last online CPU (away from the test
 * task on CPU 0 when there are two or more); "the other CPU", O, is CPU 0
 * (C itself on one CPU). Updates are read-modify-writes with a window
 * between the read and the write-back (corpus.widen), so that a racy
 * scenario loses updates when its contexts really interleave. Zeroing the
 * counters before a scenario and summing them after uses raw_per_cpu_ptr(),
 * which the validator does not see: that bookkeeping is not the code under
 * test. Everything else uses the checked accessors.
 */
#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "mutex.h"
#include "percpu.h"
#include "percpu_corpus.h"
#include "preempt.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "wait.h"

struct corpus_params corpus = {.loops = 3};

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static int scpu(void)
{
	return last_cpu();
}

static int ocpu(void)
{
	return 0;
}

static void broken(const char *why)
{
	if (!corpus.broken)
		corpus.broken = why;
}

static void widen(void)
{
	for (int i = 0; i < corpus.widen; i++)
		cpu_relax();
}

/* One update with a window: a preemption, a migration or an interrupt
 * between the read and the write-back loses what came in between. */
static void rmw(long *p)
{
	long x = *(volatile long *)p;

	widen();
	*(volatile long *)p = x + 1;
}

/* The same on cpu's copy through per_cpu(): two checked accesses. */
static void rmw_per_cpu(long *var, int cpu)
{
	long x = per_cpu(*var, cpu);

	widen();
	per_cpu(*var, cpu) = x + 1;
}

static void zero(long *var)
{
	int cpu;

	for_each_possible_cpu(cpu)
		*raw_per_cpu_ptr(var, cpu) = 0;
}

static long sum(long *var)
{
	long s = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		s += *raw_per_cpu_ptr(var, cpu);
	return s;
}

/* Run fn(arg) in hard-interrupt context on cpu, from the calling task,
 * and wait for it: a self-IPI when cpu is this CPU, else a cross-CPU
 * call. */
static void raise_irq(int cpu, void (*fn)(void *), void *arg)
{
	if (cpu == raw_smp_processor_id())
		ktest_in_hardirq(fn, arg);
	else
		smp_call_function_single(cpu, fn, arg, true);
}

/* Where a task that interrupts C runs: on C, so that one CPU suffices,
 * except in a stress run, where an interrupt raised from C itself could
 * only come between the other task's critical sections. */
static int irq_source_cpu(void)
{
	return corpus.stress ? ocpu() : scpu();
}

/* In hardirq: one update of this CPU's copy of the long at arg. */
static void irq_rmw(void *arg)
{
	rmw(this_cpu_ptr((long *)arg));
}

/*
 * Contexts: each a task running step() corpus.loops times, bound to cpu
 * (ANY: unbound). run_contexts() starts all of them, then joins all of
 * them: task creation orders the starter's earlier work before each, and
 * nothing orders them among themselves.
 */
#define ANY (-1)
#define MAX_CONTEXTS (NR_CPUS + 2)

struct context {
	void (*step)(void);
	int cpu;
};

static struct context contexts[MAX_CONTEXTS];
static struct task *context_tasks[MAX_CONTEXTS];
static int nr_contexts;

static int context_fn(void *arg)
{
	struct context *c = arg;

	for (int i = 0; i < corpus.loops; i++)
		c->step();
	return 0;
}

static void add_context(void (*step)(void), int cpu)
{
	if (nr_contexts < MAX_CONTEXTS)
		contexts[nr_contexts++] = (struct context){step, cpu};
}

static void start_contexts(void)
{
	for (int i = 0; i < nr_contexts; i++)
		context_tasks[i] = ktest_spawn(context_fn, &contexts[i],
					       "corpus", contexts[i].cpu,
					       SCHED_NORMAL, 0, true);
}

static void join_contexts(void)
{
	for (int i = 0; i < nr_contexts; i++)
		ktest_join(context_tasks[i]);
	nr_contexts = 0;
}

static void run_contexts(void)
{
	start_contexts();
	join_contexts();
}

/* The common shape: a on cpu_a and b on cpu_b, each one update of var
 * per step; the updates lost. */
static long pair(void (*a)(void), int cpu_a, void (*b)(void), int cpu_b,
		 long *var)
{
	zero(var);
	add_context(a, cpu_a);
	add_context(b, cpu_b);
	run_contexts();
	return 2l * corpus.loops - sum(var);
}

static long pair_on_c(void (*a)(void), void (*b)(void), long *var)
{
	return pair(a, scpu(), b, scpu(), var);
}

/* A task, its own function, started now (bound to cpu). */
static struct task *start(int (*fn)(void *), void *arg, int cpu)
{
	return ktest_spawn(fn, arg, "corpus", cpu, SCHED_NORMAL, 0, true);
}

/* t is asleep: off its run queue and switched out. */
static bool asleep(struct task *t)
{
	return t->state == TASK_UNINTERRUPTIBLE &&
	       !__atomic_load_n(&t->on_rq, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
}

static bool wait_asleep(struct task *t)
{
	for (int ms = 0; ms < 3000; ms++) {
		if (asleep(t))
			return true;
		msleep(1);
	}
	return false;
}

struct counter {
	spinlock_t lock;
	long n;
};

struct local_counter {
	local_lock_t lock;
	long n;
};

/* ------------------------------------------------------------------ */
/* init: initialise, hand off, read back                               */
/* ------------------------------------------------------------------ */

/* Every copy set from the test task, one worker per CPU on its own copy,
 * the copies read after kthread_join(): each copy handed along
 * creation and join edges. Correct. */
static DEFINE_PER_CPU(long, iw_v);

static void iw_step(void)
{
	rmw(this_cpu_ptr(&iw_v));
}

static long init_workers_join(void)
{
	long s = 0;
	int cpu;

	for_each_online_cpu(cpu)
		per_cpu(iw_v, cpu) = 0;
	for_each_online_cpu(cpu)
		add_context(iw_step, cpu);
	run_contexts();
	for_each_online_cpu(cpu)
		s += per_cpu(iw_v, cpu);
	return (long)corpus.loops * num_online_cpus() - s;
}

/* The same with cross-CPU calls that wait: the caller's accesses come
 * before fn's, fn's before the caller's after the call. Correct. */
static DEFINE_PER_CPU(long, isc_v);

static void isc_fn(void *arg)
{
	rmw(this_cpu_ptr(&isc_v));
}

static long init_smp_call_wait(void)
{
	long s = 0;
	int cpu;

	for_each_online_cpu(cpu)
		per_cpu(isc_v, cpu) = 0;
	for (int i = 0; i < corpus.loops; i++)
		for_each_online_cpu(cpu)
			smp_call_function_single(cpu, isc_fn, 0, true);
	for_each_online_cpu(cpu)
		s += per_cpu(isc_v, cpu);
	return (long)corpus.loops * num_online_cpus() - s;
}

/* A producer updates C's copy and complete()s; the consumer, on the other
 * CPU, takes over the copy after wait_for_completion(). Correct. */
static DEFINE_PER_CPU(long, ch_v);
static struct completion ch_done;

static int ch_producer(void *arg)
{
	for (int i = 0; i < corpus.loops; i++)
		rmw(this_cpu_ptr(&ch_v));
	complete(&ch_done);
	return 0;
}

static int ch_consumer(void *arg)
{
	wait_for_completion(&ch_done);
	for (int i = 0; i < corpus.loops; i++)
		rmw_per_cpu(&ch_v, scpu());
	return 0;
}

static long completion_handoff(void)
{
	struct task *p, *q;

	init_completion(&ch_done);
	per_cpu(ch_v, scpu()) = 0;
	q = start(ch_consumer, 0, ocpu());
	p = start(ch_producer, 0, scpu());
	ktest_join(p);
	ktest_join(q);
	return 2l * corpus.loops - per_cpu(ch_v, scpu());
}

/* The test task sets C's copy after the consumer is asleep on a wait
 * queue, then wakes it: the wake-up orders the two. Correct. */
static DEFINE_PER_CPU(long, wq_v);
static DECLARE_WAIT_QUEUE_HEAD(wq_head);
static volatile int wq_ready;

static int wq_consumer(void *arg)
{
	wait_event(wq_head, load_int(&wq_ready));
	for (int i = 0; i < corpus.loops; i++)
		rmw(this_cpu_ptr(&wq_v));
	return 0;
}

static long waitqueue_handoff(void)
{
	struct task *q;

	store_int(&wq_ready, 0);
	q = start(wq_consumer, 0, scpu());
	if (q && !wait_asleep(q))
		broken("wait-queue consumer never went to sleep");
	per_cpu(wq_v, scpu()) = corpus.loops;
	store_int(&wq_ready, 1);
	wake_up(&wq_head);
	ktest_join(q);
	return 2l * corpus.loops - per_cpu(wq_v, scpu());
}

/* One worker after the other on C's copy, the second started after the
 * first was joined. Correct. */
static DEFINE_PER_CPU(long, sw_v);

static void sw_step(void)
{
	rmw(this_cpu_ptr(&sw_v));
}

static long sequential_workers(void)
{
	per_cpu(sw_v, scpu()) = 0;
	add_context(sw_step, scpu());
	run_contexts();
	add_context(sw_step, scpu());
	run_contexts();
	return 2l * corpus.loops - per_cpu(sw_v, scpu());
}

/* The copy is initialised (to a seed) after its worker was started:
 * the store can wipe the worker's first updates, or the worker's
 * write-back can wipe the seed. Racy. */
static DEFINE_PER_CPU(long, ias_v);

static void ias_step(void)
{
	preempt_disable();
	rmw(this_cpu_ptr(&ias_v));
	preempt_enable();
}

static long init_after_start(void)
{
	zero(&ias_v);
	add_context(ias_step, scpu());
	start_contexts();
	ktest_poll_long(raw_per_cpu_ptr(&ias_v, scpu()), 1, 3000);
	per_cpu(ias_v, scpu()) = corpus.loops;
	join_contexts();
	return 2l * corpus.loops - sum(&ias_v);
}

/* The test task drains C's copy (read, then reset) while the worker
 * still updates it, before kthread_join(). Racy. */
static DEFINE_PER_CPU(long, dbj_v);
static volatile int dbj_done;

static int dbj_worker(void *arg)
{
	for (int i = 0; i < corpus.loops; i++) {
		preempt_disable();
		rmw(this_cpu_ptr(&dbj_v));
		preempt_enable();
	}
	store_int(&dbj_done, 1);
	return 0;
}

static long drain_before_join(void)
{
	long drained = 0, x;
	struct task *w;

	zero(&dbj_v);
	store_int(&dbj_done, 0);
	w = start(dbj_worker, 0, scpu());
	do {
		x = per_cpu(dbj_v, scpu());
		widen();
		per_cpu(dbj_v, scpu()) = 0;
		drained += x;
	} while (w && !load_int(&dbj_done));
	ktest_join(w);
	return (long)corpus.loops - drained - sum(&dbj_v);
}

/* complete() comes before the producer's updates, not after: the
 * consumer's updates race with them. Racy. */
static DEFINE_PER_CPU(long, cba_v);
static struct completion cba_done;

static int cba_producer(void *arg)
{
	complete(&cba_done);
	for (int i = 0; i < corpus.loops; i++)
		rmw(this_cpu_ptr(&cba_v));
	return 0;
}

static int cba_consumer(void *arg)
{
	wait_for_completion(&cba_done);
	for (int i = 0; i < corpus.loops; i++)
		rmw_per_cpu(&cba_v, scpu());
	return 0;
}

static long complete_before_access(void)
{
	struct task *p, *q;

	zero(&cba_v);
	init_completion(&cba_done);
	q = start(cba_consumer, 0, ocpu());
	p = start(cba_producer, 0, scpu());
	ktest_join(p);
	ktest_join(q);
	return 2l * corpus.loops - sum(&cba_v);
}

/* A cross-CPU call that does not wait, then the caller updates the same
 * copy: nothing orders fn's update before the caller's. Racy. */
static DEFINE_PER_CPU(long, nw_v);
static volatile int nw_calls;

static void nw_fn(void *arg)
{
	rmw(this_cpu_ptr(&nw_v));
	__atomic_fetch_add(&nw_calls, 1, __ATOMIC_RELEASE);
}

static long smp_call_nowait(void)
{
	zero(&nw_v);
	store_int(&nw_calls, 0);
	for (int i = 0; i < corpus.loops; i++) {
		smp_call_function_single(scpu(), nw_fn, 0, false);
		rmw_per_cpu(&nw_v, scpu());
	}
	if (!ktest_poll_int(&nw_calls, corpus.loops, 3000))
		broken("a cross-CPU call never ran");
	return 2l * corpus.loops - sum(&nw_v);
}

/* ------------------------------------------------------------------ */
/* irq: task against hard interrupt on the same copy                   */
/* ------------------------------------------------------------------ */

/* Preemption off keeps other tasks out, not an interrupt. Racy. */
static DEFINE_PER_CPU(long, hp_v);

static void hp_task(void)
{
	preempt_disable();
	rmw(this_cpu_ptr(&hp_v));
	preempt_enable();
}

static void hp_irq(void)
{
	raise_irq(scpu(), irq_rmw, &hp_v);
}

static long hardirq_vs_preempt_off(void)
{
	return pair(hp_task, scpu(), hp_irq, irq_source_cpu(), &hp_v);
}

/* IRQs off in the task: correct. */
static DEFINE_PER_CPU(long, hi_v);

static void hi_task(void)
{
	unsigned long flags;

	local_irq_save(flags);
	rmw(this_cpu_ptr(&hi_v));
	local_irq_restore(flags);
}

static void hi_irq(void)
{
	raise_irq(scpu(), irq_rmw, &hi_v);
}

static long hardirq_vs_irqs_off(void)
{
	return pair(hi_task, scpu(), hi_irq, irq_source_cpu(), &hi_v);
}

/* One raw spinlock in both, taken with IRQs off by the task. Correct. */
static DEFINE_PER_CPU(long, hl_v);
static DEFINE_RAW_SPINLOCK(hl_lock);

static void hl_task(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&hl_lock, flags);
	rmw(this_cpu_ptr(&hl_v));
	raw_spin_unlock_irqrestore(&hl_lock, flags);
}

static void hl_irq_fn(void *arg)
{
	raw_spin_lock(&hl_lock);
	rmw(this_cpu_ptr(&hl_v));
	raw_spin_unlock(&hl_lock);
}

static void hl_irq(void)
{
	raise_irq(scpu(), hl_irq_fn, 0);
}

static long hardirq_vs_raw_lock_irqsave(void)
{
	return pair(hl_task, scpu(), hl_irq, irq_source_cpu(), &hl_v);
}

/* Interrupts from another CPU (smp_call_function_single) against a task
 * with preemption off: racy. */
static DEFINE_PER_CPU(long, ip_v);

static void ip_task(void)
{
	preempt_disable();
	rmw(this_cpu_ptr(&ip_v));
	preempt_enable();
}

static void ip_irq(void)
{
	smp_call_function_single(scpu(), irq_rmw, &ip_v, true);
}

static long ipi_vs_preempt_off(void)
{
	return pair(ip_task, scpu(), ip_irq, ocpu(), &ip_v);
}

/* The same with IRQs off in the task: correct. */
static DEFINE_PER_CPU(long, ii_v);

static void ii_task(void)
{
	unsigned long flags;

	local_irq_save(flags);
	rmw(this_cpu_ptr(&ii_v));
	local_irq_restore(flags);
}

static void ii_irq(void)
{
	smp_call_function_single(scpu(), irq_rmw, &ii_v, true);
}

static long ipi_vs_irqs_off(void)
{
	return pair(ii_task, scpu(), ii_irq, ocpu(), &ii_v);
}

/* Only interrupt handlers use the copy; they do not nest. Correct. */
static DEFINE_PER_CPU(long, ho_v);

static void ho_irq(void)
{
	raise_irq(scpu(), irq_rmw, &ho_v);
}

static long hardirq_only(void)
{
	return pair(ho_irq, irq_source_cpu(), ho_irq, irq_source_cpu(),
		    &ho_v);
}

/* ------------------------------------------------------------------ */
/* irq_state: enabling interrupts while holding a hardirq lock          */
/* ------------------------------------------------------------------ */

/* Each lock below is taken in hardirq first (irq_lock_fn), then by the
 * test task. The per-CPU copy is always under the lock. */
static DEFINE_PER_CPU(long, is_v);

static void irq_lock_fn(void *arg)
{
	raw_spinlock_t *l = arg;

	raw_spin_lock(l);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock(l);
}

/* local_irq_enable() with the lock held: the interrupt that takes it can
 * now come and spin forever on this CPU. Racy. */
static DEFINE_RAW_SPINLOCK(ie_lock);

static long irq_enable_holding_hardirq_lock(void)
{
	ktest_in_hardirq(irq_lock_fn, &ie_lock);
	raw_spin_lock_irq(&ie_lock);
	(*this_cpu_ptr(&is_v))++;
	local_irq_enable();
	local_irq_disable();
	raw_spin_unlock_irq(&ie_lock);
	return CORPUS_NO_COUNT;
}

/* raw_spin_unlock_irq() of an inner lock turns interrupts on while the
 * outer, hardirq-used, lock is still held. Racy. */
static DEFINE_RAW_SPINLOCK(iu_outer);
static DEFINE_RAW_SPINLOCK(iu_inner);

static long unlock_irq_inner_holding_hardirq_lock(void)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &iu_outer);
	raw_spin_lock_irqsave(&iu_outer, flags);
	raw_spin_lock(&iu_inner);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock_irq(&iu_inner);
	local_irq_disable();
	raw_spin_unlock_irqrestore(&iu_outer, flags);
	return CORPUS_NO_COUNT;
}

/* irqsave/irqrestore around the hardirq lock. Correct. */
static DEFINE_RAW_SPINLOCK(ir_lock);

static long irqsave_hardirq_lock(void)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &ir_lock);
	raw_spin_lock_irqsave(&ir_lock, flags);
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock_irqrestore(&ir_lock, flags);
	return CORPUS_NO_COUNT;
}

/* Interrupts on while holding a lock no interrupt takes. Correct. */
static DEFINE_RAW_SPINLOCK(it_lock);

static long irq_enable_holding_task_lock(void)
{
	raw_spin_lock_irq(&it_lock);
	local_irq_enable();
	(*this_cpu_ptr(&is_v))++;
	raw_spin_unlock(&it_lock);
	return CORPUS_NO_COUNT;
}

/* ------------------------------------------------------------------ */
/* remote: per_cpu(v, C) from the other CPU                            */
/* ------------------------------------------------------------------ */

/* Nothing on the remote side: C's preemption-off does not keep the other
 * CPU out. Racy. */
static DEFINE_PER_CPU(long, ru_v);

static void ru_local(void)
{
	preempt_disable();
	rmw(this_cpu_ptr(&ru_v));
	preempt_enable();
}

static void ru_remote(void)
{
	rmw_per_cpu(&ru_v, scpu());
}

static long remote_unprotected(void)
{
	return pair(ru_local, scpu(), ru_remote, ocpu(), &ru_v);
}

/* IRQs off on both sides: each only for its own CPU. Racy. */
static DEFINE_PER_CPU(long, ro_v);

static void ro_local(void)
{
	unsigned long flags;

	local_irq_save(flags);
	rmw(this_cpu_ptr(&ro_v));
	local_irq_restore(flags);
}

static void ro_remote(void)
{
	unsigned long flags;

	local_irq_save(flags);
	rmw_per_cpu(&ro_v, scpu());
	local_irq_restore(flags);
}

static long remote_irqs_off(void)
{
	return pair(ro_local, scpu(), ro_remote, ocpu(), &ro_v);
}

/* Both sides under C's copy of the lock inside the per-CPU struct.
 * Correct. */
static DEFINE_PER_CPU(struct counter, rc_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rc_c.lock)};

static void rc_local(void)
{
	spin_lock(this_cpu_ptr(&rc_c.lock));
	rmw(&this_cpu_ptr(&rc_c)->n);
	spin_unlock(this_cpu_ptr(&rc_c.lock));
}

static void rc_remote(void)
{
	spinlock_t *l = per_cpu_ptr(&rc_c.lock, scpu());
	long x;

	spin_lock(l);
	x = per_cpu(rc_c, scpu()).n;
	widen();
	per_cpu(rc_c, scpu()).n = x + 1;
	spin_unlock(l);
}

static long remote_under_copy_lock(void)
{
	return pair(rc_local, scpu(), rc_remote, ocpu(), &rc_c.n);
}

/* The remote side takes its own CPU's lock, not C's. Racy. */
static DEFINE_PER_CPU(struct counter, rw_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(rw_c.lock)};

static void rw_local(void)
{
	spin_lock(this_cpu_ptr(&rw_c.lock));
	rmw(&this_cpu_ptr(&rw_c)->n);
	spin_unlock(this_cpu_ptr(&rw_c.lock));
}

static void rw_remote(void)
{
	spinlock_t *l = per_cpu_ptr(&rw_c.lock, ocpu());
	long x;

	spin_lock(l);
	x = per_cpu(rw_c, scpu()).n;
	widen();
	per_cpu(rw_c, scpu()).n = x + 1;
	spin_unlock(l);
}

static long remote_under_wrong_lock(void)
{
	return pair(rw_local, scpu(), rw_remote, ocpu(), &rw_c.n);
}

/* One global raw spinlock on both sides. Correct. */
static DEFINE_PER_CPU(long, rg_v);
static DEFINE_RAW_SPINLOCK(rg_lock);

static void rg_local(void)
{
	raw_spin_lock(&rg_lock);
	rmw(this_cpu_ptr(&rg_v));
	raw_spin_unlock(&rg_lock);
}

static void rg_remote(void)
{
	raw_spin_lock(&rg_lock);
	rmw_per_cpu(&rg_v, scpu());
	raw_spin_unlock(&rg_lock);
}

static long remote_under_global_lock(void)
{
	return pair(rg_local, scpu(), rg_remote, ocpu(), &rg_v);
}

/* Two different global locks: each side protected, not against the
 * other. Racy. */
static DEFINE_PER_CPU(long, r2_v);
static DEFINE_SPINLOCK(r2_a);
static DEFINE_SPINLOCK(r2_b);

static void r2_local(void)
{
	spin_lock(&r2_a);
	rmw(this_cpu_ptr(&r2_v));
	spin_unlock(&r2_a);
}

static void r2_remote(void)
{
	spin_lock(&r2_b);
	rmw_per_cpu(&r2_v, scpu());
	spin_unlock(&r2_b);
}

static long remote_two_locks(void)
{
	return pair(r2_local, scpu(), r2_remote, ocpu(), &r2_v);
}

/* One mutex on both sides. Correct. */
static DEFINE_PER_CPU(long, rm_v);
static DEFINE_MUTEX(rm_mutex);

static void rm_local(void)
{
	mutex_lock(&rm_mutex);
	rmw(this_cpu_ptr(&rm_v));
	mutex_unlock(&rm_mutex);
}

static void rm_remote(void)
{
	mutex_lock(&rm_mutex);
	rmw_per_cpu(&rm_v, scpu());
	mutex_unlock(&rm_mutex);
}

static long remote_under_mutex(void)
{
	return pair(rm_local, scpu(), rm_remote, ocpu(), &rm_v);
}

/* ------------------------------------------------------------------ */
/* this_cpu: read-modify-write sequences of this_cpu_* operations      */
/* ------------------------------------------------------------------ */

/* Read, then write back, preemptible. Racy. */
static DEFINE_PER_CPU(long, trw_v);

static void trw_step(void)
{
	long x = this_cpu_read(trw_v);

	widen();
	this_cpu_write(trw_v, x + 1);
}

static long this_cpu_read_write(void)
{
	return pair_on_c(trw_step, trw_step, &trw_v);
}

/* Read, then xchg in the new value: the xchg is atomic, the pair is not.
 * Racy. */
static DEFINE_PER_CPU(long, trx_v);

static void trx_step(void)
{
	long x = this_cpu_read(trx_v);

	widen();
	(void)this_cpu_xchg(trx_v, x + 1);
}

static long this_cpu_read_xchg(void)
{
	return pair_on_c(trx_step, trx_step, &trx_v);
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
	widen();
	preempt_disable();
	this_cpu_write(tbp_v, x + 1);
	preempt_enable();
}

static long this_cpu_broken_preempt_off(void)
{
	return pair_on_c(tbp_step, tbp_step, &tbp_v);
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
	return pair_on_c(tso_inc, tso_add, &tso_v);
}

/* Read and write in one preempt_disable() section. Correct. */
static DEFINE_PER_CPU(long, tpo_v);

static void tpo_step(void)
{
	long x;

	preempt_disable();
	x = this_cpu_read(tpo_v);
	widen();
	this_cpu_write(tpo_v, x + 1);
	preempt_enable();
}

static long this_cpu_rmw_preempt_off(void)
{
	return pair_on_c(tpo_step, tpo_step, &tpo_v);
}

/* ... in one local_irq_save() section. Correct. */
static DEFINE_PER_CPU(long, tio_v);

static void tio_step(void)
{
	unsigned long flags;
	long x;

	local_irq_save(flags);
	x = this_cpu_read(tio_v);
	widen();
	this_cpu_write(tio_v, x + 1);
	local_irq_restore(flags);
}

static long this_cpu_rmw_irqs_off(void)
{
	return pair_on_c(tio_step, tio_step, &tio_v);
}

/* ... under one spinlock_t held across both. Correct. */
static DEFINE_PER_CPU(long, tl_v);
static DEFINE_SPINLOCK(tl_lock);

static void tl_step(void)
{
	long x;

	spin_lock(&tl_lock);
	x = this_cpu_read(tl_v);
	widen();
	this_cpu_write(tl_v, x + 1);
	spin_unlock(&tl_lock);
}

static long this_cpu_rmw_lock(void)
{
	return pair_on_c(tl_step, tl_step, &tl_v);
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
	zero(&txd_v);
	add_context(txd_inc, scpu());
	add_context(txd_drain, scpu());
	run_contexts();
	return (long)corpus.loops - txd_drained - sum(&txd_v);
}

/* ------------------------------------------------------------------ */
/* local_lock                                                          */
/* ------------------------------------------------------------------ */

/* Two tasks on C under C's local_lock. Correct. */
static DEFINE_PER_CPU(struct local_counter, ll2_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void ll2_step(void)
{
	local_lock(&ll2_c.lock);
	rmw(&this_cpu_ptr(&ll2_c)->n);
	local_unlock(&ll2_c.lock);
}

static long local_lock_two_tasks(void)
{
	return pair_on_c(ll2_step, ll2_step, &ll2_c.n);
}

/* this_cpu_read()/this_cpu_write() under one local_lock. Correct. */
static DEFINE_PER_CPU(struct local_counter, llo_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llo_step(void)
{
	long x;

	local_lock(&llo_c.lock);
	x = this_cpu_read(llo_c.n);
	widen();
	this_cpu_write(llo_c.n, x + 1);
	local_unlock(&llo_c.lock);
}

static long local_lock_this_cpu_ops(void)
{
	return pair_on_c(llo_step, llo_step, &llo_c.n);
}

/* local_lock in one task, preempt_disable() alone in the other: on
 * PREEMPT_RT the local lock leaves preemption on. Racy. */
static DEFINE_PER_CPU(struct local_counter, llp_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llp_locked(void)
{
	local_lock(&llp_c.lock);
	rmw(&this_cpu_ptr(&llp_c)->n);
	local_unlock(&llp_c.lock);
}

static void llp_preempt(void)
{
	preempt_disable();
	rmw(&this_cpu_ptr(&llp_c)->n);
	preempt_enable();
}

static long local_lock_vs_preempt_disable(void)
{
	return pair_on_c(llp_locked, llp_preempt, &llp_c.n);
}

/* The remote side takes its own CPU's local_lock: no protection for C's
 * copy. Racy. */
static DEFINE_PER_CPU(struct local_counter, llr_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void llr_local(void)
{
	local_lock(&llr_c.lock);
	rmw(&this_cpu_ptr(&llr_c)->n);
	local_unlock(&llr_c.lock);
}

static void llr_remote(void)
{
	long x;

	local_lock(&llr_c.lock);
	x = per_cpu(llr_c, scpu()).n;
	widen();
	per_cpu(llr_c, scpu()).n = x + 1;
	local_unlock(&llr_c.lock);
}

static long local_lock_remote(void)
{
	return pair(llr_local, scpu(), llr_remote, ocpu(), &llr_c.n);
}

/* local_lock_irqsave() against a hard interrupt: on PREEMPT_RT it does
 * not turn interrupts off. Racy. */
static DEFINE_PER_CPU(struct local_counter, lli_c) = {
	.lock = INIT_LOCAL_LOCK(lock)};

static void lli_task(void)
{
	unsigned long flags;

	local_lock_irqsave(&lli_c.lock, flags);
	rmw(&this_cpu_ptr(&lli_c)->n);
	local_unlock_irqrestore(&lli_c.lock, flags);
}

static void lli_irq_fn(void *arg)
{
	rmw(&this_cpu_ptr(&lli_c)->n);
}

static void lli_irq(void)
{
	raise_irq(scpu(), lli_irq_fn, 0);
}

static long local_lock_irqsave_vs_hardirq(void)
{
	return pair(lli_task, scpu(), lli_irq, irq_source_cpu(), &lli_c.n);
}

/* ------------------------------------------------------------------ */
/* get_cpu_var                                                         */
/* ------------------------------------------------------------------ */

/* Two tasks with get_cpu_var()/put_cpu_var(). Correct. */
static DEFINE_PER_CPU(long, gv_v);

static void gv_step(void)
{
	rmw(&get_cpu_var(gv_v));
	put_cpu_var(gv_v);
}

static long get_cpu_var_two_tasks(void)
{
	return pair_on_c(gv_step, gv_step, &gv_v);
}

/* get_cpu(), per_cpu(v, cpu), put_cpu(). Correct. */
static DEFINE_PER_CPU(long, gc_v);

static void gc_step(void)
{
	int cpu = get_cpu();

	rmw_per_cpu(&gc_v, cpu);
	put_cpu();
}

static long get_cpu_per_cpu(void)
{
	return pair_on_c(gc_step, gc_step, &gc_v);
}

/* get_cpu_var() against a hard interrupt. Racy. */
static DEFINE_PER_CPU(long, gh_v);

static void gh_task(void)
{
	rmw(&get_cpu_var(gh_v));
	put_cpu_var(gh_v);
}

static void gh_irq(void)
{
	raise_irq(scpu(), irq_rmw, &gh_v);
}

static long get_cpu_var_vs_hardirq(void)
{
	return pair(gh_task, scpu(), gh_irq, irq_source_cpu(), &gh_v);
}

/* get_cpu_var() against another CPU's per_cpu(). Racy. */
static DEFINE_PER_CPU(long, gr_v);

static void gr_task(void)
{
	rmw(&get_cpu_var(gr_v));
	put_cpu_var(gr_v);
}

static void gr_remote(void)
{
	rmw_per_cpu(&gr_v, scpu());
}

static long get_cpu_var_vs_remote(void)
{
	return pair(gr_task, scpu(), gr_remote, ocpu(), &gr_v);
}

/* get_cpu_var() inside local_irq_save(), against a hard interrupt.
 * Correct. */
static DEFINE_PER_CPU(long, gi_v);

static void gi_task(void)
{
	unsigned long flags;

	local_irq_save(flags);
	rmw(&get_cpu_var(gi_v));
	put_cpu_var(gi_v);
	local_irq_restore(flags);
}

static void gi_irq(void)
{
	raise_irq(scpu(), irq_rmw, &gi_v);
}

static long get_cpu_var_irqs_off_vs_hardirq(void)
{
	return pair(gi_task, scpu(), gi_irq, irq_source_cpu(), &gi_v);
}

/* ------------------------------------------------------------------ */
/* stat: DEFINE_PER_CPU_STAT, lost updates accepted                    */
/* ------------------------------------------------------------------ */

static DEFINE_PER_CPU_STAT(long, st_v);

static void st_step(void)
{
	rmw(this_cpu_ptr(&st_v));
}

/* Two tasks update a statistic without protection. Correct by
 * definition: an occasional lost update is acceptable. */
static long stat_two_tasks(void)
{
	pair_on_c(st_step, st_step, &st_v);
	return CORPUS_NO_COUNT;
}

/* The test task sums every CPU's statistic while a worker updates it. */
static long stat_remote_reader(void)
{
	long s = 0;
	int cpu;

	zero(&st_v);
	add_context(st_step, scpu());
	start_contexts();
	for_each_online_cpu(cpu)
		s += per_cpu(st_v, cpu);
	join_contexts();
	if (s < 0 || s > corpus.loops)
		broken("a statistic out of its range");
	return CORPUS_NO_COUNT;
}

/* ------------------------------------------------------------------ */
/* migrate: migrate_disable() alone                                    */
/* ------------------------------------------------------------------ */

/* Two tasks on C, migration disabled: each can still preempt the other.
 * Racy. */
static DEFINE_PER_CPU(long, md_v);

static void md_step(void)
{
	migrate_disable();
	rmw(this_cpu_ptr(&md_v));
	migrate_enable();
}

static long migrate_disable_two_tasks(void)
{
	return pair_on_c(md_step, md_step, &md_v);
}

/* this_cpu_read() then this_cpu_write() with migration disabled. Racy. */
static DEFINE_PER_CPU(long, mdo_v);

static void mdo_step(void)
{
	long x;

	migrate_disable();
	x = this_cpu_read(mdo_v);
	widen();
	this_cpu_write(mdo_v, x + 1);
	migrate_enable();
}

static long migrate_disable_this_cpu_rmw(void)
{
	return pair_on_c(mdo_step, mdo_step, &mdo_v);
}

/* One unbound task, migration disabled around each update: every copy it
 * reaches is used by it alone. Correct. */
static DEFINE_PER_CPU(long, mds_v);

static void mds_step(void)
{
	migrate_disable();
	rmw(this_cpu_ptr(&mds_v));
	migrate_enable();
}

static long migrate_disable_single_task(void)
{
	zero(&mds_v);
	add_context(mds_step, ANY);
	run_contexts();
	return (long)corpus.loops - sum(&mds_v);
}

/* Migration disabled, then this CPU's spinlock_t (the PREEMPT_RT way to
 * protect this CPU's data). Correct. */
static DEFINE_PER_CPU(struct counter, mdl_c) = {
	.lock = __SPIN_LOCK_UNLOCKED(mdl_c.lock)};

static void mdl_step(void)
{
	migrate_disable();
	spin_lock(this_cpu_ptr(&mdl_c.lock));
	rmw(&this_cpu_ptr(&mdl_c)->n);
	spin_unlock(this_cpu_ptr(&mdl_c.lock));
	migrate_enable();
}

static long migrate_disable_percpu_lock(void)
{
	return pair_on_c(mdl_step, mdl_step, &mdl_c.n);
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

	widen();
	__this_cpu_write(urw_v, x + 1);
}

static long __this_cpu_rmw_preemptible(void)
{
	int cpu = corpus.stress ? scpu() : ANY;

	return pair(urw_step, cpu, urw_step, cpu, &urw_v);
}

/* The same with migration disabled: no longer migratable, still
 * preemptible by the other task on C. Racy. */
static DEFINE_PER_CPU(long, umd_v);

static void umd_step(void)
{
	long x;

	migrate_disable();
	x = __this_cpu_read(umd_v);
	widen();
	__this_cpu_write(umd_v, x + 1);
	migrate_enable();
}

static long __this_cpu_rmw_migrate_disabled(void)
{
	return pair_on_c(umd_step, umd_step, &umd_v);
}

/* Under preempt_disable(), in unbound tasks. Correct. */
static DEFINE_PER_CPU(long, upo_v);

static void upo_step(void)
{
	long x;

	preempt_disable();
	x = __this_cpu_read(upo_v);
	widen();
	__this_cpu_write(upo_v, x + 1);
	preempt_enable();
}

static long __this_cpu_rmw_preempt_off(void)
{
	return pair(upo_step, ANY, upo_step, ANY, &upo_v);
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
	widen();
	__this_cpu_write(uio_v, x + 1);
	local_irq_restore(flags);
}

static void uio_irq_fn(void *arg)
{
	__this_cpu_inc(uio_v);
}

static void uio_irq(void)
{
	raise_irq(scpu(), uio_irq_fn, 0);
}

static long __this_cpu_irqs_off_vs_hardirq(void)
{
	return pair(uio_task, scpu(), uio_irq, irq_source_cpu(), &uio_v);
}

/* ------------------------------------------------------------------ */
/* address: forming per_cpu_ptr() addresses is not an access            */
/* ------------------------------------------------------------------ */

/* While a worker updates C's copy (its own alone), the test task finds
 * which CPU a pointer belongs to by comparing per_cpu_ptr()s. Correct. */
static DEFINE_PER_CPU(long, ao_v);

static void ao_step(void)
{
	rmw(this_cpu_ptr(&ao_v));
}

static int owner_of(long *var, long *p)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu_ptr(var, cpu) == p)
			return cpu;
	return -1;
}

static long address_owner_search(void)
{
	zero(&ao_v);
	add_context(ao_step, scpu());
	start_contexts();
	if (owner_of(&ao_v, per_cpu_ptr(&ao_v, scpu())) != scpu())
		broken("per_cpu_ptr() owner search failed");
	join_contexts();
	return (long)corpus.loops - sum(&ao_v);
}

/* ... checks that the copies are distinct, pair by pair. Correct. */
static DEFINE_PER_CPU(long, ad_v);

static void ad_step(void)
{
	rmw(this_cpu_ptr(&ad_v));
}

static long address_distinct(void)
{
	int a, b;

	zero(&ad_v);
	add_context(ad_step, scpu());
	start_contexts();
	for_each_online_cpu(a)
		for_each_online_cpu(b)
			if (a < b && per_cpu_ptr(&ad_v, a) == per_cpu_ptr(&ad_v, b))
				broken("two CPUs share a per-CPU copy");
	join_contexts();
	return (long)corpus.loops - sum(&ad_v);
}

/* ... then updates the copy it found with per_cpu(): that is an access,
 * unordered with the worker's. Racy. */
static DEFINE_PER_CPU(long, ap_v);

static void ap_step(void)
{
	rmw(this_cpu_ptr(&ap_v));
}

static long address_then_per_cpu(void)
{
	int owner;

	zero(&ap_v);
	add_context(ap_step, scpu());
	start_contexts();
	owner = owner_of(&ap_v, per_cpu_ptr(&ap_v, scpu()));
	if (owner < 0)
		broken("per_cpu_ptr() owner search failed");
	else
		for (int i = 0; i < corpus.loops; i++)
			rmw_per_cpu(&ap_v, owner);
	join_contexts();
	return 2l * corpus.loops - sum(&ap_v);
}

/* ------------------------------------------------------------------ */
/* locks: the lockset                                                  */
/* ------------------------------------------------------------------ */

/* Two tasks on C, each under a different spinlock_t. Racy. */
static DEFINE_PER_CPU(long, l2_v);
static DEFINE_SPINLOCK(l2_a);
static DEFINE_SPINLOCK(l2_b);

static void l2_a_step(void)
{
	spin_lock(&l2_a);
	rmw(this_cpu_ptr(&l2_v));
	spin_unlock(&l2_a);
}

static void l2_b_step(void)
{
	spin_lock(&l2_b);
	rmw(this_cpu_ptr(&l2_v));
	spin_unlock(&l2_b);
}

static long two_locks_same_cpu(void)
{
	return pair_on_c(l2_a_step, l2_b_step, &l2_v);
}

/* Two tasks on C under one mutex. Correct. */
static DEFINE_PER_CPU(long, lm_v);
static DEFINE_MUTEX(lm_mutex);

static void lm_step(void)
{
	mutex_lock(&lm_mutex);
	rmw(this_cpu_ptr(&lm_v));
	mutex_unlock(&lm_mutex);
}

static long mutex_two_tasks(void)
{
	return pair_on_c(lm_step, lm_step, &lm_v);
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

#define RACY(family, fn, cpus) {#fn, #family, true, cpus, fn}
#define CORRECT(family, fn, cpus) {#fn, #family, false, cpus, fn}

const struct corpus_scenario corpus_scenarios[] = {
	CORRECT(init, init_workers_join, 1),
	CORRECT(init, init_smp_call_wait, 1),
	CORRECT(init, completion_handoff, 1),
	CORRECT(init, waitqueue_handoff, 1),
	CORRECT(init, sequential_workers, 1),
	RACY(init, init_after_start, 1),
	RACY(init, drain_before_join, 1),
	RACY(init, complete_before_access, 1),
	RACY(init, smp_call_nowait, 2),

	RACY(irq, hardirq_vs_preempt_off, 1),
	CORRECT(irq, hardirq_vs_irqs_off, 1),
	CORRECT(irq, hardirq_vs_raw_lock_irqsave, 1),
	RACY(irq, ipi_vs_preempt_off, 2),
	CORRECT(irq, ipi_vs_irqs_off, 2),
	CORRECT(irq, hardirq_only, 1),

	RACY(irq_state, irq_enable_holding_hardirq_lock, 1),
	RACY(irq_state, unlock_irq_inner_holding_hardirq_lock, 1),
	CORRECT(irq_state, irqsave_hardirq_lock, 1),
	CORRECT(irq_state, irq_enable_holding_task_lock, 1),

	RACY(remote, remote_unprotected, 2),
	RACY(remote, remote_irqs_off, 2),
	CORRECT(remote, remote_under_copy_lock, 2),
	RACY(remote, remote_under_wrong_lock, 2),
	CORRECT(remote, remote_under_global_lock, 2),
	RACY(remote, remote_two_locks, 2),
	CORRECT(remote, remote_under_mutex, 2),

	RACY(this_cpu, this_cpu_read_write, 1),
	RACY(this_cpu, this_cpu_read_xchg, 1),
	RACY(this_cpu, this_cpu_broken_preempt_off, 1),
	CORRECT(this_cpu, this_cpu_single_ops, 1),
	CORRECT(this_cpu, this_cpu_rmw_preempt_off, 1),
	CORRECT(this_cpu, this_cpu_rmw_irqs_off, 1),
	CORRECT(this_cpu, this_cpu_rmw_lock, 1),
	CORRECT(this_cpu, this_cpu_xchg_drain, 1),

	CORRECT(local_lock, local_lock_two_tasks, 1),
	CORRECT(local_lock, local_lock_this_cpu_ops, 1),
	RACY(local_lock, local_lock_vs_preempt_disable, 1),
	RACY(local_lock, local_lock_remote, 2),
	RACY(local_lock, local_lock_irqsave_vs_hardirq, 1),

	CORRECT(get_cpu_var, get_cpu_var_two_tasks, 1),
	CORRECT(get_cpu_var, get_cpu_per_cpu, 1),
	RACY(get_cpu_var, get_cpu_var_vs_hardirq, 1),
	RACY(get_cpu_var, get_cpu_var_vs_remote, 2),
	CORRECT(get_cpu_var, get_cpu_var_irqs_off_vs_hardirq, 1),

	CORRECT(stat, stat_two_tasks, 1),
	CORRECT(stat, stat_remote_reader, 1),

	RACY(migrate, migrate_disable_two_tasks, 1),
	RACY(migrate, migrate_disable_this_cpu_rmw, 1),
	CORRECT(migrate, migrate_disable_single_task, 1),
	CORRECT(migrate, migrate_disable_percpu_lock, 1),

	RACY(__this_cpu, __this_cpu_rmw_preemptible, 2),
	RACY(__this_cpu, __this_cpu_rmw_migrate_disabled, 1),
	CORRECT(__this_cpu, __this_cpu_rmw_preempt_off, 1),
	CORRECT(__this_cpu, __this_cpu_irqs_off_vs_hardirq, 1),

	CORRECT(address, address_owner_search, 1),
	CORRECT(address, address_distinct, 1),
	RACY(address, address_then_per_cpu, 1),

	RACY(locks, two_locks_same_cpu, 1),
	CORRECT(locks, mutex_two_tasks, 1),
};

const int corpus_nr_scenarios =
	sizeof(corpus_scenarios) / sizeof(corpus_scenarios[0]);
