/*
 * Tests of dynamic per-CPU memory (kernel/mm/percpu.c): alloc_percpu()
 * gives every possible CPU its own zeroed, aligned copy, reached through
 * per_cpu_ptr(), this_cpu_ptr() and the %gs: operations exactly as a
 * static per-CPU variable; the map never hands one unit out twice; it
 * runs out with NULL and a message and recovers after frees; bad frees
 * are counted and change nothing.
 *
 * Figures are taken relative to a snapshot at the start of each test
 * (percpu_alloc_info()), since the kernel's own users (percpu_counter)
 * may hold allocations of their own.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "ktest_util.h"
#include "kmalloc.h"
#include "percpu.h"
#include "percpu_alloc.h"
#include "prandom.h"
#include "sched.h"
#include "smp.h"
#include "string.h"

static void info(struct percpu_alloc_info *i)
{
	percpu_alloc_info(i);
}

/* Every byte of CPU cpu's copy of the n bytes at p equals b. */
/* Compared through memcmp(), not a loop: the test's own loads would each
 * be a per-CPU access to the checker (TSAN=1), one copy per byte. */
static bool copy_is(const void *p, int cpu, size_t n, unsigned char b)
{
	const unsigned char *c = per_cpu_ptr((const unsigned char *)p, cpu);
	unsigned char want[64];

	memset(want, b, sizeof(want));
	for (size_t i = 0; i < n; i += sizeof(want)) {
		size_t len = n - i < sizeof(want) ? n - i : sizeof(want);

		if (memcmp(c + i, want, len))
			return false;
	}
	return true;
}

static void fill_every_cpu(void *p, size_t n, unsigned char b)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr((char *)p, cpu), b, n);
}

struct wide {
	long a[4];
};

/* Each possible CPU has its own zeroed copy, disjoint from the others',
 * and writing one CPU's copy changes no other. */
KTEST(percpu_alloc, copies_distinct_and_zeroed)
{
	struct wide *p = alloc_percpu(struct wide);
	int cpu, other;

	KASSERT_NE(p, 0);
	for_each_possible_cpu(cpu) {
		KEXPECT_TRUE(copy_is(p, cpu, sizeof(*p), 0));
		for_each_possible_cpu(other) {
			uintptr_t a = (uintptr_t)per_cpu_ptr(p, cpu);
			uintptr_t b = (uintptr_t)per_cpu_ptr(p, other);

			if (other != cpu)
				KEXPECT_TRUE(a + sizeof(*p) <= b ||
					     b + sizeof(*p) <= a);
		}
		KEXPECT_EQ(percpu_addr_cpu(per_cpu_ptr(p, cpu)), cpu);
	}
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(p, cpu), 0x10 + cpu, sizeof(*p));
	for_each_possible_cpu(cpu)
		KEXPECT_TRUE(copy_is(p, cpu, sizeof(*p), 0x10 + cpu));
	/* The pointer itself is a template address: in no CPU's copy. */
	KEXPECT_TRUE(percpu_dynamic_addr(p));
	KEXPECT_EQ(percpu_addr_cpu(p), -1);
	free_percpu(p);
}

/* On each CPU, in a task bound there: this_cpu_ptr() and the %gs:
 * operations reach the copy per_cpu_ptr() names for that CPU. */
static int check_own_copy(void *arg)
{
	long *p = arg;
	int cpu, ok;

	preempt_disable();
	cpu = smp_processor_id();
	ok = this_cpu_ptr(p) == per_cpu_ptr(p, cpu) &&
	     raw_cpu_ptr(p) == per_cpu_ptr(p, cpu) &&
	     this_cpu_read(*p) == 1000 + cpu;
	this_cpu_add(*p, 5);
	this_cpu_inc(*p);
	preempt_enable();
	return ok;
}

/* In each CPU's interrupt context: one %gs: increment. */
static void inc_in_irq(void *arg)
{
	this_cpu_inc(*(long *)arg);
}

KTEST(percpu_alloc, this_cpu_reaches_each_cpus_copy)
{
	long *p = alloc_percpu(long);
	int cpu;

	KASSERT_NE(p, 0);
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(p, cpu) = 1000 + cpu;
	for_each_online_cpu(cpu)
		KEXPECT_EQ(ktest_run_on(cpu, check_own_copy, p, "pcpu-own"), 1);
	for_each_online_cpu(cpu)
		KASSERT_EQ(smp_call_function_single(cpu, inc_in_irq, p, true),
			   0);
	for_each_possible_cpu(cpu)
		KEXPECT_EQ(*per_cpu_ptr(p, cpu),
			   1000 + cpu + (cpu_online(cpu) ? 7 : 0));
	free_percpu(p);
}

/* Every alignment from the granule to a page holds in the template and
 * in every CPU's copy, with all of them allocated at once. */
KTEST(percpu_alloc, alignment_honoured)
{
	void *p[11];
	int n = 0, cpu;

	for (size_t align = 4; align <= 4096; align *= 2, n++) {
		p[n] = __alloc_percpu(24, align);
		KASSERT_NE(p[n], 0);
		KEXPECT_EQ((uintptr_t)p[n] % align, 0);
		for_each_possible_cpu(cpu) {
			uintptr_t copy = (uintptr_t)per_cpu_ptr((char *)p[n],
								cpu);

			KEXPECT_EQ(copy % align, 0);
		}
	}
	/* Below the granule, the granule. */
	p[n] = __alloc_percpu(1, 1);
	KASSERT_NE(p[n], 0);
	KEXPECT_EQ((uintptr_t)p[n] % PCPU_MIN_ALLOC_SIZE, 0);
	while (n >= 0)
		free_percpu(p[n--]);
}

/* A type's own alignment comes through alloc_percpu(type). */
struct cacheline {
	long v;
} __attribute__((aligned(64)));

KTEST(percpu_alloc, typed_alloc_keeps_type_alignment)
{
	long *pad = alloc_percpu(long);
	struct cacheline *p = alloc_percpu(struct cacheline);

	KASSERT_NE(pad, 0);
	KASSERT_NE(p, 0);
	KEXPECT_EQ((uintptr_t)p % 64, 0);
	free_percpu(p);
	free_percpu(pad);
}

/* Freed memory is handed out again (first fit: the same place, nothing
 * else having been allocated meanwhile), zeroed on every CPU again. */
KTEST(percpu_alloc, reuse_after_free_is_zeroed)
{
	struct percpu_alloc_info before, after;
	void *p, *q;
	int cpu;

	info(&before);
	p = __alloc_percpu(64, 8);
	KASSERT_NE(p, 0);
	fill_every_cpu(p, 64, 0xa5);
	free_percpu(p);
	q = __alloc_percpu(64, 8);
	KASSERT_NE(q, 0);
	KEXPECT_EQ(q, p);
	for_each_possible_cpu(cpu)
		KEXPECT_TRUE(copy_is(q, cpu, 64, 0));
	free_percpu(q);
	info(&after);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
}

#define MANY 64

struct live {
	unsigned char *p;
	size_t size;
};

/* Sizes of 1 to 200 bytes at assorted alignments, allocated and freed
 * in a seeded random order: no two live allocations overlap, each keeps
 * its own bytes on every CPU, and the figures come back. */
KTEST(percpu_alloc, many_sizes_no_overlap)
{
	static struct live l[MANY];
	struct percpu_alloc_info before, after;
	struct rnd_state rnd;
	int cpu;

	prandom_seed_state(&rnd, 23);
	info(&before);
	for (int i = 0; i < MANY; i++) {
		l[i].size = 1 + prandom_u32_state(&rnd) % 200;
		l[i].p = __alloc_percpu(l[i].size,
					1u << (prandom_u32_state(&rnd) % 7));
		KASSERT_NE(l[i].p, 0);
		fill_every_cpu(l[i].p, l[i].size, i + 1);
	}
	for (int i = 0; i < MANY; i++)
		for (int j = i + 1; j < MANY; j++)
			KEXPECT_TRUE(l[i].p + l[i].size <= l[j].p ||
				     l[j].p + l[j].size <= l[i].p);
	info(&after);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs + MANY);
	for (int i = 0; i < MANY; i++) {
		int k = prandom_u32_state(&rnd) % MANY;

		while (!l[k].p)
			k = (k + 1) % MANY;
		for_each_possible_cpu(cpu)
			KEXPECT_TRUE(copy_is(l[k].p, cpu, l[k].size, k + 1));
		free_percpu(l[k].p);
		l[k].p = 0;
	}
	info(&after);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
}

/* Tasks on every CPU, preempted and moved at will, allocate, tag every
 * CPU's copy with their own byte, yield, check the tag and free: a unit
 * handed out twice would show as another task's byte. */
#define STORM_ROUNDS 150

static int alloc_storm(void *arg)
{
	unsigned char tag = (unsigned char)(uintptr_t)arg;
	struct rnd_state rnd;
	int bad = 0, cpu;

	prandom_seed_state(&rnd, tag);
	for (int i = 0; i < STORM_ROUNDS; i++) {
		size_t size = 1 + prandom_u32_state(&rnd) % 96;
		unsigned char *p = __alloc_percpu(size, 8);

		if (!p)
			return -1;
		fill_every_cpu(p, size, tag);
		if (i % 4 == 0)
			yield();
		for_each_possible_cpu(cpu)
			bad += !copy_is(p, cpu, size, tag);
		free_percpu(p);
	}
	return bad;
}

KTEST(percpu_alloc, concurrent_alloc_free_no_overlap)
{
	static struct task_struct *t[2 * NR_CPUS];
	struct percpu_alloc_info before, after;
	int n = 2 * (int)num_online_cpus();

	info(&before);
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(alloc_storm, (void *)(uintptr_t)(i + 1),
				   "pcpu-storm", -1, SCHED_NORMAL, 0, true);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(ktest_join(t[i]), 0);
	info(&after);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
	KEXPECT_EQ(after.nr_failed, before.nr_failed);
	KEXPECT_EQ(after.double_frees + after.foreign_frees,
		   before.double_frees + before.foreign_frees);
}

/* Filled up, the allocator says NULL (and prints why) instead of
 * panicking; a free makes room again, and once everything is back the
 * largest run is whole again. */
#define BLOCK 512
#define MAX_BLOCKS ((int)(PERCPU_DYNAMIC_SIZE / BLOCK) + 1)

KTEST(percpu_alloc, exhaustion_returns_null_and_recovers)
{
	static void *b[MAX_BLOCKS];
	struct percpu_alloc_info before, full, after;
	void *p;
	int n = 0;

	info(&before);
	while (n < MAX_BLOCKS && (b[n] = __alloc_percpu(BLOCK, 4)))
		n++;
	KASSERT_LT(n, MAX_BLOCKS);
	KEXPECT_GE(n, (int)(before.largest_free / BLOCK));
	info(&full);
	KEXPECT_EQ(full.nr_failed, before.nr_failed + 1);
	KEXPECT_LT(full.largest_free, BLOCK);
	/* One free, one allocation of the same shape: the same place. */
	free_percpu(b[n / 2]);
	p = __alloc_percpu(BLOCK, 4);
	KEXPECT_EQ(p, b[n / 2]);
	b[n / 2] = p;
	/* Larger than any hole: refused, counted, nothing changed. */
	KEXPECT_EQ(__alloc_percpu(2 * BLOCK, 8), 0);
	info(&after);
	KEXPECT_EQ(after.nr_failed, full.nr_failed + 1);
	KEXPECT_EQ(after.used, full.used);
	while (n > 0)
		free_percpu(b[--n]);
	info(&after);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.largest_free, before.largest_free);
	p = __alloc_percpu(before.largest_free, 4);
	KEXPECT_NE(p, 0);
	free_percpu(p);
}

/* Arguments no allocation can satisfy: NULL and a message each. */
KTEST(percpu_alloc, invalid_arguments_refused)
{
	struct percpu_alloc_info before, after;

	info(&before);
	KEXPECT_EQ(__alloc_percpu(0, 4), 0);
	KEXPECT_EQ(__alloc_percpu(PERCPU_DYNAMIC_SIZE + 1, 4), 0);
	KEXPECT_EQ(__alloc_percpu(8, 3), 0);
	KEXPECT_EQ(__alloc_percpu(8, 0), 0);
	KEXPECT_EQ(__alloc_percpu(8, 8192), 0);
	info(&after);
	KEXPECT_EQ(after.nr_failed, before.nr_failed + 5);
	KEXPECT_EQ(after.used, before.used);
}

static DEFINE_PER_CPU(long, static_var);

/* A second free, and pointers alloc_percpu() never returned: each is
 * counted and ignored, and what was live stays live and intact. */
KTEST(percpu_alloc, bad_frees_reported_and_ignored)
{
	struct percpu_alloc_info before, after;
	char *p = __alloc_percpu(16, 8), *q = __alloc_percpu(16, 8);
	void *heap = kmalloc(32);
	int cpu;

	KASSERT_NE(p, 0);
	KASSERT_NE(q, 0);
	KASSERT_NE(heap, 0);
	fill_every_cpu(q, 16, 0x3c);
	free_percpu(p);
	info(&before);
	free_percpu(p);                         /* double */
	free_percpu(q + 4);                     /* inside an allocation */
	free_percpu(q + 1);                     /* not even a granule */
	free_percpu(per_cpu_ptr(q, 0));         /* a CPU's copy */
	free_percpu(&static_var);               /* a static variable */
	free_percpu(heap);                      /* not per-CPU at all */
	free_percpu(0);                         /* nothing, silently */
	info(&after);
	KEXPECT_EQ(after.double_frees, before.double_frees + 1);
	KEXPECT_EQ(after.foreign_frees, before.foreign_frees + 5);
	KEXPECT_EQ(after.used, before.used);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs);
	for_each_possible_cpu(cpu)
		KEXPECT_TRUE(copy_is(q, cpu, 16, 0x3c));
	free_percpu(q);
	info(&after);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs - 1);
	KEXPECT_EQ(after.double_frees + after.foreign_frees,
		   before.double_frees + before.foreign_frees + 6);
	kfree(heap);
}

/* A freed pointer that a new allocation covers again is live again. */
KTEST(percpu_alloc, reallocated_pointer_frees_normally)
{
	struct percpu_alloc_info before, after;
	void *p = __alloc_percpu(32, 8), *q;

	KASSERT_NE(p, 0);
	free_percpu(p);
	q = __alloc_percpu(32, 8);
	KEXPECT_EQ(q, p);
	info(&before);
	free_percpu(q);
	info(&after);
	KEXPECT_EQ(after.double_frees, before.double_frees);
	KEXPECT_EQ(after.nr_allocs, before.nr_allocs - 1);
}
