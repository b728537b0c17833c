/*
 * Tests of percpu_counter (kernel/percpu_counter.c): the per-CPU deltas
 * fold into the shared count at the batch; percpu_counter_sum() is exact
 * under adds from tasks on every CPU (preempted, migrated) and from hard
 * interrupts; percpu_counter_read() stays within batch per CPU of it;
 * folding a quiet CPU's deltas changes no sum; init fails cleanly when
 * dynamic per-CPU memory runs out.
 */
#include <stdbool.h>
#include <stdint.h>

#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "percpu_alloc.h"
#include "percpu_counter.h"
#include "percpu/percpu_counter_util.h"
#include "sched.h"
#include "smp.h"
#include "uapi.h"

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

KTEST(percpu_counter, init_add_read_sum_destroy)
{
	struct percpu_alloc_info before, after;
	struct percpu_counter c;

	percpu_alloc_info(&before);
	KASSERT_EQ(percpu_counter_init(&c, 5), 0);
	KEXPECT_TRUE(percpu_counter_initialized(&c));
	KEXPECT_GE(percpu_counter_batch, 32);
	KEXPECT_EQ(percpu_counter_read(&c), 5);
	percpu_counter_add(&c, 3);
	KEXPECT_EQ(percpu_counter_sum(&c), 8);
	KEXPECT_EQ(percpu_counter_read(&c), 5); /* 3 < batch: not folded */
	percpu_counter_inc(&c);
	percpu_counter_dec(&c);
	percpu_counter_dec(&c);
	percpu_counter_sub(&c, 2);
	KEXPECT_EQ(percpu_counter_sum(&c), 5);
	percpu_counter_set(&c, -4);
	KEXPECT_EQ(percpu_counter_read(&c), -4);
	KEXPECT_EQ(percpu_counter_sum(&c), -4);
	KEXPECT_EQ(percpu_counter_read_positive(&c), 0);
	KEXPECT_EQ(percpu_counter_sum_positive(&c), 0);
	percpu_counter_destroy(&c);
	KEXPECT_FALSE(percpu_counter_initialized(&c));
	percpu_counter_destroy(&c); /* twice: nothing */
	percpu_alloc_info(&after);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
	KEXPECT_EQ(after.double_frees, before.double_frees);
}

/* On one CPU: below the batch an add stays in this CPU's delta; the add
 * that brings it to the batch moves it all into the count. */
KTEST(percpu_counter, batch_folds_at_threshold)
{
	struct percpu_counter c;
	int cpu;

	KASSERT_EQ(percpu_counter_init(&c, 0), 0);
	migrate_disable();
	cpu = smp_processor_id();
	for (int i = 0; i < 9; i++)
		percpu_counter_add_batch(&c, 1, 10);
	KEXPECT_EQ(percpu_counter_read(&c), 0);
	KEXPECT_EQ(pcc_delta_of(&c, cpu), 9);
	percpu_counter_add_batch(&c, 1, 10);
	KEXPECT_EQ(percpu_counter_read(&c), 10);
	KEXPECT_EQ(pcc_delta_of(&c, cpu), 0);
	percpu_counter_add_batch(&c, -10, 10); /* |-10| reaches it too */
	KEXPECT_EQ(percpu_counter_read(&c), 0);
	KEXPECT_EQ(pcc_delta_of(&c, cpu), 0);
	/* Beyond 32 bits: straight into the 64-bit count. */
	percpu_counter_add(&c, 1ll << 40);
	KEXPECT_EQ(percpu_counter_read(&c), 1ll << 40);
	KEXPECT_EQ(pcc_delta_of(&c, cpu), 0);
	migrate_enable();
	KEXPECT_EQ(percpu_counter_sum(&c), 1ll << 40);
	percpu_counter_destroy(&c);
}

/* No dynamic per-CPU memory left: -ENOMEM, and a counter that destroy
 * leaves alone; with memory back, init works again. */
#define GRANULES ((int)(PERCPU_DYNAMIC_SIZE / PCPU_MIN_ALLOC_SIZE) + 1)

KTEST(percpu_counter, init_fails_cleanly_when_exhausted)
{
	static void *g[GRANULES];
	struct percpu_counter c;
	int n = 0;

	while (n < GRANULES && (g[n] = __alloc_percpu(PCPU_MIN_ALLOC_SIZE,
						      PCPU_MIN_ALLOC_SIZE)))
		n++;
	KASSERT_LT(n, GRANULES);
	KEXPECT_EQ(percpu_counter_init(&c, 1), -ENOMEM);
	KEXPECT_FALSE(percpu_counter_initialized(&c));
	percpu_counter_destroy(&c);
	while (n > 0)
		free_percpu(g[--n]);
	KASSERT_EQ(percpu_counter_init(&c, 1), 0);
	percpu_counter_inc(&c);
	KEXPECT_EQ(percpu_counter_sum(&c), 2);
	percpu_counter_destroy(&c);
}

/*
 * The exact sum under concurrency. Two adder tasks per CPU, unbound (so
 * preempted by each other and load-balanced), each also moving itself to
 * the next CPU every MOVE_EVERY adds; each adds from hard interrupt
 * context on its own CPU every IRQ_EVERY adds (ktest_in_hardirq()), and
 * meanwhile the test task interrupts the other CPUs with adds of its own
 * (smp_call_function_many()), which land anywhere in the adders' fast
 * paths. Some interrupt adds exceed the batch, so the fold runs in
 * hardirq context too. Every add is counted where it is made; the sum
 * must equal the count exactly.
 */
#define ADDS 4000
#define MOVE_EVERY 250
#define IRQ_EVERY 97

struct storm {
	struct percpu_counter c;
	long irq_adds;          /* hardirq adds made, atomically */
	long irq_amount;        /* their total */
	int done;
	int migrations;
};

static void irq_add(void *arg)
{
	struct storm *s = arg;
	long n = __atomic_add_fetch(&s->irq_adds, 1, __ATOMIC_RELAXED);
	int64_t amount = n % 8 ? 7 : 3 * percpu_counter_batch;

	percpu_counter_add(&s->c, amount);
	__atomic_fetch_add(&s->irq_amount, amount, __ATOMIC_RELAXED);
}

static int64_t task_amount(int i)
{
	return i % 11 - 3;
}

static int adder(void *arg)
{
	struct storm *s = arg;
	int cpu = raw_smp_processor_id();

	for (int i = 0; i < ADDS; i++) {
		percpu_counter_add(&s->c, task_amount(i));
		if (i % IRQ_EVERY == 0)
			ktest_in_hardirq(irq_add, s);
		if (i % MOVE_EVERY == MOVE_EVERY - 1 && num_online_cpus() > 1) {
			int next = (cpu + 1) % (int)num_online_cpus();

			set_cpus_allowed(current, cpumask_of(next));
			set_cpus_allowed(current, cpu_online_mask);
		}
		if (raw_smp_processor_id() != cpu) {
			cpu = raw_smp_processor_id();
			__atomic_fetch_add(&s->migrations, 1, __ATOMIC_RELAXED);
		}
	}
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return 0;
}

KTEST(percpu_counter, sum_exact_under_concurrent_adds)
{
	static struct task_struct *t[2 * NR_CPUS];
	static struct storm s;
	int n = 2 * (int)num_online_cpus(), cpu;
	int64_t per_task = 0, sum, read;

	s = (struct storm){0};
	KASSERT_EQ(percpu_counter_init(&s.c, 1000), 0);
	for (int i = 0; i < ADDS; i++)
		per_task += task_amount(i);
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(adder, &s, "pcc-adder", -1, SCHED_NORMAL, 0,
				   true);
	/* Until every adder is done (the pause only paces the calls). */
	while (load_int(&s.done) < n) {
		smp_call_function_many(cpu_online_mask, irq_add, &s, true);
		msleep(1);
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(ktest_join(t[i]), 0);
	sum = percpu_counter_sum(&s.c);
	KEXPECT_EQ(sum, 1000 + n * per_task + s.irq_amount);
	KEXPECT_GE(s.irq_adds, n * (ADDS / IRQ_EVERY));
	if (num_online_cpus() > 1)
		KEXPECT_GT(s.migrations, 0);
	/* The documented bound: less than batch per CPU with a delta. */
	read = percpu_counter_read(&s.c);
	KEXPECT_LT(abs64(read - sum),
		   (int64_t)percpu_counter_batch * num_online_cpus());
	for_each_possible_cpu(cpu)
		KEXPECT_LT(abs64(pcc_delta_of(&s.c, cpu)), percpu_counter_batch);
	ktest_log("%ld hardirq adds, %d migrations, read %ld of sum %ld\n",
		  s.irq_adds, s.migrations, (long)read, (long)sum);
	percpu_counter_destroy(&s.c);
}

/* One counter that only this test adds to: folding another CPU's delta
 * moves it into the count and leaves the sum alone. */
KTEST(percpu_counter, fold_cpu_moves_delta_into_count)
{
	struct percpu_counter c;
	int d = last_cpu();

	KASSERT_EQ(percpu_counter_init(&c, 100), 0);
	pcc_leave_delta_on(d, &c, 5);
	KEXPECT_EQ(pcc_delta_of(&c, d), 5);
	KEXPECT_EQ(percpu_counter_read(&c), 100);
	percpu_counter_fold_cpu(&c, d);
	KEXPECT_EQ(pcc_delta_of(&c, d), 0);
	KEXPECT_EQ(percpu_counter_read(&c), 105);
	KEXPECT_EQ(percpu_counter_sum(&c), 105);
	percpu_counter_destroy(&c);
}

/* A CPU held quiet (interrupts off under a FIFO 99 task) stands in for a
 * dead one: percpu_counter_cpu_dead() folds every live counter's delta of
 * it, ours among them (and whatever the kernel's own counters had there,
 * which changes none of their sums either). */
static volatile int quiet_in, quiet_release;

static int hold_cpu_quiet(void *arg)
{
	unsigned long flags;

	local_irq_save(flags);
	store_int(&quiet_in, 1);
	ktest_helper_wait(load_int(&quiet_release), POLL_SPIN);
	local_irq_restore(flags);
	return 0;
}

KTEST_CPUS(percpu_counter, cpu_dead_folds_every_counter, 2)
{
	struct percpu_counter a, b, gone;
	int d = last_cpu();
	struct task_struct *t;

	KASSERT_EQ(percpu_counter_init(&a, 0), 0);
	KASSERT_EQ(percpu_counter_init(&b, 10), 0);
	KASSERT_EQ(percpu_counter_init(&gone, 0), 0);
	pcc_leave_delta_on(d, &a, 7);
	pcc_leave_delta_on(d, &b, -3);
	pcc_leave_delta_on(d, &gone, 4);
	percpu_counter_destroy(&gone); /* off the list: not walked */
	store_int(&quiet_in, 0);
	store_int(&quiet_release, 0);
	t = ktest_spawn(hold_cpu_quiet, 0, "pcc-quiet", d, SCHED_FIFO, 99,
			true);
	KASSERT_TRUE(ktest_poll_int(&quiet_in, 1, KTEST_WAIT_MS));
	KEXPECT_EQ(percpu_counter_cpu_dead(d), 0);
	store_int(&quiet_release, 1);
	ktest_join(t);
	KEXPECT_EQ(pcc_delta_of(&a, d), 0);
	KEXPECT_EQ(pcc_delta_of(&b, d), 0);
	KEXPECT_EQ(percpu_counter_read(&a), 7);
	KEXPECT_EQ(percpu_counter_read(&b), 7);
	KEXPECT_EQ(percpu_counter_sum(&a), 7);
	KEXPECT_EQ(percpu_counter_sum(&b), 7);
	percpu_counter_destroy(&a);
	percpu_counter_destroy(&b);
}
