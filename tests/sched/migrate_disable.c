/*
 * migrate_disable() itself (kernel/sched/sched.h, kernel/sched/migrate.c):
 * the count nests and is the task's own, it leaves the task preemptible,
 * and a pinned task preempted again and again keeps its CPU and its
 * per-CPU data under get_cpu_var() exact.
 */
#include "sched_util.h"

/* Steps of nest_fn: before, after one and two disables, after a sleep,
 * after one and two enables. */
#define NEST_STEPS 6

struct nest_record {
	int depth[NEST_STEPS];           /* migration_disabled at each step */
	int cpu[NEST_STEPS];
	bool preemptible_inside;
};

static void nest_step(struct nest_record *r, int i)
{
	r->depth[i] = current->migration_disabled;
	r->cpu[i] = raw_smp_processor_id();
}

static int nest_fn(void *arg)
{
	struct nest_record *r = arg;

	nest_step(r, 0);
	migrate_disable();
	nest_step(r, 1);
	migrate_disable();
	nest_step(r, 2);
	r->preemptible_inside = preemptible();
	msleep(2); /* sleeping is allowed, and wakes on the same CPU */
	nest_step(r, 3);
	migrate_enable();
	nest_step(r, 4);
	migrate_enable();
	nest_step(r, 5);
	return 0;
}

/* migrate_disable() nests: twice, then once enabled, the task is still
 * pinned (count 1, same CPU, even across a sleep); the second enable takes
 * the count to 0. In the test task and in an unbound helper. */
KTEST(migrate, disable_nests)
{
	static const int want_depth[NEST_STEPS] = {0, 1, 2, 2, 1, 0};
	struct nest_record r = {.preemptible_inside = false};
	struct task_struct *me = current;
	int cpu = raw_smp_processor_id();

	KASSERT_EQ(me->migration_disabled, 0);
	migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 1);
	migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 2);
	for (int i = 0; i < 8; i++)
		migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 10);
	for (int i = 0; i < 9; i++)
		migrate_enable();
	KEXPECT_EQ(me->migration_disabled, 1);
	KEXPECT_EQ(raw_smp_processor_id(), cpu);
	migrate_enable();
	KEXPECT_EQ(me->migration_disabled, 0);

	for (int i = 0; i < NEST_STEPS; i++)
		r.depth[i] = r.cpu[i] = -1;
	ktest_run_on(-1, nest_fn, &r, "nest");
	ktest_log("helper: depth %d -> %d -> %d -> %d -> %d -> %d on CPUs %d "
		  "%d %d %d", r.depth[0], r.depth[1], r.depth[2], r.depth[3],
		  r.depth[4], r.depth[5], r.cpu[1], r.cpu[2], r.cpu[3],
		  r.cpu[4]);
	for (int i = 0; i < NEST_STEPS; i++)
		KEXPECT_EQ(r.depth[i], want_depth[i]);
	for (int i = 2; i <= 4; i++)
		KEXPECT_EQ(r.cpu[i], r.cpu[1]);
	KEXPECT_TRUE(r.preemptible_inside);
}

struct context {
	int preempt_count;
	bool irqs_off, preemptible;
};

static struct context context_now(void)
{
	return (struct context){preempt_count(), irqs_disabled(),
				preemptible()};
}

/* The fast path only counts in the task: the preempt count stays as it
 * was (0 here, 1 inside preempt_disable()), interrupts stay on, and the
 * task stays preemptible. */
KTEST(migrate, fast_path_leaves_preemption_on)
{
	struct context in[2];
	int pc_after, pc_nested;

	KASSERT_EQ(preempt_count(), 0);
	KASSERT_FALSE(irqs_disabled());
	for (int i = 0; i < 2; i++) {
		migrate_disable();
		in[i] = context_now();
	}
	migrate_enable();
	migrate_enable();
	pc_after = preempt_count();
	preempt_disable();
	migrate_disable();
	pc_nested = preempt_count();
	migrate_enable();
	KEXPECT_EQ(preempt_count(), pc_nested);
	preempt_enable();
	ktest_log("preempt count 0, %d, %d, after %d; inside preempt_disable "
		  "%d", in[0].preempt_count, in[1].preempt_count, pc_after,
		  pc_nested);
	for (int i = 0; i < 2; i++) {
		KEXPECT_EQ(in[i].preempt_count, 0);
		KEXPECT_FALSE(in[i].irqs_off);
		KEXPECT_TRUE(in[i].preemptible);
	}
	KEXPECT_EQ(pc_after, 0);
	KEXPECT_EQ(pc_nested, 1);
	KEXPECT_FALSE(in_interrupt());
	KEXPECT_EQ(preempt_count(), 0);
	KEXPECT_EQ(current->migration_disabled, 0);
}

/* A task holding migrate_disable() is still preempted: a FIFO task bound
 * to its CPU runs there (its counter moves, 20 times) while the task spins
 * pinned, still migrate-disabled; the task never leaves the CPU. */
KTEST(migrate, preempted_while_disabled)
{
	static struct pin_watch w;

	w = (struct pin_watch){.cpu = -1};
	KASSERT_TRUE(pin_watch_start(&w, pin_watch_fn, "pinned", last_cpu(),
				     SCHED_NORMAL, 0));
	preempt_for(&w.k, &w.seen, 20);
	pin_watch_finish(&w);
	ktest_log("pinned on CPU %d: saw the FIFO task run %ld times in %ld "
		  "iterations (it ran %ld times, %ld while pinned), %ld "
		  "iterations elsewhere", w.cpu, w.seen, w.iters, w.k.runs,
		  w.k.runs_while, w.moved);
	KEXPECT_GE(w.seen, 20);
	KEXPECT_EQ(w.moved, 0);
	KEXPECT_EQ(w.depth, 1);
}

struct pcp_pair {
	long a, b;
};
static DEFINE_PER_CPU(struct pcp_pair, pcp_pair);

#define PAIR_NORMAL_ITERS 20000
#define PAIR_FIFO_ITERS 2000

struct pair_arg {
	long iters;
	int sleep_every;                 /* msleep(1) every so many, 0: never */
	volatile long done;
};

/* Read-modify-write with a window between the read and the write, inside
 * get_cpu_var(): a preemption in the window would lose an update to a. */
static int pair_fn(void *arg)
{
	struct pair_arg *p = arg;

	for (long i = 0; i < p->iters; i++) {
		struct pcp_pair *v = &get_cpu_var(pcp_pair);
		long x = v->a;

		for (int k = 0; k < 20; k++)
			cpu_relax();
		v->a = x + 1;
		v->b++;
		put_cpu_var(pcp_pair);
		inc_long(&p->done);
		if (p->sleep_every && i % p->sleep_every == 0)
			msleep(1);
	}
	return 0;
}

/* NORMAL tasks on one CPU and FIFO tasks there that sleep and wake every
 * ms (preempting them), plus unbound NORMAL tasks anywhere, all update the
 * same per-CPU pair non-atomically under get_cpu_var(): each CPU's a and b
 * come out equal, and the sums are exactly the iterations done. */
KTEST(migrate, get_cpu_var_updates_exact)
{
	static const struct {
		bool bound;
		int policy, prio, sleep_every;
		long iters;
	} cfg[] = {
		{true, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{true, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{true, SCHED_FIFO, 10, 40, PAIR_FIFO_ITERS},
		{true, SCHED_FIFO, 20, 50, PAIR_FIFO_ITERS},
		{false, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{false, SCHED_NORMAL, 0, 1000, PAIR_NORMAL_ITERS},
	};
	static struct pair_arg args[ARRAY_SIZE(cfg)];
	struct task_struct *t[ARRAY_SIZE(cfg)];
	long want = 0, sum_a = 0, sum_b = 0, uneven = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		*raw_per_cpu_ptr(&pcp_pair, cpu) = (struct pcp_pair){0, 0};
	for (unsigned i = 0; i < ARRAY_SIZE(cfg); i++) {
		args[i] = (struct pair_arg){.iters = cfg[i].iters,
					    .sleep_every = cfg[i].sleep_every};
		t[i] = ktest_spawn(pair_fn, &args[i], "pair",
				   cfg[i].bound ? last_cpu() : -1,
				   cfg[i].policy, cfg[i].prio, true);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(cfg); i++) {
		ktest_join(t[i]);
		want += args[i].done;
		KEXPECT_EQ(args[i].done, cfg[i].iters);
	}
	for_each_possible_cpu(cpu) {
		/* Unchecked: the workers have been joined. */
		struct pcp_pair *v = raw_per_cpu_ptr(&pcp_pair, cpu);

		sum_a += v->a;
		sum_b += v->b;
		uneven += v->a != v->b;
		if (v->a || v->b)
			ktest_log("CPU %d: a %ld b %ld", cpu, v->a, v->b);
	}
	ktest_log("%ld updates: sum of a %ld, of b %ld", want, sum_a, sum_b);
	KEXPECT_EQ(uneven, 0);
	KEXPECT_EQ(sum_a, want);
	KEXPECT_EQ(sum_b, want);
}
