/*
 * Alloc/free storms: two tasks per CPU allocate bursts of objects of
 * every size, hand some to each other through a mailbox, move from CPU
 * to CPU, yield, and (RT=0: on RT=1 a hard interrupt may not allocate,
 * tests/mm/defer_free.c) allocate in hard interrupts on their own CPU and
 * on others; every object carries its owner's tag, checked before it is
 * freed, so an object handed out twice (its tag overwritten by the
 * second owner) or damaged shows, and every allocation is counted, so an
 * object lost shows in the counts. Run with the per-CPU caches on and
 * with the shared-lock path alone (the boot option kmalloc_pcp=0).
 */
#include <stdint.h>
#include "alloc_test.h"
#include "compiler.h"
#include "ktest_util.h"
#include "prandom.h"
#include "rcupdate.h"
#include "spinlock.h"
#include "string.h"

/* Bursts over all tasks, whatever the CPU count: on the shared path
 * with more vCPUs than host cores, a lock handed to a vCPU the host is
 * not running stalls every other, and each burst costs far more. */
#define STORM_BURSTS 192
#define STORM_BURST (3 * KMALLOC_SHEAF_CAPACITY / 2)   /* past a sheaf */
#define STORM_MAX_WORKERS 16
#define MAILBOX_SLOTS 32
#define IRQ_OWNER 0xffffu
#define TAG_SALT 0x7a67c0ffee15bad5ull

/* At the start of every object (the smallest class is 16 bytes); the
 * last byte of a larger one repeats the owner. */
struct tag {
	uint32_t owner;
	uint32_t seq;
	uint64_t check;
};

struct obj {
	void *p;
	uint32_t size, owner, seq;
};

static uint64_t tag_check(const struct obj *o)
{
	return (uintptr_t)o->p ^ TAG_SALT ^ ((uint64_t)o->owner << 32 | o->seq);
}

static void tag_set(const struct obj *o)
{
	struct tag *t = o->p;

	t->owner = o->owner;
	t->seq = o->seq;
	t->check = tag_check(o);
	if (o->size > sizeof(*t))
		((unsigned char *)o->p)[o->size - 1] = (unsigned char)o->owner;
}

static bool tag_ok(const struct obj *o)
{
	const struct tag *t = o->p;

	return t->owner == o->owner && t->seq == o->seq &&
	       t->check == tag_check(o) &&
	       (o->size <= sizeof(*t) ||
		((unsigned char *)o->p)[o->size - 1] == (unsigned char)o->owner);
}

/* Counts of one task or interrupt: what it allocated and freed, and what
 * went wrong. */
struct counts {
	long allocs, frees, bad_tags, failures;
};

/* kmalloc an object of size for owner, tagged; false when out of memory. */
static bool obj_new(struct obj *o, uint32_t size, uint32_t owner,
		    uint32_t seq, struct counts *c)
{
	*o = (struct obj){.p = kmalloc(size), .size = size, .owner = owner,
			  .seq = seq};
	if (!o->p) {
		c->failures++;
		return false;
	}
	c->allocs++;
	tag_set(o);
	return true;
}

static void obj_free(struct obj *o, struct counts *c)
{
	if (!o->p)
		return;
	c->bad_tags += !tag_ok(o);
	memset(o->p, 0x6b, sizeof(struct tag)); /* a stale owner sees it */
	kfree(o->p);
	c->frees++;
	o->p = 0;
}

/* Mostly small sizes of every class; one in 16 a large allocation. */
static uint32_t storm_size(struct rnd_state *r)
{
	uint32_t x = prandom_u32_state(r);

	if (x % 16 == 0)
		return 2049 + x % 7000;
	return 16 + (x >> 8) % (KMALLOC_MAX_SMALL - 15);
}

struct storm;

struct worker {
	struct storm *st;
	uint32_t id;
	struct rnd_state rnd;
	int iters;
	struct counts c;
	struct obj live[STORM_BURST];
	long dups, irq_runs, remote_irq_runs, moves;
};

struct storm {
	struct worker w[STORM_MAX_WORKERS];
	int nr;
	spinlock_t lock;                  /* the mailbox */
	struct obj box[MAILBOX_SLOTS];
	struct counts irq;                /* what the interrupts did */
	spinlock_t irq_lock;              /* irq, updated by the tasks */
};

/* In hard-interrupt context (this CPU's, or another's over an IPI): a few
 * objects allocated, checked and freed, and one handed in by the task
 * freed here; counts kept in the caller's struct. */
struct irq_work_arg {
	struct obj in;
	struct counts c;
	uint32_t seq;
	bool in_irq;
};

static void storm_irq_fn(void *arg)
{
	struct irq_work_arg *a = arg;
	struct obj o;

	a->in_irq = in_hardirq();
	for (int i = 0; i < 3; i++) {
		uint32_t size = kmalloc_class_size(i * 3);

		if (obj_new(&o, size, IRQ_OWNER, a->seq + i, &a->c))
			obj_free(&o, &a->c);
	}
	obj_free(&a->in, &a->c);
}

static void storm_irq(struct worker *w, bool remote)
{
	struct irq_work_arg a = {.seq = w->id << 16};
	int cpu = prandom_u32_state(&w->rnd) % num_online_cpus();

	obj_new(&a.in, 64 + w->id, w->id, 7, &w->c);
	if (remote)
		smp_call_function_single(cpu, storm_irq_fn, &a, true);
	else
		ktest_in_hardirq(storm_irq_fn, &a);
	/* The task's object was freed in the interrupt: its free counts
	 * there, its allocation here. */
	spin_lock(&w->st->irq_lock);
	w->st->irq.allocs += a.c.allocs;
	w->st->irq.frees += a.c.frees;
	/* (A call to our own CPU runs here with interrupts off.) */
	w->st->irq.bad_tags += a.c.bad_tags + (a.in.p != 0) +
			       (!remote && !a.in_irq);
	w->st->irq.failures += a.c.failures;
	spin_unlock(&w->st->irq_lock);
	if (remote)
		w->remote_irq_runs++;
	else
		w->irq_runs++;
}

/* Leave one object in the mailbox, take one left by another task. */
static void mailbox_swap(struct worker *w, struct obj *give)
{
	struct storm *st = w->st;
	struct obj take = {0};
	int slot = prandom_u32_state(&w->rnd) % MAILBOX_SLOTS;

	spin_lock(&st->lock);
	if (st->box[slot].p && st->box[slot].owner != w->id) {
		take = st->box[slot];
		st->box[slot].p = 0;
	}
	if (!st->box[slot].p && give->p) {
		st->box[slot] = *give;
		give->p = 0;
	}
	spin_unlock(&st->lock);
	obj_free(&take, &w->c);
}

/* Two objects of one burst at the same address: handed out twice. */
static long burst_dups(const struct obj *live, int n)
{
	long dups = 0;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			dups += live[i].p && live[i].p == live[j].p;
	return dups;
}

/* Every few rounds somewhere else: a CPU of its own choosing, or back to
 * any CPU; the tick preempts it in between. */
static void worker_move(struct worker *w, int iter)
{
	if (iter % 8 == 0) {
		int cpu = prandom_u32_state(&w->rnd) % num_online_cpus();

		set_cpus_allowed(current, cpumask_of(cpu));
		w->moves++;
	} else if (iter % 8 == 4) {
		set_cpus_allowed(current, cpu_online_mask);
	}
	if (iter % 5 == 0)
		yield();
}

static int storm_worker(void *arg)
{
	struct worker *w = arg;

	for (int iter = 0; iter < w->iters; iter++) {
		int n = 1 + prandom_u32_state(&w->rnd) % STORM_BURST;

		for (int i = 0; i < n; i++)
			obj_new(&w->live[i], storm_size(&w->rnd), w->id,
				iter * STORM_BURST + i, &w->c);
		w->dups += burst_dups(w->live, n);
		worker_move(w, iter);
		if (iter % 8 == 3 && !IS_ENABLED(CONFIG_PREEMPT_RT))
			storm_irq(w, false);
		if (iter % 8 == 7 && !IS_ENABLED(CONFIG_PREEMPT_RT))
			storm_irq(w, true);
		mailbox_swap(w, &w->live[0]);
		for (int i = 0; i < n; i++)
			obj_free(&w->live[i], &w->c);
	}
	return 0;
}

static struct storm storm;

static void add_counts(struct counts *sum, const struct counts *c)
{
	sum->allocs += c->allocs;
	sum->frees += c->frees;
	sum->bad_tags += c->bad_tags;
	sum->failures += c->failures;
}

/* Run the storm, with two tasks per CPU but at most max_workers; check
 * every tag, that every allocation was freed once (the per-class counts
 * back where they were) and that the drained free page count is back
 * exactly. */
static void run_storm(const char *path, int bursts, int max_workers)
{
	struct task_struct *t[STORM_MAX_WORKERS];
	long in_use[KMALLOC_NR_CLASSES + 1], dups = 0, moves = 0, irqs = 0;
	unsigned long bad = kmalloc_bad_frees();
	struct counts sum = {0};
	uint64_t t0;
	size_t before;

	memset(&storm, 0, sizeof(storm));
	spin_lock_init(&storm.lock);
	spin_lock_init(&storm.irq_lock);
	storm.nr = 2 * num_online_cpus();
	if (storm.nr > max_workers)
		storm.nr = max_workers;
	/* Tasks are freed a grace period after their last reference (the
	 * join's): every count is taken past rcu_barrier(), so that it does
	 * not depend on how soon the host lets a grace period end. */
	rcu_barrier();
	before = drained_free_pages();
	t0 = ktime_get_ns();
	for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++)
		in_use[cls] = kmalloc_objects_in_use(cls);
	for (int i = 0; i < storm.nr; i++) {
		struct worker *w = &storm.w[i];

		*w = (struct worker){.st = &storm, .id = (uint32_t)i + 1,
				     .iters = bursts / storm.nr};
		prandom_seed_state(&w->rnd, 1000 + i);
		t[i] = ktest_spawn(storm_worker, w, "storm", -1, SCHED_NORMAL,
				   0, true);
	}
	for (int i = 0; i < storm.nr; i++) {
		ktest_join(t[i]);
		add_counts(&sum, &storm.w[i].c);
		dups += storm.w[i].dups;
		moves += storm.w[i].moves;
		irqs += storm.w[i].irq_runs + storm.w[i].remote_irq_runs;
	}
	for (int s = 0; s < MAILBOX_SLOTS; s++)
		obj_free(&storm.box[s], &sum);
	add_counts(&sum, &storm.irq);
	rcu_barrier(); /* the workers' task_structs and stacks are back */
	ktest_log("%s: %d tasks, %ld allocations, %ld frees, %ld moves, %ld "
		  "interrupts in %lu ms", path, storm.nr, sum.allocs, sum.frees,
		  moves, irqs, (unsigned long)(ns_since(t0) / NS_PER_MS));
	KEXPECT_EQ(sum.bad_tags, 0);
	KEXPECT_EQ(dups, 0);
	KEXPECT_EQ(sum.failures, 0);
	KEXPECT_EQ(sum.allocs, sum.frees);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
	rcu_barrier(); /* the workers' task structs go after a grace period */
	for (int cls = 0; cls <= KMALLOC_NR_CLASSES; cls++) {
		KEXPECT_EQ(kmalloc_objects_in_use(cls), in_use[cls]);
	}
	KEXPECT_EQ(drained_free_pages(), before);
}

KTEST_SUITE(kmalloc_storm, .exit = alloc_test_restore);

KTEST(kmalloc_storm, per_cpu_caches)
{
	alloc_caches_set(true);
	run_storm("per-CPU caches", STORM_BURSTS, STORM_MAX_WORKERS);
}

/*
 * The same storm on the plain shared-lock path (kmalloc_pcp=0 and
 * page_pcp=0 at boot give the same), smaller: every call takes the one
 * raw lock, and with vCPUs spinning for it on busy host cores a
 * hand-over may wait for the host to run the holder (in tickets, as the
 * q35 boots take them, the next waiter too: docs/locks.md).
 * The cost is per hand-over, so it is the amount of work that must be
 * small, not the time it may take: 16 tasks and 96 bursts on 8 CPUs
 * took over 120 s at host load ~15 (the per-CPU storm: 0.2 s). Four
 * tasks of eight bursts each still go through every step of a worker
 * (moves, both kinds of interrupt, the mailbox).
 */
#define SHARED_WORKERS 4
#define SHARED_BURSTS (SHARED_WORKERS * 8)

KTEST(kmalloc_storm, shared_path)
{
	alloc_caches_set(false);
	run_storm("shared path", SHARED_BURSTS, SHARED_WORKERS);
	alloc_caches_set(true);
}
