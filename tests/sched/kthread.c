/*
 * The life of a kernel thread (kernel/sched/kthread.c): created, run,
 * joined for its result or detached and reaped, and every page it took
 * given back.
 */
#include "ktest_util.h"
#include "page_alloc.h"
#include "drain.h"
#include "kmalloc.h"
#include "wait.h"

static int return_arg(void *arg)
{
	return (int)(long)arg;
}

static int exit_with_arg(void *arg)
{
	kthread_exit((int)(long)arg);
}

/* kthread_join returns what the thread returned, or passed to
 * kthread_exit, negative values included. */
KTEST(sched, kthread_join_returns_result)
{
	static const int values[] = {0, 1, 42, -1, -12345, 0x7fffffff,
				     -0x7fffffff - 1};

	for (unsigned i = 0; i < ARRAY_SIZE(values); i++) {
		void *arg = (void *)(long)values[i];
		struct task_struct *r = kthread_run(return_arg, arg, "ret");
		struct task_struct *e = kthread_run(exit_with_arg, arg, "exit");

		KASSERT_TRUE(r && e);
		KEXPECT_EQ(kthread_join(r), values[i]);
		KEXPECT_EQ(kthread_join(e), values[i]);
	}
}

#define MANY_THREADS 64

static volatile long many_ran;

static int count_and_return(void *arg)
{
	__atomic_fetch_add(&many_ran, 1, __ATOMIC_RELAXED);
	msleep(1 + (long)arg % 3); /* some are still running when joined */
	return 1000 - 7 * (int)(long)arg;
}

/* Many threads started at once all run and are all joined, in any order,
 * each giving its own result. */
KTEST(sched, kthread_run_many_all_joined)
{
	static struct task_struct *t[MANY_THREADS];
	int created = 0;

	many_ran = 0;
	for (int i = 0; i < MANY_THREADS; i++) {
		t[i] = kthread_run(count_and_return, (void *)(long)i, "many");
		created += t[i] != 0;
	}
	KEXPECT_EQ(created, MANY_THREADS);
	for (int i = MANY_THREADS - 1; i >= 0; i--) /* newest first */
		if (t[i])
			KEXPECT_EQ(kthread_join(t[i]), 1000 - 7 * i);
	KEXPECT_EQ(load_long(&many_ran), created);
}

#define CYCLES 10000

static int trivial(void *arg)
{
	__atomic_fetch_add((long *)arg, 1, __ATOMIC_RELAXED);
	return 7;
}

/*
 * Creating and joining a thread gives back every page it took (its stack,
 * its task structure): after a warm-up cycle (page tables), the free page
 * count is exactly where it was after 10,000 cycles. Freed stacks come back
 * in batches (kernel/mm/stack.c), and freed objects and pages wait in
 * per-CPU caches: both counts are taken after mm_drain_all().
 *
 * Most threads are bound to this CPU: one that is not goes to an idle CPU,
 * and waking halted vCPUs (twice a cycle) costs the host up to milliseconds
 * under TCG. Every 50th is a plain kthread_run(), placed by the scheduler.
 */
#define UNBOUND_EVERY 50

static struct task_struct *cycle_thread(int i, long *ran, const char *name)
{
	if (i % UNBOUND_EVERY == 0)
		return kthread_run(trivial, ran, name);
	return ktest_spawn_on(raw_smp_processor_id(), trivial, ran, name);
}

KTEST(sched, create_exit_cycles_free_every_page)
{
	long ran = 0;
	int bad = 0, unbound = 0;
	size_t before, after;
	struct task_struct *t;
	uint64_t t0;

	for (int i = 0; i < 2; i++) {
		t = cycle_thread(i, &ran, "warm-up");
		KASSERT_TRUE(t);
		KEXPECT_EQ(kthread_join(t), 7);
	}
	mm_drain_all();
	before = page_free_count();
	t0 = ktime_get_ns();
	for (int i = 0; i < CYCLES; i++) {
		unbound += i % UNBOUND_EVERY == 0;
		t = cycle_thread(i, &ran, "cycle");
		if (!t) {
			ktest_fail_msg(__FILE__, __LINE__,
				       "thread creation failed at cycle %d", i);
			break;
		}
		bad += kthread_join(t) != 7;
	}
	mm_drain_all();
	after = page_free_count();
	ktest_log("%d create/exit cycles (%d not bound) in %lu ms; free pages "
		  "%lu before, %lu after", CYCLES, unbound,
		  (unsigned long)(ns_since(t0) / NS_PER_MS),
		  (unsigned long)before, (unsigned long)after);
	KEXPECT_EQ(bad, 0);
	KEXPECT_EQ(ran, CYCLES + 2);
	KEXPECT_EQ(after, before);
}

static int count_and_exit(void *arg)
{
	__atomic_fetch_add((volatile int *)arg, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Detached tasks are freed without a join: their own last reference
 * frees them, a grace period later, and every page comes back. */
KTEST(sched, detached_tasks_reaped)
{
	static volatile int ran;
	size_t before;
	uint64_t t0;
	int i;

	mm_drain_all();
	before = page_free_count();
	ran = 0;
	for (i = 0; i < 50; i++) {
		struct task_struct *t = kthread_run(count_and_exit, (void *)&ran,
					     "detached");

		KASSERT_TRUE(t);
		kthread_detach(t);
	}
	/* The reaper runs when it can: waited for, not timed. */
	t0 = ktime_get_ns();
	for (i = 0; (load_int(&ran) < 50 || page_free_count() != before) &&
		    ns_since(t0) < KTEST_WAIT_MS * NS_PER_MS;
	     i++) {
		msleep(10);
		mm_drain_all();
	}
	ktest_log("50 detached tasks ran; free pages %lu before, %lu after "
		  "%d polls", (unsigned long)before,
		  (unsigned long)page_free_count(), i);
	KEXPECT_EQ(ran, 50);
	KEXPECT_EQ(page_free_count(), before);
}

/*
 * More tasks alive at once than any test before (each waits for the
 * others to exist), then joined: every task struct goes back to kmalloc,
 * so the objects in use return exactly to their figure before, not to a
 * new high-water mark of cached structs. The second round also counts
 * free pages: the first one may have taken page tables for the new stack
 * slots, which stay.
 */
#define ALIVE_AT_ONCE 256

static DECLARE_WAIT_QUEUE_HEAD(alive_wq);
static volatile int alive_stop;

static int wait_for_stop(void *arg)
{
	wait_event(alive_wq, load_int(&alive_stop));
	return 0;
}

/* Start ALIVE_AT_ONCE tasks, then let them end and join them. */
static void alive_round(void)
{
	static struct task_struct *t[ALIVE_AT_ONCE];
	int created = 0;

	store_int(&alive_stop, 0);
	for (int i = 0; i < ALIVE_AT_ONCE; i++) {
		t[i] = kthread_run(wait_for_stop, 0, "alive");
		created += t[i] != 0;
	}
	store_int(&alive_stop, 1);
	wake_up(&alive_wq);
	for (int i = 0; i < ALIVE_AT_ONCE; i++)
		if (t[i])
			KEXPECT_EQ(kthread_join(t[i]), 0);
	mm_drain_all();
	KEXPECT_EQ(created, ALIVE_AT_ONCE);
}

KTEST(sched, task_structs_freed)
{
	long in_use[KMALLOC_NR_CLASSES + 1];
	size_t before;

	for (int round = 0; round < 2; round++) {
		mm_drain_all();
		before = page_free_count();
		for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++)
			in_use[cls] = kmalloc_objects_in_use(cls);
		alive_round();
		for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++)
			KEXPECT_EQ(kmalloc_objects_in_use(cls), in_use[cls]);
		if (round == 1)
			KEXPECT_EQ(page_free_count(), before);
	}
}
