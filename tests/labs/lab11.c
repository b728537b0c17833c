/*
 * Lab 11's symptoms (docs/labs/lab11.md): three things users of this
 * kernel reported, each as a test that fails on the starter. Each test
 * exercises a mechanism through its public interface only and says what
 * it expects; it does not say where the fault is.
 */
#include "cpumask.h"
#include "kmalloc.h"
#include "ktest.h"
#include "ktest_util.h"
#include "mm/defer_free.h"
#include "percpu_alloc.h"
#include "percpu_counter.h"
#include "sched.h"

/* ---- a counter that interrupts add to ---- */

#define ADDS 400
#define BATCH 4

static struct percpu_counter irq_counter;

static void add_in_hardirq(void *arg)
{
	percpu_counter_add_batch(&irq_counter, BATCH, BATCH); /* folds */
}

/* A task and hard interrupts of its CPU add to one counter, with a
 * small batch, so that both often move the CPU's delta into the shared
 * count. The sum is exact, and the validator has nothing to say. */
KTEST(lab11, counter_exact_with_interrupt_adds)
{
	long want = 0;

	KASSERT_EQ(percpu_counter_init(&irq_counter, 0), 0);
	for (int i = 0; i < ADDS; i++) { /* the test task stays on CPU 0 */
		percpu_counter_add_batch(&irq_counter, 1, BATCH);
		want++;
		if (i % 10 == 0) {
			ktest_in_hardirq(add_in_hardirq, 0);
			want += BATCH;
		}
	}
	KEXPECT_EQ(percpu_counter_sum(&irq_counter), want);
	percpu_counter_destroy(&irq_counter);
}

/* ---- per-CPU memory after a wrong free ---- */

static volatile int alloc_done;

static int alloc_and_free(void *arg)
{
	int *p = alloc_percpu(int);

	free_percpu(p);
	store_int(&alloc_done, 1);
	return p ? 0 : 1;
}

/* A free of something alloc_percpu() never returned is refused and
 * counted, and per-CPU memory keeps working, for this task and for the
 * next one. */
KTEST(lab11, percpu_free_refused_then_alloc)
{
	struct percpu_alloc_info before, after;
	int *p = alloc_percpu(int);
	struct task_struct *t;

	KASSERT_NE(p, 0);
	percpu_alloc_info(&before);
	free_percpu((char *)p + 1);
	percpu_alloc_info(&after);
	KEXPECT_EQ(after.foreign_frees, before.foreign_frees + 1);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
	free_percpu(p);
	alloc_done = 0;
	t = ktest_spawn(alloc_and_free, 0, "lab11-alloc", -1, SCHED_NORMAL, 0,
			true);
	/* Bounded: the kernel under test may never let it finish (and
	 * then it is not joined). */
	KEXPECT_TRUE(ktest_poll_int(&alloc_done, 1, KTEST_WAIT_MS));
	if (load_int(&alloc_done))
		KEXPECT_EQ(ktest_join(t), 0);
}

/* ---- frees deferred from interrupts ---- */

#define DEFERS 8
#define ROUNDS 20

static void *deferred_obj[DEFERS];

static void defer_in_hardirq(void *arg)
{
	for (int i = 0; i < DEFERS; i++)
		defer_free(deferred_obj[i], 0);
}

/* Hard interrupts of this CPU leave frees for later, and this task's
 * allocator calls make them: every object is freed, once. */
KTEST(lab11, deferred_frees_from_interrupts)
{
	long in_use = kmalloc_objects_in_use(0);
	unsigned long bad = kmalloc_bad_frees();

	for (int round = 0; round < ROUNDS; round++) { /* on CPU 0 */
		for (int i = 0; i < DEFERS; i++)
			KASSERT_NE(deferred_obj[i] = kmalloc(kmalloc_class_size(0)), 0);
		ktest_in_hardirq(defer_in_hardirq, 0);
		defer_free_flush();
	}
	KEXPECT_EQ(kmalloc_objects_in_use(0), in_use);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}
