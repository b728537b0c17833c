/*
 * Tests for kmalloc's per-CPU sheaves (kernel/mm/kmalloc_pcp.c): the
 * shared-lock count they promise, kmalloc and kfree in hard interrupts
 * on RT=0 (which must leave the sheaves alone), the drains, and double frees
 * through a sheaf. The storms are in kmalloc_storm.c.
 */
#include <stdint.h>
#include "alloc_test.h"
#include "compiler.h"
#include "ktest_util.h"
#include "prandom.h"
#include "string.h"

KTEST_SUITE(kmalloc_pcp, .exit = alloc_test_restore);

static unsigned long my_locks(void)
{
	return kmalloc_lock_acquisitions_cpu(raw_smp_processor_id());
}

/* The boot default (no kmalloc_pcp= on the test command line). */
KTEST(kmalloc_pcp, on_by_default)
{
	KEXPECT_TRUE(kmalloc_pcp_enabled());
	KEXPECT_TRUE(page_pcp_enabled());
}

/* Once the sheaf holds objects, alloc/free pairs never take the lock. */
KTEST(kmalloc_pcp, sheaf_hit_takes_no_lock)
{
	unsigned long before;
	void *p = kmalloc(64);

	KASSERT_TRUE(p);
	kfree(p);
	before = my_locks();
	for (int i = 0; i < 10000; i++) {
		p = kmalloc(64);
		KASSERT_TRUE(p);
		kfree(p);
	}
	KEXPECT_EQ(my_locks() - before, 0);
}

/* ops kmalloc/kfree calls of one class in bursts of 1..3C allocations
 * followed by as many frees, on this CPU; returns the acquisitions of
 * kmalloc_lock they cost. */
static unsigned long burst_ops(long ops, size_t size)
{
	static void *held[3 * KMALLOC_SHEAF_CAPACITY];
	struct rnd_state rnd;
	unsigned long before = my_locks();
	long done = 0;

	prandom_seed_state(&rnd, 42);
	while (done < ops) {
		int n = 1 + prandom_u32_state(&rnd) % ARRAY_SIZE(held);

		if (n > (ops - done) / 2)
			n = (ops - done + 1) / 2;
		for (int i = 0; i < n; i++)
			held[i] = kmalloc(size);
		for (int i = 0; i < n; i++)
			kfree(held[i]);
		done += 2 * n;
	}
	return my_locks() - before;
}

/*
 * The deterministic figure of make bench, as a count: at least C/2 calls
 * lie between two acquisitions of the shared lock on a CPU, so 10^6
 * calls take it at most 2 * 10^6 / C times (+1 for the first refill).
 * The shared path takes it on every call.
 */
KTEST(kmalloc_pcp, shared_lock_count_bounded)
{
	const long ops = 1000000, shared_ops = 20000;
	unsigned long pcp, shared;

	pcp = burst_ops(ops, 64);
	ktest_log("per-CPU sheaves: %lu kmalloc_lock acquisitions per %ld "
		  "ops (bound %ld)", pcp, ops,
		  2 * ops / KMALLOC_SHEAF_CAPACITY + 1);
	KEXPECT_LE(pcp, 2 * ops / KMALLOC_SHEAF_CAPACITY + 1);
	KEXPECT_GT(pcp, 0); /* the bursts did go past the sheaf */
	kmalloc_pcp_set(false);
	shared = burst_ops(shared_ops, 64);
	kmalloc_pcp_set(true);
	ktest_log("shared path: %lu acquisitions per %ld ops", shared,
		  shared_ops);
	KEXPECT_EQ(shared, shared_ops);
}

/* What one hard interrupt did, recorded for the test to check. */
struct irq_probe {
	void *in[KMALLOC_NR_CLASSES];   /* task's objects, freed in hardirq */
	void *out[KMALLOC_NR_CLASSES];  /* hardirq's objects, freed by task */
	int cpu;
	bool in_irq;
	long small_ops;                 /* small kmalloc/kfree calls */
	unsigned long locks;            /* kmalloc_lock taken meanwhile */
	int bad;                        /* allocation failures, bad data */
	int cache_changes;              /* sheaves or page list touched */
};

static unsigned char obj_byte(int cls)
{
	return (unsigned char)(0x40 + cls);
}

/* Every class and a large and a page allocation, in hard-interrupt
 * context: counts what the shared path cost and that this CPU's sheaves
 * and page list were not touched (a sleeping lock taken here would be a
 * validator report, which fails the test by itself). */
static void irq_probe_fn(void *arg)
{
	struct irq_probe *p = arg;
	unsigned int cached[KMALLOC_NR_CLASSES], pages;
	unsigned long locks;

	p->cpu = raw_smp_processor_id();
	p->in_irq = in_hardirq();
	locks = kmalloc_lock_acquisitions_cpu(p->cpu);
	pages = page_pcp_count(p->cpu);
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		cached[cls] = kmalloc_cached_objects(p->cpu, cls);
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++) {
		size_t size = kmalloc_class_size(cls);
		unsigned char *a = kmalloc(size), *in = p->in[cls];

		p->bad += !a || (in && in[size - 1] != obj_byte(cls));
		if (a) {
			memset(a, 0x5a, size);
			kfree(a);
		}
		kfree(in);
		p->out[cls] = kmalloc(size);
		if (p->out[cls])
			memset(p->out[cls], obj_byte(cls), size);
		p->small_ops += 4;
	}
	void *large = kmalloc(5000), *page = page_alloc();

	p->bad += !large || !page;
	kfree(large);
	page_free(page);
	p->locks = kmalloc_lock_acquisitions_cpu(p->cpu) - locks;
	p->cache_changes = page_pcp_count(p->cpu) != pages;
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		p->cache_changes += kmalloc_cached_objects(p->cpu, cls) !=
				    cached[cls];
}

/* One probe on this CPU: objects go in from the task and come out. */
static void probe_here(const char *path)
{
	struct irq_probe p = {0};
	int cpu = raw_smp_processor_id();

	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++) {
		p.in[cls] = kmalloc(kmalloc_class_size(cls));
		KASSERT_TRUE(p.in[cls]);
		memset(p.in[cls], obj_byte(cls), kmalloc_class_size(cls));
	}
	ktest_in_hardirq(irq_probe_fn, &p);
	KEXPECT_TRUE(p.in_irq);
	KEXPECT_EQ(p.cpu, cpu);
	KEXPECT_EQ(p.bad, 0);
	/* One acquisition per small call: the shared path, every time. */
	KEXPECT_EQ(p.locks, p.small_ops);
	KEXPECT_EQ(p.cache_changes, 0);
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++) {
		unsigned char *o = p.out[cls];

		KEXPECT_TRUE(o && o[0] == obj_byte(cls) &&
			     o[kmalloc_class_size(cls) - 1] == obj_byte(cls));
		kfree(o);
	}
	ktest_log("%s, CPU %d: %ld small calls in hardirq, %lu shared-lock "
		  "acquisitions", path, cpu, p.small_ops, p.locks);
}

/* kmalloc/kfree in hard interrupts, on the first and last CPU, with the
 * caches on and off: correct, and never through a sheaf. RT=0 only: on
 * RT=1 a hard interrupt may not allocate (tests/mm/defer_free.c). */
KTEST(kmalloc_pcp, hardirq_uses_shared_path)
{
	unsigned long bad = kmalloc_bad_frees();

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		ktest_log("RT=1: hard interrupts may not allocate (defer_free.*)");
		return;
	}

	for (int on = 1; on >= 0; on--) {
		alloc_caches_set(on);
		probe_here(on ? "caches on" : "caches off");
		if (num_online_cpus() > 1 && hop_to(last_cpu())) {
			probe_here(on ? "caches on" : "caches off");
			hop_to(0);
		}
	}
	alloc_caches_set(true);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
}

/* Fill CPU cpu's sheaves of every class (and its page list). */
static void fill_caches_on(int cpu)
{
	static void *objs[KMALLOC_NR_CLASSES][KMALLOC_SHEAF_BATCH];
	void *pages[PCP_BATCH];

	if (!hop_to(cpu))
		return;
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		for (int i = 0; i < KMALLOC_SHEAF_BATCH; i++)
			objs[cls][i] = kmalloc(kmalloc_class_size(cls));
	for (int i = 0; i < PCP_BATCH; i++)
		pages[i] = page_alloc();
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		for (int i = 0; i < KMALLOC_SHEAF_BATCH; i++)
			kfree(objs[cls][i]);
	for (int i = 0; i < PCP_BATCH; i++)
		page_free(pages[i]);
}

static unsigned int cached_on(int cpu)
{
	unsigned int n = 0;

	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		n += kmalloc_cached_objects(cpu, cls);
	return n;
}

/* mm_drain_all() empties every CPU's sheaves and page list, and the free
 * page count is back to exactly its figure before. */
KTEST(kmalloc_pcp, drain_all_returns_everything)
{
	size_t before = drained_free_pages();
	unsigned int cached = 0, pages = 0;
	int cpu;

	for_each_online_cpu(cpu)
		fill_caches_on(cpu);
	hop_to(0);
	for_each_online_cpu(cpu) {
		cached += cached_on(cpu);
		pages += page_pcp_count(cpu);
	}
	ktest_log("%u objects and %u pages cached before the drain", cached,
		  pages);
	KEXPECT_GE(cached, KMALLOC_NR_CLASSES * KMALLOC_SHEAF_BATCH *
			   num_online_cpus());
	KEXPECT_LT(page_free_count(), before); /* the sheaves hold slabs */
	mm_drain_all();
	for_each_online_cpu(cpu) {
		KEXPECT_EQ(cached_on(cpu), 0);
		KEXPECT_EQ(page_pcp_count(cpu), 0);
	}
	KEXPECT_EQ(page_free_count(), before);
}

/* A helper that keeps its CPU from running anything else (preemption
 * off) while the test drains that CPU's caches from CPU 0: the
 * precondition of mm_drain_cpu(). Interrupt handlers still run there,
 * and they never touch the caches. */
struct quiet_cpu {
	volatile int ready, stop;
};

static int quiet_fn(void *arg)
{
	struct quiet_cpu *q = arg;

	preempt_disable();
	store_int(&q->ready, 1);
	ktest_helper_wait(load_int(&q->stop), POLL_SPIN);
	preempt_enable();
	return 0;
}

/* mm_drain_cpu() from another CPU empties that CPU's caches and no
 * other's. */
KTEST_CPUS(kmalloc_pcp, drain_cpu_from_another_cpu, 2)
{
	int cpu = last_cpu();
	struct quiet_cpu q = {0};
	struct task_struct *t;
	size_t before;

	before = drained_free_pages();

	fill_caches_on(cpu);
	fill_caches_on(0);
	KEXPECT_GT(cached_on(cpu), 0);
	KEXPECT_GT(page_pcp_count(cpu), 0);
	t = ktest_spawn_on(cpu, quiet_fn, &q, "quiet");
	KASSERT_TRUE(ktest_poll_int(&q.ready, 1, KTEST_WAIT_MS));
	mm_drain_cpu(cpu);
	store_int(&q.stop, 1);
	ktest_join(t);
	KEXPECT_EQ(cached_on(cpu), 0);
	KEXPECT_EQ(page_pcp_count(cpu), 0);
	KEXPECT_GT(cached_on(0), 0); /* CPU 0's own were left alone */
	KEXPECT_EQ(drained_free_pages(), before);
}

/* Switching the sheaves off drains them; with them off every call takes
 * the shared lock once and no sheaf fills. */
KTEST(kmalloc_pcp, switch_off_drains_and_bypasses)
{
	unsigned long before;
	int cpu;

	fill_caches_on(0);
	KEXPECT_GT(cached_on(0), 0);
	kmalloc_pcp_set(false);
	KEXPECT_FALSE(kmalloc_pcp_enabled());
	for_each_online_cpu(cpu)
		KEXPECT_EQ(cached_on(cpu), 0);
	before = my_locks();
	for (int i = 0; i < 100; i++)
		kfree(kmalloc(100));
	KEXPECT_EQ(my_locks() - before, 200);
	KEXPECT_EQ(cached_on(0), 0);
	kmalloc_pcp_set(true);
	KEXPECT_TRUE(kmalloc_pcp_enabled());
}

/* A double free is caught with the first free in this CPU's sheaf, in
 * another CPU's sheaf, and back in its slab; on both paths. */
KTEST(kmalloc_pcp, double_free_through_sheaves)
{
	unsigned long bad = kmalloc_bad_frees();
	void *a = kmalloc(200), *b = kmalloc(200);

	KASSERT_TRUE(a && b);
	kfree(a);                       /* into CPU 0's sheaf */
	kfree(a);
	KEXPECT_EQ(kmalloc_bad_frees(), bad + 1);
	kmalloc_pcp_set(false);         /* the shared path finds it too */
	kfree(b);                       /* into its slab */
	kfree(b);
	KEXPECT_EQ(kmalloc_bad_frees(), bad + 2);
	kmalloc_pcp_set(true);
	if (num_online_cpus() > 1) {
		void *c = kmalloc(200);

		KASSERT_TRUE(c);
		if (hop_to(last_cpu())) {
			kfree(c);       /* into the last CPU's sheaf */
			hop_to(0);
		}
		kfree(c);               /* found there from CPU 0 */
		KEXPECT_EQ(kmalloc_bad_frees(), bad + 3);
	}
}

/* An object whose data happens to hold the poison word is not taken for
 * a free one. */
KTEST(kmalloc_pcp, poison_lookalike_is_not_a_double_free)
{
	unsigned long bad = kmalloc_bad_frees();
	uint64_t *p = kmalloc(32);
	long in_use;

	KASSERT_TRUE(p);
	in_use = kmalloc_objects_in_use(1);
	p[1] = 0xf4eef4eef4eef4eeul; /* FREE_POISON, kernel/mm/slab.h */
	kfree(p);
	KEXPECT_EQ(kmalloc_bad_frees(), bad);
	KEXPECT_EQ(kmalloc_objects_in_use(1), in_use - 1);
}

/* The objects-in-use statistics are percpu_counters: allocations on
 * every CPU, freed on another, count exactly in percpu_counter_sum()
 * (through kmalloc_objects_in_use()), whatever CPU's delta holds them. */
KTEST(kmalloc_pcp, in_use_counts_exact_across_cpus)
{
	enum { PER_CPU = 100, CLS = 3 };
	static void *objs[8 * PER_CPU];
	long before = kmalloc_objects_in_use(CLS);
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (n + PER_CPU > (int)ARRAY_SIZE(objs) || !hop_to(cpu))
			break;
		for (int i = 0; i < PER_CPU; i++)
			KASSERT_TRUE(objs[n++] = kmalloc(kmalloc_class_size(CLS)));
	}
	hop_to(0);
	KEXPECT_EQ(kmalloc_objects_in_use(CLS), before + n);
	while (n)
		kfree(objs[--n]);
	KEXPECT_EQ(kmalloc_objects_in_use(CLS), before);
}
