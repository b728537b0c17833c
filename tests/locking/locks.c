/*
 * Tests of the locks in both worlds (kernel/locking/spinlock.h, arch_spinlock.h,
 * rtmutex.c, mutex.h, local_lock.h; see docs/locks.md): mutual exclusion
 * under contention from every CPU for each lock type (and, for rt_mutex,
 * between its lock-free fast paths and its slow paths), each CPU's copy
 * of a local_lock_t, and trylock semantics. The interrupt state of the
 * _irq/_irqsave forms is in locks_irq.c, the ticket lock's fairness in
 * locks_fair.c, priority inheritance in pi.c, what the RT switch changes
 * in locks_rt.c.
 *
 * Under TCG on a shared host the vCPUs are overcommitted and a contended
 * FIFO ticket lock can wait for the host to schedule the next waiter's
 * vCPU at each handoff, so the contention tests are short: time-bounded
 * loops with a small minimum and a cap on acquisitions. Helper tasks only
 * record (never KASSERT), stop on a flag or on a deadline of their own, and
 * are always joined; the test task checks the record afterwards.
 */
#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "asm/processor.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)

/* ---- the four global lock types, through the lock-kind table ---- */

static raw_spinlock_t the_raw;
static spinlock_t the_spin;
static struct rt_mutex the_rtmutex;
static struct mutex the_mutex;

static void *const the_lock[NR_LOCK_KINDS] = {
	[LOCK_RAW] = &the_raw, [LOCK_SPIN] = &the_spin,
	[LOCK_RTMUTEX] = &the_rtmutex, [LOCK_MUTEX] = &the_mutex};

static void reset_locks(void)
{
	raw_spin_lock_init(&the_raw);
	spin_lock_init(&the_spin);
	rt_mutex_init(&the_rtmutex);
	mutex_init(&the_mutex);
}

/* This file's lock of kind k, to be taken in the given form. */
static struct any_lock the(enum lock_kind k, enum lock_form form)
{
	return (struct any_lock){.kind = k, .lock = the_lock[k], .form = form};
}

static bool trylock_it(enum lock_kind k)
{
	return lock_kinds[k].trylock(the_lock[k]);
}

static bool is_locked(enum lock_kind k)
{
	return lock_kinds[k].is_locked(the_lock[k]);
}

static struct rt_mutex *rtmutex_of(enum lock_kind k)
{
	struct any_lock l = the(k, LOCK_PLAIN);

	return any_lock_rtmutex(&l);
}

/* Whether IRQs must be off inside the given form. */
static bool irqs_off_inside(enum lock_kind k, enum lock_form form)
{
	return form != LOCK_PLAIN && lock_kinds[k].irq_forms_disable_irqs;
}

/* ---- mutual exclusion ---- */

#define EXCL_PER_CPU 2            /* workers bound to each CPU (sleeping locks) */
#define EXCL_MAX_WORKERS (2 * 8 + 1)
#define EXCL_MIN_ITERS 25         /* each worker, whatever the clock says */
#define EXCL_TOTAL_CAP 4000       /* acquisitions, all workers together */
#define EXCL_RUN_MS 150

static struct {
	enum lock_kind kind;
	volatile long counter;        /* load, some work, store */
	volatile long a, b;           /* equal outside critical sections */
	volatile int inside;          /* 0 on entry, 1 while held */
	volatile long violations;     /* entries that found the above broken */
	volatile long state_errors;   /* wrong IRQ/preempt state inside */
	volatile long not_owner;      /* inside, the rt_mutex names another */
	volatile int stop;
	int max_iters;
	struct completion go;
} ex;

struct excl_worker {
	struct task *task;
	int cpu;
	long count;
	long wrong_cpu;
};

static struct excl_worker exw[EXCL_MAX_WORKERS];

static void excl_note_violation(void)
{
	__atomic_fetch_add(&ex.violations, 1, __ATOMIC_RELAXED);
}

static int excl_worker_fn(void *arg)
{
	struct excl_worker *w = arg;
	bool sleeps = lock_kinds[ex.kind].sleeps;
	struct rt_mutex *rtm = rtmutex_of(ex.kind);
	uint64_t t0;

	wait_for_completion(&ex.go);
	t0 = ktime_get_ns();
	for (int i = 0; i < ex.max_iters; i++) {
		struct any_lock h = the(ex.kind, i % NR_LOCK_FORMS);
		long v;

		if (i >= EXCL_MIN_ITERS && load_int(&ex.stop))
			break;
		if (ns_since(t0) > HELPER_MAX_NS)
			break;
		any_lock_acquire(&h);
		if (ex.inside)
			excl_note_violation();
		ex.inside = 1;
		if (ex.a != ex.b)
			excl_note_violation();
		ex.a = ex.a + 1;
		if (irqs_disabled() != irqs_off_inside(ex.kind, h.form) ||
		    (preempt_count() > 0) != !lock_kinds[ex.kind].sleeps)
			__atomic_fetch_add(&ex.state_errors, 1,
					   __ATOMIC_RELAXED);
		if (raw_smp_processor_id() != w->cpu)
			w->wrong_cpu++;
		if (rtm && rt_mutex_owner(rtm) != current)
			__atomic_fetch_add(&ex.not_owner, 1, __ATOMIC_RELAXED);
		v = ex.counter;
		for (int j = 0; j < 20; j++)
			cpu_relax();
		/* A sleeping lock: make the others on this CPU queue up. */
		if (sleeps && i % 16 == 0)
			yield();
		ex.counter = v + 1;
		ex.b = ex.b + 1;
		if (!ex.inside)
			excl_note_violation();
		ex.inside = 0;
		any_lock_release(&h);
		w->count++;
	}
	return 0;
}

static void check_mutual_exclusion(enum lock_kind kind)
{
	const struct lock_kind_ops *ops = &lock_kinds[kind];
	int n = 0, cpu;
	long total = 0;
	uint64_t t0;

	reset_locks();
	ex.kind = kind;
	ex.counter = ex.a = ex.b = 0;
	ex.inside = 0;
	ex.violations = ex.state_errors = ex.not_owner = 0;
	ex.stop = 0;
	init_completion(&ex.go);
	/* Two per CPU where a holder can be preempted (they then contend on
	 * one CPU too); one where the lock disables preemption (the second
	 * could only run when the first is outside: it adds nothing but
	 * handoffs, which under TCG cost milliseconds each). */
	for_each_online_cpu(cpu)
		for (int k = 0; k < (ops->sleeps ? EXCL_PER_CPU : 1) &&
				n < EXCL_MAX_WORKERS; k++)
			exw[n++] = (struct excl_worker){.cpu = cpu};
	ex.max_iters = EXCL_TOTAL_CAP / n;
	if (ex.max_iters < EXCL_MIN_ITERS)
		ex.max_iters = EXCL_MIN_ITERS;
	for (int i = 0; i < n; i++)
		exw[i].task = ktest_spawn(excl_worker_fn, &exw[i], "excl",
					  exw[i].cpu, SCHED_NORMAL, 0, true);
	t0 = ktime_get_ns();
	complete_all(&ex.go);
	msleep(EXCL_RUN_MS);
	store_int(&ex.stop, 1);
	for (int i = 0; i < n; i++)
		ktest_join(exw[i].task);
	for (int i = 0; i < n; i++) {
		total += exw[i].count;
		KEXPECT_EQ(exw[i].wrong_cpu, 0);
		if (exw[i].task)
			KEXPECT_GE(exw[i].count, EXCL_MIN_ITERS);
	}
	ktest_log("%s: %d workers, %ld acquisitions in %lu ms", ops->name, n,
		  total, (unsigned long)(ns_since(t0) / NS_PER_MS));
	KEXPECT_EQ(ex.violations, 0);
	KEXPECT_EQ(ex.state_errors, 0);
	KEXPECT_EQ(ex.not_owner, 0);
	KEXPECT_EQ(ex.counter, total);
	KEXPECT_EQ(ex.a, total);
	KEXPECT_EQ(ex.b, total);
	KEXPECT_EQ(ex.inside, 0);
	KEXPECT_FALSE(is_locked(kind));
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
 */
#define RACE_RUN_MS 300
#define RACE_BLOCKERS 3
#define RACE_TRYLOCKERS 3

static struct {
	struct rt_mutex lock;
	volatile int stop, inside;
	volatile long counter, violations, not_owner;
	long count[RACE_BLOCKERS + RACE_TRYLOCKERS];
	struct completion go;
} race;

static void race_section(int me)
{
	long v;

	if (race.inside)
		__atomic_fetch_add(&race.violations, 1, __ATOMIC_RELAXED);
	race.inside = 1;
	if (rt_mutex_owner(&race.lock) != current)
		__atomic_fetch_add(&race.not_owner, 1, __ATOMIC_RELAXED);
	v = race.counter;
	for (int j = 0; j < 10; j++)
		cpu_relax();
	race.counter = v + 1;
	race.inside = 0;
	race.count[me]++;
}

static int race_blocker(void *arg)
{
	int me = (int)(long)arg;
	uint64_t t0;

	wait_for_completion(&race.go);
	t0 = ktime_get_ns();
	for (long i = 0; !load_int(&race.stop); i++) {
		if (i % 256 == 0 && ns_since(t0) > HELPER_MAX_NS)
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
	uint64_t t0;

	wait_for_completion(&race.go);
	t0 = ktime_get_ns();
	for (long i = 0; !load_int(&race.stop); i++) {
		if (i % 4096 == 0 && ns_since(t0) > HELPER_MAX_NS)
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

KTEST_CPUS(locks, rt_mutex_fast_paths_race_slow_paths, 2)
{
	static struct task *t[RACE_BLOCKERS + RACE_TRYLOCKERS];
	int n = 0, cpu;
	long total = 0, tried = 0;

	rt_mutex_init(&race.lock);
	race.stop = race.inside = 0;
	race.counter = race.violations = race.not_owner = 0;
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
	msleep(RACE_RUN_MS);
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
		  tried, race.not_owner, race.violations);
	KEXPECT_EQ(race.not_owner, 0);
	KEXPECT_EQ(race.violations, 0);
	KEXPECT_EQ(race.counter, total);
	KEXPECT_GT(total - tried, 0);
	KEXPECT_FALSE(rt_mutex_is_locked(&race.lock));
}

/* ---- local_lock_t: each CPU's copy consistent ---- */

struct ll_data {
	local_lock_t lock;
	volatile long counter;
	volatile long a, b;
	volatile int inside;
	volatile long violations;
	volatile long state_errors;
};

static DEFINE_PER_CPU(struct ll_data, ll_pcp) = {.lock = INIT_LOCAL_LOCK(lock)};

/* Increments each worker made, by the CPU whose copy it incremented. */
static long ll_counts[EXCL_MAX_WORKERS][NR_CPUS];

static struct {
	volatile int stop;
	int max_iters;
	struct completion go;
	volatile long late_moves;     /* roamer not moved at its unlock */
	volatile long moved_inside;   /* roamer changed CPU while holding */
	long migrations;              /* roamer's affinity changes */
} ll;

struct ll_worker {
	struct task *task;
	int cpu;                      /* -1: the roamer */
	int idx;
	long count;
	long wrong_cpu;
};

static struct ll_worker llw[EXCL_MAX_WORKERS];

static void ll_critical(struct ll_data *p, int variant)
{
	long v;

	if (p->inside)
		p->violations++;
	p->inside = 1;
	if (p->a != p->b)
		p->violations++;
	p->a = p->a + 1;
	if (irqs_disabled() != (variant == 1 && !RT_WORLD) ||
	    (!RT_WORLD && variant == 0 && preempt_count() == 0) ||
	    (RT_WORLD && (current->migration_disabled == 0 ||
			  preempt_count() != 0)))
		p->state_errors++;
	v = p->counter;
	for (int j = 0; j < 20; j++)
		cpu_relax();
	p->counter = v + 1;
	p->b = p->b + 1;
	if (!p->inside)
		p->violations++;
}

static int ll_worker_fn(void *arg)
{
	struct ll_worker *w = arg;
	uint64_t t0;
	int n = (int)num_online_cpus(), target = -1;

	wait_for_completion(&ll.go);
	t0 = ktime_get_ns();
	for (int i = 0; i < ll.max_iters; i++) {
		struct ll_data *p;
		unsigned long flags = 0;
		int variant = i % 2, cpu;
		bool move = w->cpu < 0 && i % 16 == 5 && n > 1;

		if (i >= EXCL_MIN_ITERS && load_int(&ll.stop))
			break;
		if (ns_since(t0) > HELPER_MAX_NS)
			break;
		if (move)
			variant = 0; /* the move happens at the unlock */
		if (variant)
			local_lock_irqsave(&ll_pcp.lock, flags);
		else
			local_lock(&ll_pcp.lock);
		p = this_cpu_ptr(&ll_pcp);
		cpu = raw_smp_processor_id();
		if (w->cpu >= 0 && cpu != w->cpu)
			w->wrong_cpu++;
		if (move) {
			/* Leave for the next CPU, from inside: only at the
			 * unlock may that happen. */
			target = (cpu + 1) % n;
			set_cpus_allowed(current, cpumask_of(target));
			ll.migrations++;
		}
		ll_critical(p, variant);
		if (RT_WORLD && i % 16 == 0)
			yield(); /* on RT another task here may take our turn */
		if (raw_smp_processor_id() != cpu || this_cpu_ptr(&ll_pcp) != p)
			__atomic_fetch_add(&ll.moved_inside, 1, __ATOMIC_RELAXED);
		p->inside = 0;
		ll_counts[w->idx][cpu]++;
		if (variant)
			local_unlock_irqrestore(&ll_pcp.lock, flags);
		else
			local_unlock(&ll_pcp.lock);
		if (move && raw_smp_processor_id() != target)
			__atomic_fetch_add(&ll.late_moves, 1, __ATOMIC_RELAXED);
		w->count++;
	}
	return 0;
}

/* Two workers bound to each CPU and a roamer that moves from CPU to CPU
 * (changing its affinity from inside the lock) increment their CPU's copy
 * under local_lock(): every copy counts exactly what was done on its CPU,
 * nobody finds another inside, and the roamer never changes CPU while
 * holding. */
KTEST(locks, local_lock_percpu_consistent)
{
	int n = 0, cpu;
	long total = 0;

	for_each_online_cpu(cpu) {
		/* Unchecked: no worker runs yet (and below: all joined). */
		struct ll_data *p = raw_per_cpu_ptr(&ll_pcp, cpu);

		p->counter = p->a = p->b = 0;
		p->inside = 0;
		p->violations = p->state_errors = 0;
		for (int k = 0; k < EXCL_PER_CPU && n < EXCL_MAX_WORKERS - 1; k++)
			llw[n++] = (struct ll_worker){.cpu = cpu};
	}
	llw[n++] = (struct ll_worker){.cpu = -1}; /* the roamer */
	for (int i = 0; i < n; i++) {
		llw[i].idx = i;
		for (int c = 0; c < NR_CPUS; c++)
			ll_counts[i][c] = 0;
	}
	ll.stop = 0;
	ll.late_moves = ll.moved_inside = ll.migrations = 0;
	ll.max_iters = EXCL_TOTAL_CAP / n;
	init_completion(&ll.go);
	for (int i = 0; i < n; i++)
		llw[i].task = ktest_spawn(ll_worker_fn, &llw[i],
					  llw[i].cpu < 0 ? "roamer" : "llock",
					  llw[i].cpu, SCHED_NORMAL, 0, true);
	complete_all(&ll.go);
	msleep(EXCL_RUN_MS);
	store_int(&ll.stop, 1);
	for (int i = 0; i < n; i++)
		ktest_join(llw[i].task);
	for (int i = 0; i < n; i++) {
		KEXPECT_EQ(llw[i].wrong_cpu, 0);
		if (llw[i].task)
			KEXPECT_GE(llw[i].count, EXCL_MIN_ITERS);
		total += llw[i].count;
	}
	for_each_online_cpu(cpu) {
		struct ll_data *p = raw_per_cpu_ptr(&ll_pcp, cpu);
		long want = 0;

		for (int i = 0; i < n; i++)
			want += ll_counts[i][cpu];
		KEXPECT_EQ(p->counter, want);
		KEXPECT_EQ(p->a, want);
		KEXPECT_EQ(p->b, want);
		KEXPECT_EQ(p->violations, 0);
		KEXPECT_EQ(p->state_errors, 0);
		KEXPECT_EQ(p->inside, 0);
		if (n > 1 && p->counter != want)
			ktest_log("CPU %d: copy says %ld, workers did %ld", cpu,
				  p->counter, want);
	}
	ktest_log("local_lock_t: %d workers, %ld acquisitions, roamer moved "
		  "%ld times", n, total, ll.migrations);
	KEXPECT_EQ(ll.moved_inside, 0);
	KEXPECT_EQ(ll.late_moves, 0);
}

/* ---- trylock ---- */

struct irq_try {
	enum lock_kind kind;
	bool got;
	bool in_irq;
};

static void try_in_hardirq(void *arg)
{
	struct irq_try *r = arg;

	r->in_irq = in_irq();
	r->got = trylock_it(r->kind);
	if (r->got) {
		struct any_lock h = the(r->kind, LOCK_PLAIN);

		any_lock_release(&h);
	}
}

/* What taking k changes in this task's context. */
static int expected_preempt_delta(enum lock_kind k)
{
	return !lock_kinds[k].sleeps;
}

static int expected_migrate_delta(enum lock_kind k)
{
	return (k == LOCK_SPIN && RT_WORLD) ? 1 : 0;
}

static void check_trylock(enum lock_kind k)
{
	int pc0 = preempt_count(), md0 = current->migration_disabled;
	struct rt_mutex *rtm = rtmutex_of(k);
	struct any_lock h = the(k, LOCK_PLAIN);
	bool got, again;
	int pc, md;

	reset_locks();

	/* Free: taken, with the context the lock type gives. */
	got = trylock_it(k);
	pc = preempt_count();
	md = current->migration_disabled;
	KEXPECT_TRUE(got);
	if (!got)
		return;
	KEXPECT_TRUE(is_locked(k));
	KEXPECT_EQ(pc, pc0 + expected_preempt_delta(k));
	KEXPECT_EQ(md, md0 + expected_migrate_delta(k));
	if (rtm)
		KEXPECT_EQ(rtm->owner, (uintptr_t)current);

	/* Held by ourselves: fails (no recursion, no deadlock) and changes
	 * nothing. */
	again = trylock_it(k);
	KEXPECT_FALSE(again);
	KEXPECT_EQ(preempt_count(), pc);
	KEXPECT_EQ(current->migration_disabled, md);
	if (again)
		any_lock_release(&h);
	any_lock_release(&h);
	KEXPECT_FALSE(is_locked(k));
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_EQ(current->migration_disabled, md0);
	if (rtm)
		KEXPECT_EQ(rtm->owner, 0);

	/* Held by another task (on another CPU if it spins). */
	if (lock_kinds[k].sleeps || num_online_cpus() >= 2) {
		struct lock_holder hd = {.lock = the(k, LOCK_PLAIN)};
		struct task *t = ktest_spawn(lock_holder_fn, &hd, "holder",
					     last_cpu(), SCHED_NORMAL, 0, true);
		bool held = ktest_poll_int(&hd.held, 1, 5000);

		KEXPECT_TRUE(held);
		for (int i = 0; held && i < 3; i++) {
			bool stolen = trylock_it(k);

			KEXPECT_FALSE(stolen);
			KEXPECT_EQ(preempt_count(), pc0);
			KEXPECT_EQ(current->migration_disabled, md0);
			KEXPECT_TRUE(is_locked(k));
			if (rtm)
				KEXPECT_EQ(rtmutex_of(k)->owner, (uintptr_t)t);
			if (stolen)
				any_lock_release(&h);
		}
		store_int(&hd.release, 1);
		KEXPECT_TRUE(ktest_poll_int(&hd.done, 1, 5000));
		ktest_join(t);
		KEXPECT_FALSE(is_locked(k));
		/* The failures left it usable: taken again at once. */
		got = trylock_it(k);
		KEXPECT_TRUE(got);
		if (got)
			any_lock_release(&h);
	}

	/* And the blocking forms still work. */
	for (int v = 0; v < NR_LOCK_FORMS; v++) {
		h.form = v;
		any_lock_acquire(&h);
		KEXPECT_TRUE(is_locked(k));
		any_lock_release(&h);
	}
	KEXPECT_FALSE(is_locked(k));
	KEXPECT_EQ(preempt_count(), pc0);
	KEXPECT_EQ(current->migration_disabled, md0);
}

/* A spinning lock held by this task fails a trylock from an interrupt on
 * this CPU (another context, so this works on one CPU too), and a free one
 * succeeds there. */
static void check_trylock_from_hardirq(enum lock_kind k)
{
	struct irq_try r = {.kind = k};
	struct any_lock h = the(k, LOCK_PLAIN);

	reset_locks();
	any_lock_acquire(&h);
	ktest_in_hardirq(try_in_hardirq, &r);
	KEXPECT_TRUE(r.in_irq);
	KEXPECT_FALSE(r.got);
	KEXPECT_TRUE(is_locked(k));
	any_lock_release(&h);
	r = (struct irq_try){.kind = k};
	ktest_in_hardirq(try_in_hardirq, &r);
	KEXPECT_TRUE(r.in_irq);
	KEXPECT_TRUE(r.got);
	KEXPECT_FALSE(is_locked(k));
}

KTEST(locks, raw_spin_trylock_semantics)
{
	check_trylock(LOCK_RAW);
	check_trylock_from_hardirq(LOCK_RAW);
}

KTEST(locks, spin_trylock_semantics)
{
	check_trylock(LOCK_SPIN);
	if (!lock_kinds[LOCK_SPIN].sleeps) /* no sleeping lock in hardirq */
		check_trylock_from_hardirq(LOCK_SPIN);
}

KTEST(locks, rt_mutex_trylock_semantics)
{
	check_trylock(LOCK_RTMUTEX);
}

KTEST(locks, mutex_trylock_semantics)
{
	check_trylock(LOCK_MUTEX);
}
