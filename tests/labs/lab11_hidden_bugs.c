/*
 * Lab 11's hidden checks (docs/labs/lab11.md): each mechanism the
 * symptoms touched, exercised further than the visible tests, so that a
 * fix must keep it working (deleting the code that had the bug fails
 * here): a counter with interrupt adds on every CPU at once; per-CPU
 * memory through every kind of refused free, from two tasks at once;
 * deferred frees of objects and pages from interrupts of every CPU,
 * every one made once (the objects counted back, no page freed twice).
 */
#include "atomic.h"
#include "cpumask.h"
#include "kmalloc.h"
#include "ktest.h"
#include "ktest_util.h"
#include "mm/defer_free.h"
#include "page_alloc.h"
#include "percpu_alloc.h"
#include "percpu_counter.h"
#include "sched.h"
#include "smp.h"

/* ---- the counter, on every CPU ---- */

#define ADDERS_ADDS 600
#define BATCH 4

static struct {
	struct percpu_counter c;
	atomic_long_t irq_adds;
} ctr;

static void irq_add(void *arg)
{
	percpu_counter_add_batch(&ctr.c, BATCH, BATCH);
	atomic_long_inc(&ctr.irq_adds);
}

static int adder(void *arg)
{
	for (int i = 0; i < ADDERS_ADDS; i++) {
		percpu_counter_add_batch(&ctr.c, (i % 3) - 1 + 2, BATCH);
		if (i % 25 == 0)
			ktest_in_hardirq(irq_add, 0);
	}
	return 0;
}

/* A task per CPU adds (1, 2 and 3 in turn) while every CPU's interrupts
 * add too, some sent from the test task. */
KTEST_CPUS(lab11_hidden, counter_exact_on_every_cpu, 2)
{
	struct task_struct *t[NR_CPUS];
	int n = 0, cpu;
	long want;

	atomic_long_set(&ctr.irq_adds, 0);
	KASSERT_EQ(percpu_counter_init(&ctr.c, 0), 0);
	for_each_online_cpu(cpu)
		t[n++] = ktest_spawn(adder, 0, "lab11-adder", cpu, SCHED_NORMAL,
				     0, true);
	for (int i = 0; i < 20; i++)
		smp_call_function_many(cpu_online_mask, irq_add, 0, true);
	ktest_join_all(t, n);
	want = (long)n * (ADDERS_ADDS / 3) * 6 +
	       atomic_long_read(&ctr.irq_adds) * BATCH;
	KEXPECT_EQ(percpu_counter_sum(&ctr.c), want);
	percpu_counter_destroy(&ctr.c);
}

/* ---- per-CPU memory through refused frees ---- */

static char static_copy;

static int misuse(void *arg)
{
	int bad = 0;

	for (int i = 0; i < 10; i++) {
		char *p = __alloc_percpu(16, 8), *q = __alloc_percpu(32, 8);

		if (!p || !q)
			bad++;
		free_percpu(p);
		free_percpu(p);                    /* double */
		free_percpu(q + 8);                /* inside */
		free_percpu(per_cpu_ptr(q, 0));    /* a CPU's copy */
		free_percpu(&static_copy);         /* not dynamic */
		free_percpu(q);
	}
	return bad;
}

/* Two tasks (on two CPUs when there are two) misuse free_percpu()
 * between good allocations and frees, 40 misuses each, and the region
 * is as it was. Each is refused and counted, as a double free or a
 * foreign one; which of the two can depend on the other task (a unit
 * freed by one may be inside the other's new allocation by the time of
 * the second free), so their sum is what is checked. */
KTEST(lab11_hidden, percpu_free_misuse_keeps_memory)
{
	struct percpu_alloc_info before, after;
	struct task_struct *t[2];

	percpu_alloc_info(&before);
	t[0] = ktest_spawn(misuse, 0, "lab11-misuse", 0, SCHED_NORMAL, 0, true);
	t[1] = ktest_spawn(misuse, 0, "lab11-misuse", last_cpu(), SCHED_NORMAL,
			   0, true);
	KEXPECT_EQ(ktest_join(t[0]), 0);
	KEXPECT_EQ(ktest_join(t[1]), 0);
	percpu_alloc_info(&after);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
	KEXPECT_EQ(after.double_frees + after.foreign_frees,
		   before.double_frees + before.foreign_frees + 80);
}

/* ---- deferred frees of objects and pages, on every CPU ---- */

#define OBJS 6
#define PAGES 2
#define ROUNDS 10

struct deferred {
	void *obj[OBJS], *page[PAGES];
};

static void defer_all(void *arg)
{
	struct deferred *d = arg;

	for (int i = 0; i < OBJS; i++)
		defer_free(d->obj[i], 0);
	for (int i = 0; i < PAGES; i++)
		defer_free(d->page[i], 1);
}

static int deferrer(void *arg)
{
	struct deferred d;
	int bad = 0;

	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < OBJS; i++)
			bad += !(d.obj[i] = kmalloc(kmalloc_class_size(1)));
		for (int i = 0; i < PAGES; i++)
			bad += !(d.page[i] = page_alloc());
		if (bad)
			return bad;
		ktest_in_hardirq(defer_all, &d);
		defer_free_flush();
	}
	return 0;
}

/* Every CPU's interrupts defer frees of objects and pages, its task
 * makes them: all made, once, nothing left waiting. */
KTEST_CPUS(lab11_hidden, deferred_frees_on_every_cpu, 2)
{
	long in_use = kmalloc_objects_in_use(1);
	unsigned long bad = kmalloc_bad_frees() + page_alloc_bad_frees();
	unsigned long deferred = defer_free_count();
	struct task_struct *t[NR_CPUS];
	int n = 0, cpu;

	for_each_online_cpu(cpu)
		t[n++] = ktest_spawn(deferrer, 0, "lab11-defer", cpu,
				     SCHED_NORMAL, 0, true);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(ktest_join(t[i]), 0);
	KEXPECT_EQ(defer_free_count() - deferred,
		   (unsigned long)n * ROUNDS * (OBJS + PAGES));
	KEXPECT_EQ(kmalloc_objects_in_use(1), in_use);
	KEXPECT_EQ(kmalloc_bad_frees() + page_alloc_bad_frees(), bad);
}
