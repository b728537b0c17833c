/*
 * The detector corpus (percpu_corpus.h): initialisation and hand-off: a
 * copy set up by one context and used by the next, ordered by task
 * creation, cross-CPU calls that wait, completions, wait-queue wake-ups
 * and kthread_join(); and the racy variants where the order is missing.
 */
#include <stdbool.h>

#include "completion.h"
#include "corpus_util.h"
#include "preempt.h"
#include "wait.h"

/* ------------------------------------------------------------------ */
/* init: initialise, hand off, read back                               */
/* ------------------------------------------------------------------ */

/* Every copy set from the test task, one worker per CPU on its own copy,
 * the copies read after kthread_join(): each copy handed along
 * creation and join edges. Correct. */
static DEFINE_PER_CPU(long, iw_v);

static long init_workers_join(void)
{
	long s = 0;
	int cpu;

	for_each_online_cpu(cpu)
		per_cpu(iw_v, cpu) = 0;
	for_each_online_cpu(cpu)
		corpus_add_context(&corpus_bare, &iw_v, cpu);
	corpus_run_contexts();
	for_each_online_cpu(cpu)
		s += per_cpu(iw_v, cpu);
	return (long)corpus.loops * num_online_cpus() - s;
}

/* The same with cross-CPU calls that wait: the caller's accesses come
 * before fn's, fn's before the caller's after the call. Correct. */
static DEFINE_PER_CPU(long, isc_v);

static void isc_fn(void *arg)
{
	corpus_rmw(this_cpu_ptr(&isc_v));
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
		corpus_rmw(this_cpu_ptr(&ch_v));
	complete(&ch_done);
	return 0;
}

static int ch_consumer(void *arg)
{
	wait_for_completion(&ch_done);
	for (int i = 0; i < corpus.loops; i++)
		corpus_rmw_per_cpu(&ch_v, corpus_cpu());
	return 0;
}

static long completion_handoff(void)
{
	struct task_struct *p, *q;

	init_completion(&ch_done);
	per_cpu(ch_v, corpus_cpu()) = 0;
	q = corpus_start(ch_consumer, 0, corpus_other_cpu());
	p = corpus_start(ch_producer, 0, corpus_cpu());
	ktest_join(p);
	ktest_join(q);
	return 2l * corpus.loops - per_cpu(ch_v, corpus_cpu());
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
		corpus_rmw(this_cpu_ptr(&wq_v));
	return 0;
}

static long waitqueue_handoff(void)
{
	struct task_struct *q;

	store_int(&wq_ready, 0);
	q = corpus_start(wq_consumer, 0, corpus_cpu());
	if (q && !corpus_wait_asleep(q))
		corpus_broken("wait-queue consumer never went to sleep");
	per_cpu(wq_v, corpus_cpu()) = corpus.loops;
	store_int(&wq_ready, 1);
	wake_up(&wq_head);
	ktest_join(q);
	return 2l * corpus.loops - per_cpu(wq_v, corpus_cpu());
}

/* One worker after the other on C's copy, the second started after the
 * first was joined. Correct. */
static DEFINE_PER_CPU(long, sw_v);

static long sequential_workers(void)
{
	per_cpu(sw_v, corpus_cpu()) = 0;
	corpus_add_context(&corpus_bare, &sw_v, corpus_cpu());
	corpus_run_contexts();
	corpus_add_context(&corpus_bare, &sw_v, corpus_cpu());
	corpus_run_contexts();
	return 2l * corpus.loops - per_cpu(sw_v, corpus_cpu());
}

/* The copy is initialised (to a seed) after its worker was started:
 * the store can wipe the worker's first updates, or the worker's
 * write-back can wipe the seed. Racy. */
static DEFINE_PER_CPU(long, ias_v);

static long init_after_start(void)
{
	corpus_zero(&ias_v);
	corpus_add_context(&corpus_preempt_off, &ias_v, corpus_cpu());
	corpus_start_contexts();
	corpus_spin_until(raw_per_cpu_ptr(&ias_v, corpus_cpu()), 1);
	per_cpu(ias_v, corpus_cpu()) = corpus.loops;
	corpus_join_contexts();
	return 2l * corpus.loops - corpus_sum(&ias_v);
}

/* The test task drains C's copy (read, then reset) while the worker
 * still updates it, before kthread_join(). Racy. */
static DEFINE_PER_CPU(long, dbj_v);
static volatile int dbj_done;

static int dbj_worker(void *arg)
{
	for (int i = 0; i < corpus.loops; i++) {
		preempt_disable();
		corpus_rmw(this_cpu_ptr(&dbj_v));
		preempt_enable();
	}
	store_int(&dbj_done, 1);
	return 0;
}

static long drain_before_join(void)
{
	long drained = 0, x;
	struct task_struct *w;

	corpus_zero(&dbj_v);
	store_int(&dbj_done, 0);
	w = corpus_start(dbj_worker, 0, corpus_cpu());
	do {
		x = per_cpu(dbj_v, corpus_cpu());
		corpus_widen();
		per_cpu(dbj_v, corpus_cpu()) = 0;
		drained += x;
	} while (w && !load_int(&dbj_done));
	ktest_join(w);
	return (long)corpus.loops - drained - corpus_sum(&dbj_v);
}

/* complete() comes before the producer's updates, not after: the
 * consumer's updates race with them. Racy. */
static DEFINE_PER_CPU(long, cba_v);
static struct completion cba_done;

static int cba_producer(void *arg)
{
	complete(&cba_done);
	for (int i = 0; i < corpus.loops; i++)
		corpus_rmw(this_cpu_ptr(&cba_v));
	return 0;
}

static int cba_consumer(void *arg)
{
	wait_for_completion(&cba_done);
	for (int i = 0; i < corpus.loops; i++)
		corpus_rmw_per_cpu(&cba_v, corpus_cpu());
	return 0;
}

static long complete_before_access(void)
{
	struct task_struct *p, *q;

	corpus_zero(&cba_v);
	init_completion(&cba_done);
	q = corpus_start(cba_consumer, 0, corpus_other_cpu());
	p = corpus_start(cba_producer, 0, corpus_cpu());
	ktest_join(p);
	ktest_join(q);
	return 2l * corpus.loops - corpus_sum(&cba_v);
}

/* A cross-CPU call that does not wait, then the caller updates the same
 * copy: nothing orders fn's update before the caller's. Racy. */
static DEFINE_PER_CPU(long, nw_v);
static volatile int nw_calls;

static void nw_fn(void *arg)
{
	corpus_rmw(this_cpu_ptr(&nw_v));
	__atomic_fetch_add(&nw_calls, 1, __ATOMIC_RELEASE);
}

static long smp_call_nowait(void)
{
	corpus_zero(&nw_v);
	store_int(&nw_calls, 0);
	for (int i = 0; i < corpus.loops; i++) {
		smp_call_function_single(corpus_cpu(), nw_fn, 0, false);
		corpus_rmw_per_cpu(&nw_v, corpus_cpu());
	}
	if (!ktest_poll_int(&nw_calls, corpus.loops, KTEST_WAIT_MS))
		corpus_broken("a cross-CPU call never ran");
	return 2l * corpus.loops - corpus_sum(&nw_v);
}

const struct corpus_scenario corpus_init[] = {
	CORRECT(init, init_workers_join, 1),
	CORRECT(init, init_smp_call_wait, 1),
	CORRECT(init, completion_handoff, 1),
	CORRECT(init, waitqueue_handoff, 1),
	CORRECT(init, sequential_workers, 1),
	RACY(init, init_after_start, 1),
	RACY(init, drain_before_join, 1),
	RACY(init, complete_before_access, 1),
	RACY(init, smp_call_nowait, 2),
	{0},
};
