/*
 * Mutual exclusion under contention from every CPU, for each lock type
 * through the lock-kind table, and for rt_mutex between its lock-free
 * fast paths and its slow paths (kernel/locking/; see docs/locks.md).
 *
 * Under TCG on a shared host the vCPUs are overcommitted and a contended
 * FIFO ticket lock can wait for the host to schedule the next waiter's
 * vCPU at each handoff, so the contention tests are short: a small count
 * of sections per worker, never as many as fit in a time. Helper tasks
 * only record (never KASSERT), stop when their count is done, on a flag
 * or when their test ends, and are always joined; the test task checks
 * the record afterwards.
 */
#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "asm/processor.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lock_kind.h"
#include "preempt.h"
#include "rtmutex.h"
#include "rwonce.h"
#include "sched.h"
#include "time.h"

#include "guarded.h"

/* ---- every kind, from every CPU ---- */

#define EXCL_PER_CPU 2            /* workers per CPU (sleeping locks) */
#define EXCL_MAX_WORKERS (2 * 8 + 1)
/* Sections each worker makes: a count, not as many as fit in a sleep
 * (a vCPU the host does not run makes none). */
#define EXCL_ITERS 48

static struct {
	enum lock_kind kind;
	struct guarded data;
	volatile long state_errors;   /* wrong IRQ/preempt state inside */
	volatile long not_owner;      /* inside, the rt_mutex names another */
	struct completion go;
} ex;

struct excl_worker {
	struct task_struct *task;
	int cpu;
	long count;
	long wrong_cpu;
};

static struct excl_worker exw[EXCL_MAX_WORKERS];

static void excl_count(volatile long *errors)
{
	__atomic_fetch_add(errors, 1, __ATOMIC_RELAXED);
}

/* One section in the given form: inside, a worker (which has nothing
 * disabled of its own) has exactly the lock's context and is its owner;
 * a sleeping lock yields now and then inside, so that the others on this
 * CPU queue up. */
static void excl_section(struct excl_worker *w, enum lock_form form, int i)
{
	struct any_lock h = ANY_LOCK_FORM(ex.kind, lock_pool(ex.kind, 0), form);
	const struct lock_ctx *held = any_lock_held_ctx(&h);
	struct rt_mutex *rtm = any_lock_rtmutex(&h);
	struct lock_ctx now;

	any_lock_acquire(&h);
	guarded_enter(&ex.data);
	now = lock_ctx_now();
	if (now.preempt != held->preempt || now.migrate != held->migrate ||
	    now.irqs_off != held->irqs_off)
		excl_count(&ex.state_errors);
	if (raw_smp_processor_id() != w->cpu)
		w->wrong_cpu++;
	if (rtm && rt_mutex_owner(rtm) != current)
		excl_count(&ex.not_owner);
	guarded_update(&ex.data, 20, 0);
	if (any_lock_ops(&h)->sleeps && i % 16 == 0)
		yield();
	guarded_leave(&ex.data);
	any_lock_release(&h);
	w->count++;
}

static int excl_worker_fn(void *arg)
{
	wait_for_completion(&ex.go);
	for (int i = 0; i < EXCL_ITERS; i++)
		excl_section(arg, i % NR_LOCK_FORMS, i);
	return 0;
}

static void check_mutual_exclusion(enum lock_kind kind)
{
	const struct lock_kind_ops *ops = &lock_kinds[kind];
	int n = 0, cpu;
	long total = 0;
	uint64_t t0;

	ops->init(lock_pool(kind, 0), 0);
	ex.kind = kind;
	guarded_reset(&ex.data);
	ex.state_errors = ex.not_owner = 0;
	init_completion(&ex.go);
	/* Two per CPU where a holder can be preempted (they then contend on
	 * one CPU too); one where the lock disables preemption (the second
	 * could only run when the first is outside: it adds nothing but
	 * handoffs, which under TCG cost milliseconds each). */
	for_each_online_cpu(cpu)
		for (int k = 0; k < (ops->sleeps ? EXCL_PER_CPU : 1) &&
				n < EXCL_MAX_WORKERS; k++)
			exw[n++] = (struct excl_worker){.cpu = cpu};
	for (int i = 0; i < n; i++)
		exw[i].task = ktest_spawn(excl_worker_fn, &exw[i], "excl",
					  exw[i].cpu, SCHED_NORMAL, 0, true);
	t0 = ktime_get_ns();
	complete_all(&ex.go);
	for (int i = 0; i < n; i++)
		ktest_join(exw[i].task);
	for (int i = 0; i < n; i++) {
		total += exw[i].count;
		KEXPECT_EQ(exw[i].wrong_cpu, 0);
	}
	ktest_log("%s: %d workers, %ld acquisitions in %lu ms", ops->name, n,
		  total, (unsigned long)(ns_since(t0) / NS_PER_MS));
	KEXPECT_GUARDED(&ex.data, total);
	KEXPECT_EQ(ex.state_errors, 0);
	KEXPECT_EQ(ex.not_owner, 0);
	KEXPECT_FALSE(ops->is_locked(lock_pool(kind, 0)));
}

/* Workers on every CPU take the lock in turn in all its forms; nobody
 * ever finds another inside (nor, for the rt_mutex-based locks, an owner
 * word naming someone else), and the non-atomic counter counts every
 * acquisition exactly. */
KTEST(locks, raw_spinlock_mutual_exclusion)
{
	check_mutual_exclusion(LOCK_RAW);
}

KTEST(locks, spinlock_mutual_exclusion)
{
	check_mutual_exclusion(LOCK_SPIN);
}

KTEST(locks, rt_mutex_mutual_exclusion)
{
	check_mutual_exclusion(LOCK_RTMUTEX);
}

KTEST(locks, mutex_mutual_exclusion)
{
	check_mutual_exclusion(LOCK_MUTEX);
}

/*
 * The rt_mutex fast paths (one compare-and-swap to lock or unlock) take no
 * lock, while the slow paths change the owner word under the chain lock.
 * Each slow-path change must leave no moment in which a fast path can
 * succeed and then be overwritten: here tasks that block (so that every
 * unlock takes the slow path, handing over to a sleeping waiter) run
 * against tasks that take the lock only by rt_mutex_trylock() in a tight
 * loop (the fast path, all the time). Inside, the owner word must name the
 * task inside, nobody may find another inside, and the counter is exact.
 * The race runs until the blockers have made RACE_SECTIONS sections
 * together, a count (a blocker's vCPU the host does not run makes none).
 */
#define RACE_SECTIONS 2000
#define RACE_BLOCKERS 3
#define RACE_TRYLOCKERS 3

static struct {
	struct rt_mutex lock;
	struct guarded data;
	volatile int stop;
	volatile long not_owner;
	long count[RACE_BLOCKERS + RACE_TRYLOCKERS];
	struct completion go;
} race;

static void race_section(int me)
{
	guarded_enter(&race.data);
	if (rt_mutex_owner(&race.lock) != current)
		excl_count(&race.not_owner);
	guarded_update(&race.data, 10, 0);
	guarded_leave(&race.data);
	WRITE_ONCE(race.count[me], race.count[me] + 1); /* the test reads */
}

static int race_blocker(void *arg)
{
	int me = (int)(long)arg;
	unsigned long test = ktest_number();

	wait_for_completion(&race.go);
	for (long i = 0; !load_int(&race.stop); i++) {
		if (i % 256 == 0 && ktest_ended(test))
			break;
		rt_mutex_lock(&race.lock);
		race_section(me);
		if (i % 4 == 0)
			yield(); /* let the others queue up behind us */
		rt_mutex_unlock(&race.lock);
	}
	return 0;
}

static int race_trylocker(void *arg)
{
	int me = (int)(long)arg;
	unsigned long test = ktest_number();

	wait_for_completion(&race.go);
	for (long i = 0; !load_int(&race.stop); i++) {
		if (i % 4096 == 0 && ktest_ended(test))
			break;
		/* Strike the moment the word reads free. */
		while (__atomic_load_n(&race.lock.owner, __ATOMIC_RELAXED) &&
		       !load_int(&race.stop))
			;
		if (!rt_mutex_trylock(&race.lock))
			continue;
		race_section(me);
		rt_mutex_unlock(&race.lock);
		for (int j = 0; j < 50; j++)
			cpu_relax(); /* let the blockers have it too */
	}
	return 0;
}

/* Sections the blockers have made so far. */
static long blocker_sections(void)
{
	long n = 0;

	for (int i = 0; i < RACE_BLOCKERS; i++)
		n += READ_ONCE(race.count[i]);
	return n;
}

KTEST_CPUS(locks, rt_mutex_fast_paths_race_slow_paths, 2)
{
	static struct task_struct *t[RACE_BLOCKERS + RACE_TRYLOCKERS];
	int n = 0, cpu;
	long total = 0, tried = 0;

	rt_mutex_init(&race.lock);
	guarded_reset(&race.data);
	race.stop = 0;
	race.not_owner = 0;
	init_completion(&race.go);
	/* Blockers share CPU 0, so that one always waits asleep while
	 * another holds the lock (each unlock is a slow one); a trylocker
	 * spins on each other CPU (up to three). */
	for (int i = 0; i < RACE_BLOCKERS; i++, n++) {
		race.count[n] = 0;
		t[n] = ktest_spawn(race_blocker, (void *)(long)n, "blocker", 0,
				   SCHED_NORMAL, 0, true);
	}
	for_each_online_cpu(cpu) {
		if (cpu == 0 || n >= RACE_BLOCKERS + RACE_TRYLOCKERS)
			continue;
		race.count[n] = 0;
		t[n] = ktest_spawn(race_trylocker, (void *)(long)n, "trylocker",
				   cpu, SCHED_NORMAL, 0, true);
		n++;
	}
	complete_all(&race.go);
	KEXPECT_TRUE(ktest_poll_until(blocker_sections() >= RACE_SECTIONS,
				      KTEST_WAIT_MS, POLL_SLEEP));
	store_int(&race.stop, 1);
	for (int i = 0; i < n; i++)
		ktest_join(t[i]);
	for (int i = 0; i < n; i++) {
		total += race.count[i];
		if (i >= RACE_BLOCKERS)
			tried += race.count[i];
	}
	ktest_log("%d tasks: %ld sections, %ld of them by trylock; owner word "
		  "wrong inside %ld times, %ld found another inside", n, total,
		  tried, race.not_owner, race.data.violations);
	KEXPECT_EQ(race.not_owner, 0);
	KEXPECT_GUARDED(&race.data, total);
	KEXPECT_FALSE(rt_mutex_is_locked(&race.lock));
}
