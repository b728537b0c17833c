/*
 * Tests of per-CPU data (kernel/mm/percpu.c, arch/x86_64/asm/percpu.h): every
 * CPU has its own area, its GS base points at it, and the this_cpu_*
 * operations on every operand size act on the running CPU's copy only.
 *
 * These tests check the mechanism itself, so they reach copies through the
 * unchecked raw_* accessors (the per-CPU checker has its own suite,
 * lockdep_percpu). Work sent to other CPUs only records what it saw: the
 * test task checks the record afterwards.
 */
#include "ktest_util.h"

/* Per-CPU variables of these tests (the template is copied for each CPU). */
static DEFINE_PER_CPU(long, inc_counter);
static DEFINE_PER_CPU(long, total_counter);
static DEFINE_PER_CPU(unsigned long, remote_value);
static DEFINE_PER_CPU(int, initialised) = 4242;

/* One field of each operand size, each followed by a guard of its own
 * size: an operation of the wrong width would change the guard. */
struct op_sizes {
	char c, c_guard;
	short s, s_guard;
	int i, i_guard;
	long l, l_guard;
};
static DEFINE_PER_CPU(struct op_sizes, op_sizes);

#define GUARD 0x5a5a5a5a5a5a5a5al
#define POISON 0xdeadbeefdeadbeeful

/* Run fn(arg) on cpu and wait for it; the test ends if the call fails. */
static void on_cpu(int cpu, smp_call_func_t fn, void *arg)
{
	KASSERT_EQ(smp_call_function_single(cpu, fn, arg, true), 0);
}

static void zero_on_every_cpu(long *var)
{
	int cpu;

	for_each_possible_cpu(cpu)
		*raw_per_cpu_ptr(var, cpu) = 0;
}

/* *raw_per_cpu_ptr(&cpu_number, i) names CPU i, and the tests run on the
 * boot CPU. */
KTEST(percpu, cpu_number_matches_cpu)
{
	int cpu, n = 0;

	for_each_possible_cpu(cpu) {
		KEXPECT_EQ(*raw_per_cpu_ptr(&cpu_number, cpu), cpu);
		n++;
	}
	KEXPECT_EQ(n, nr_cpu_ids);
	KEXPECT_EQ(raw_smp_processor_id(), 0);
	KEXPECT_EQ(this_cpu_read(cpu_number), 0);
}

/* A DEFINE_PER_CPU initialiser reaches every CPU's copy. */
KTEST(percpu, initialiser_copied_to_every_cpu)
{
	int cpu;

	for_each_possible_cpu(cpu)
		KEXPECT_EQ(*raw_per_cpu_ptr(&initialised, cpu), 4242);
	KEXPECT_EQ(this_cpu_read(initialised), 4242);
}

/* What a CPU sees of its own area, read there. */
struct cpu_view {
	int cpu;                 /* raw_smp_processor_id() */
	unsigned long gs_base;   /* rdmsr(MSR_GS_BASE) */
	unsigned long off;       /* this_cpu_read(this_cpu_off) */
	long *ptr;               /* raw_cpu_ptr(&inc_counter) */
};

static void read_cpu_view(void *arg)
{
	struct cpu_view *v = arg;

	v->cpu = raw_smp_processor_id();
	v->gs_base = rdmsr(MSR_GS_BASE);
	v->off = this_cpu_read(this_cpu_off);
	v->ptr = raw_cpu_ptr(&inc_counter);
}

static struct cpu_view view[NR_CPUS];

/* Each online CPU's view, in view[]; the test ends if a call fails. */
static void read_every_cpu_view(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		view[cpu] = (struct cpu_view){-1, POISON, POISON, 0};
		on_cpu(cpu, read_cpu_view, &view[cpu]);
		KEXPECT_EQ(view[cpu].cpu, cpu);
	}
}

/* Each CPU's GS base, read on that CPU, is its __per_cpu_offset and its
 * this_cpu_off. */
KTEST(percpu, gs_base_is_per_cpu_offset)
{
	int cpu;

	read_every_cpu_view();
	for_each_online_cpu(cpu) {
		KEXPECT_NE(__per_cpu_offset[cpu], 0);
		KEXPECT_EQ(view[cpu].gs_base, __per_cpu_offset[cpu]);
		KEXPECT_EQ(view[cpu].off, __per_cpu_offset[cpu]);
		KEXPECT_EQ(*raw_per_cpu_ptr(&this_cpu_off, cpu), __per_cpu_offset[cpu]);
	}
}

static bool ranges_overlap(uintptr_t a, uintptr_t b, uintptr_t size)
{
	return a < b + size && b < a + size;
}

/* The CPUs' areas are page-aligned, pairwise disjoint, and none overlaps
 * the template. */
KTEST(percpu, areas_disjoint)
{
	uintptr_t size = __per_cpu_end - __per_cpu_start;
	uintptr_t tmpl = (uintptr_t)__per_cpu_start;
	int i, j;

	KASSERT_GT(size, 0);
	for_each_possible_cpu(i) {
		uintptr_t a = tmpl + __per_cpu_offset[i];

		KEXPECT_EQ(a % 4096, 0);
		if (ranges_overlap(a, tmpl, size))
			ktest_fail_msg(__FILE__, __LINE__,
				       "CPU %d's area %#lx overlaps the template",
				       i, (unsigned long)a);
		for_each_possible_cpu(j) {
			uintptr_t b = tmpl + __per_cpu_offset[j];

			if (j > i && ranges_overlap(a, b, size))
				ktest_fail_msg(__FILE__, __LINE__,
					       "areas of CPUs %d and %d overlap "
					       "(%#lx, %#lx, size %#lx)", i, j,
					       (unsigned long)a, (unsigned long)b,
					       (unsigned long)size);
		}
	}
}

static void inc_n_times(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		this_cpu_inc(inc_counter);
}

/* this_cpu_inc on CPU c changes c's copy only: c+1 increments on CPU c
 * leave exactly c+1 in c's copy. */
KTEST(percpu, inc_lands_in_own_copy)
{
	int cpu;

	zero_on_every_cpu(&inc_counter);
	for_each_online_cpu(cpu)
		on_cpu(cpu, inc_n_times, (void *)(long)(cpu + 1));
	for_each_possible_cpu(cpu)
		KEXPECT_EQ(*raw_per_cpu_ptr(&inc_counter, cpu),
			   cpu_online(cpu) ? cpu + 1 : 0);
}

static int ran_on[NR_CPUS];

static void count_run(void *arg)
{
	__atomic_fetch_add(&ran_on[raw_smp_processor_id()], 1, __ATOMIC_RELAXED);
}

/* smp_call_function_many(online, wait) runs once on every other online
 * CPU and not on the caller. */
KTEST(percpu, call_many_runs_once_on_each_other_cpu)
{
	int cpu, self = raw_smp_processor_id();

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		ran_on[cpu] = 0;
	smp_call_function_many(cpu_online_mask, count_run, 0, true);
	udelay(2000); /* room for a stray second run to show up */
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		KEXPECT_EQ(__atomic_load_n(&ran_on[cpu], __ATOMIC_RELAXED),
			   cpu_online(cpu) && cpu != self ? 1 : 0);
}

/* cmpxchg: success returns the old value and stores, failure returns the
 * current value and stores nothing; xchg returns the old and stores. */
#define CHECK_XCHG_OPS(var, a, b, c)                                          \
	do {                                                                  \
		__typeof__(var) a_ = (a), b_ = (b), c_ = (c);                 \
		this_cpu_write(var, a_);                                      \
		KEXPECT_EQ(this_cpu_read(var), a_);                           \
		KEXPECT_EQ(this_cpu_cmpxchg(var, a_, b_), a_);                \
		KEXPECT_EQ(this_cpu_read(var), b_);                           \
		KEXPECT_EQ(this_cpu_cmpxchg(var, a_, c_), b_);                \
		KEXPECT_EQ(this_cpu_read(var), b_);                           \
		KEXPECT_EQ(this_cpu_xchg(var, c_), b_);                       \
		KEXPECT_EQ(this_cpu_read(var), c_);                           \
	} while (0)

/* add/sub/inc/dec: a carry out of the operand (from -1 + 1) must not
 * reach the guard that follows it. */
#define CHECK_ARITH_OPS(var, base, delta)                                     \
	do {                                                                  \
		__typeof__(var) base_ = (base), delta_ = (delta);             \
		this_cpu_write(var, base_);                                   \
		this_cpu_add(var, delta_);                                    \
		KEXPECT_EQ(this_cpu_read(var), (__typeof__(var))(base_ + delta_)); \
		this_cpu_sub(var, delta_);                                    \
		KEXPECT_EQ(this_cpu_read(var), base_);                        \
		this_cpu_write(var, -1);                                      \
		this_cpu_inc(var);                                            \
		KEXPECT_EQ(this_cpu_read(var), 0);                            \
		this_cpu_dec(var);                                            \
		KEXPECT_EQ(this_cpu_read(var), -1);                           \
		this_cpu_dec(var);                                            \
		KEXPECT_EQ(this_cpu_read(var), -2);                           \
	} while (0)

static void set_guards(struct op_sizes *p)
{
	p->c_guard = (char)GUARD;
	p->s_guard = (short)GUARD;
	p->i_guard = (int)GUARD;
	p->l_guard = GUARD;
}

static void expect_guards(const struct op_sizes *p)
{
	KEXPECT_EQ(p->c_guard, (char)GUARD);
	KEXPECT_EQ(p->s_guard, (short)GUARD);
	KEXPECT_EQ(p->i_guard, (int)GUARD);
	KEXPECT_EQ(p->l_guard, GUARD);
}

/* xchg and cmpxchg on 1-, 2-, 4- and 8-byte variables, each exactly its
 * own width. */
KTEST(percpu, xchg_cmpxchg_every_size)
{
	struct op_sizes *mine = raw_cpu_ptr(&op_sizes);

	/* Each check reads a value and then exchanges it: two operations,
	 * so nothing else may run on this CPU between them. */
	preempt_disable();
	set_guards(mine);
	CHECK_XCHG_OPS(op_sizes.c, 0x12, 0x34, 0x56);
	CHECK_XCHG_OPS(op_sizes.c, -1, 0x7f, -128);
	CHECK_XCHG_OPS(op_sizes.s, 0x1234, 0x5678, -2);
	CHECK_XCHG_OPS(op_sizes.i, 0x12345678, -0x789abcde, 0x7fffffff);
	CHECK_XCHG_OPS(op_sizes.l, 0x123456789abcdef0l, -1l,
		       0x7edcba9876543210l);
	expect_guards(mine);
	preempt_enable();
}

/* read/write/add/sub/inc/dec on 1-, 2-, 4- and 8-byte variables, each
 * exactly its own width, and on this CPU's copy only. */
KTEST(percpu, arith_ops_every_size)
{
	struct op_sizes *mine = raw_cpu_ptr(&op_sizes);
	int cpu, self = raw_smp_processor_id();

	for_each_possible_cpu(cpu) {
		*raw_per_cpu_ptr(&op_sizes, cpu) = (struct op_sizes){0};
		set_guards(raw_per_cpu_ptr(&op_sizes, cpu));
	}
	/* Values checked and then overwritten: two operations, so nothing
	 * else may run on this CPU between them. */
	preempt_disable();
	CHECK_ARITH_OPS(op_sizes.c, 0x70, 0x20);
	CHECK_ARITH_OPS(op_sizes.s, 0x7ff0, 0x1234);
	CHECK_ARITH_OPS(op_sizes.i, 0x7ffffff0, 0x12345);
	CHECK_ARITH_OPS(op_sizes.l, 0x7ffffffffffffff0l, 0x123456789l);
	preempt_enable();
	expect_guards(mine);
	for_each_possible_cpu(cpu) {
		const struct op_sizes *other = raw_per_cpu_ptr(&op_sizes, cpu);

		if (cpu == self)
			continue;
		KEXPECT_EQ(other->c | other->s | other->i | other->l, 0);
		expect_guards(other);
	}
}

static void write_remote_value(void *arg)
{
	this_cpu_write(remote_value,
		       (unsigned long)arg ^ (unsigned long)raw_smp_processor_id());
}

/* What a CPU writes to its own copy, per_cpu() on this CPU reads back
 * once smp_call_function_single(wait) has returned. */
KTEST(percpu, remote_read_sees_owner_write)
{
	static const unsigned long round_keys[] = {
		0x1111111100000000ul, 0x2222222200000000ul, 0x3333333300000000ul,
	};
	int cpu;

	zero_on_every_cpu((long *)&remote_value);
	for (unsigned r = 0; r < ARRAY_SIZE(round_keys); r++) {
		for_each_online_cpu(cpu) {
			on_cpu(cpu, write_remote_value, (void *)round_keys[r]);
			KEXPECT_EQ(*raw_per_cpu_ptr(&remote_value, cpu),
				   round_keys[r] ^ cpu);
		}
	}
}

/* raw_cpu_ptr(&v) is raw_per_cpu_ptr(&v, the running CPU), here and on every
 * other CPU, and the pointers of different CPUs differ. */
KTEST(percpu, this_cpu_ptr_matches_per_cpu_ptr)
{
	int cpu, other;

	/* The checked forms, with preemption off as they require. */
	preempt_disable();
	KEXPECT_EQ((uintptr_t)this_cpu_ptr(&inc_counter),
		   (uintptr_t)per_cpu_ptr(&inc_counter, raw_smp_processor_id()));
	KEXPECT_EQ((uintptr_t)this_cpu_ptr(&inc_counter),
		   (uintptr_t)raw_cpu_ptr(&inc_counter));
	preempt_enable();
	KEXPECT_NE((uintptr_t)raw_cpu_ptr(&inc_counter),
		   (uintptr_t)&inc_counter);
	read_every_cpu_view();
	for_each_online_cpu(cpu)
		KEXPECT_EQ((uintptr_t)view[cpu].ptr,
			   (uintptr_t)raw_per_cpu_ptr(&inc_counter, cpu));
	for_each_online_cpu(cpu)
		for_each_online_cpu(other)
			if (other > cpu)
				KEXPECT_NE((uintptr_t)view[cpu].ptr,
					   (uintptr_t)view[other].ptr);
}

#define TOTAL_INCS 100000

static int total_done;

static void inc_total(void *arg)
{
	for (int i = 0; i < TOTAL_INCS; i++)
		this_cpu_inc(total_counter);
	__atomic_fetch_add(&total_done, 1, __ATOMIC_RELEASE);
}

/* All CPUs at once do TOTAL_INCS this_cpu_inc each: no update is lost
 * and each lands in its own CPU's copy. */
KTEST(percpu, concurrent_incs_exact_total)
{
	int cpu, n = num_online_cpus();
	long sum = 0;

	zero_on_every_cpu(&total_counter);
	__atomic_store_n(&total_done, 0, __ATOMIC_RELEASE);
	smp_call_function_many(cpu_online_mask, inc_total, 0, false);
	inc_total(0); /* the same work here, with interrupts on */
	if (!ktest_poll_until(load_int(&total_done) >= n, KTEST_WAIT_MS,
			      POLL_SPIN))
		ktest_fail_msg(__FILE__, __LINE__,
			       "only %d of %d CPUs finished within %lu s",
			       load_int(&total_done), n, KTEST_WAIT_MS / 1000);
	for_each_possible_cpu(cpu) {
		KEXPECT_EQ(*raw_per_cpu_ptr(&total_counter, cpu),
			   cpu_online(cpu) ? TOTAL_INCS : 0);
		sum += *raw_per_cpu_ptr(&total_counter, cpu);
	}
	KEXPECT_EQ(sum, (long)TOTAL_INCS * n);
}
