/*
 * Tests of migrate_disable()/migrate_enable() (kernel/sched/sched.h,
 * kernel/sched/migrate.c, kernel/sched/balance.c): the count nests and is the task's
 * own; it leaves the task preemptible (no preempt count, interrupts on);
 * while it is held nothing moves the task (balancing, RT push and pull,
 * affinity changes), although other tasks preempt it all the time; an
 * affinity change that excludes the task's CPU waits for the outermost
 * migrate_enable(); and per-CPU data under get_cpu_var() stays exact with
 * tasks preempting each other on one CPU. Affinity changes of sleeping
 * tasks are in migrate_affinity.c.
 *
 * Helper tasks only record (KEXPECT_* at most), stop on a shared flag or
 * on a hard deadline of their own, and are always joined; the test task
 * checks the record and prints the counts it checked with ktest_log.
 */
#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "asm/processor.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "preempt.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "wait.h"

static void inc_long(volatile long *p)
{
	__atomic_store_n(p, *p + 1, __ATOMIC_RELEASE);
}

/* All online CPUs but one (there must be two or more). */
static void mask_without(cpumask_t *m, int cpu)
{
	int c;

	cpumask_clear(m);
	for_each_online_cpu(c)
		if (c != cpu)
			cpumask_set_cpu(c, m);
}

/* ---- helpers shared by several tests ---- */

/*
 * A FIFO task bound to a CPU to preempt whatever runs there: it sleeps on
 * a completion for at most 1 ms, so it wakes every ms by itself (a timer)
 * and at once when kicked from another CPU (a wakeup by IPI), and counts
 * its runs. Timer wakeups alone are few under TCG on a loaded host (a
 * vCPU that is not running takes no interrupt), so the tests that need
 * thousands of preemptions kick it from another CPU as fast as it runs.
 */
struct preemptor {
	struct completion kick;
	volatile int stop;
	volatile long runs;
	volatile long runs_while;        /* ... while *watch was non-zero */
	volatile int *watch;
};

/* How long a test may keep preempting before it gives up on its count:
 * a guard against a hang, not a measure (the counts decide), and inside
 * the preemptor's own HELPER_MAX_NS. */
#define PREEMPT_BOUND_MS 15000

static void preemptor_init(struct preemptor *k, volatile int *watch)
{
	*k = (struct preemptor){.watch = watch};
	init_completion(&k->kick);
}

static int preemptor_fn(void *arg)
{
	struct preemptor *k = arg;
	uint64_t t0 = ktime_get_ns();

	while (!load_int(&k->stop) && ns_since(t0) < HELPER_MAX_NS) {
		wait_for_completion_timeout(&k->kick, NS_PER_MS);
		if (k->watch && load_int(k->watch))
			inc_long(&k->runs_while);
		inc_long(&k->runs);
	}
	return 0;
}

/* Wake k and wait (spinning, at most 20 ms) until it has run. */
static void kick(struct preemptor *k)
{
	long r = load_long(&k->runs);

	complete(&k->kick);
	ktest_poll_until(load_long(&k->runs) != r, 20, POLL_SPIN);
}

static void preemptor_stop(struct preemptor *k)
{
	store_int(&k->stop, 1);
	complete(&k->kick);
}

/* ---- the count ---- */

struct nest_record {
	int depth[6];
	int cpu[6];
	bool preemptible_inside;
};

static int nest_fn(void *arg)
{
	struct nest_record *r = arg;
	struct task *me = current;

	r->depth[0] = me->migration_disabled;
	migrate_disable();
	r->depth[1] = me->migration_disabled;
	r->cpu[1] = raw_smp_processor_id();
	migrate_disable();
	r->depth[2] = me->migration_disabled;
	r->cpu[2] = raw_smp_processor_id();
	r->preemptible_inside = preemptible();
	msleep(2); /* sleeping is allowed, and wakes on the same CPU */
	r->cpu[3] = raw_smp_processor_id();
	migrate_enable();
	r->depth[3] = me->migration_disabled;
	r->cpu[4] = raw_smp_processor_id();
	migrate_enable();
	r->depth[4] = me->migration_disabled;
	return 0;
}

/* migrate_disable() nests: twice, then once enabled, the task is still
 * pinned (count 1, same CPU, even across a sleep); the second enable takes
 * the count to 0. In the test task and in an unbound helper. */
KTEST(migrate, disable_nests)
{
	struct nest_record r = {.depth = {-1, -1, -1, -1, -1, -1}};
	struct task *me = current, *t;
	int cpu = raw_smp_processor_id();

	KASSERT_EQ(me->migration_disabled, 0);
	migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 1);
	migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 2);
	for (int i = 0; i < 8; i++)
		migrate_disable();
	KEXPECT_EQ(me->migration_disabled, 10);
	for (int i = 0; i < 8; i++)
		migrate_enable();
	migrate_enable();
	KEXPECT_EQ(me->migration_disabled, 1);
	KEXPECT_EQ(raw_smp_processor_id(), cpu);
	migrate_enable();
	KEXPECT_EQ(me->migration_disabled, 0);

	t = ktest_spawn(nest_fn, &r, "nest", -1, SCHED_NORMAL, 0, true);
	ktest_join(t);
	ktest_log("helper: depth %d -> %d -> %d -> %d -> %d on CPUs %d %d %d "
		  "%d", r.depth[0], r.depth[1], r.depth[2], r.depth[3],
		  r.depth[4], r.cpu[1], r.cpu[2], r.cpu[3], r.cpu[4]);
	KEXPECT_EQ(r.depth[0], 0);
	KEXPECT_EQ(r.depth[1], 1);
	KEXPECT_EQ(r.depth[2], 2);
	KEXPECT_EQ(r.depth[3], 1);
	KEXPECT_EQ(r.depth[4], 0);
	KEXPECT_EQ(r.cpu[2], r.cpu[1]);
	KEXPECT_EQ(r.cpu[3], r.cpu[1]);
	KEXPECT_EQ(r.cpu[4], r.cpu[1]);
	KEXPECT_TRUE(r.preemptible_inside);
}

/* The fast path only counts in the task: the preempt count stays as it
 * was (0 here, 1 inside preempt_disable()), interrupts stay on, and the
 * task stays preemptible. */
KTEST(migrate, fast_path_leaves_preemption_on)
{
	int pc0 = preempt_count(), pc1, pc2, pc3, pc4;
	bool irqs_off1, irqs_off2, pre1, pre2;

	KASSERT_EQ(pc0, 0);
	KASSERT_FALSE(irqs_disabled());
	migrate_disable();
	pc1 = preempt_count();
	irqs_off1 = irqs_disabled();
	pre1 = preemptible();
	migrate_disable();
	pc2 = preempt_count();
	irqs_off2 = irqs_disabled();
	pre2 = preemptible();
	migrate_enable();
	migrate_enable();
	pc3 = preempt_count();
	preempt_disable();
	migrate_disable();
	pc4 = preempt_count();
	migrate_enable();
	KEXPECT_EQ(preempt_count(), pc4);
	preempt_enable();
	ktest_log("preempt count %d, %d, %d, after %d; inside "
		  "preempt_disable %d", pc0, pc1, pc2, pc3, pc4);
	KEXPECT_EQ(pc1, 0);
	KEXPECT_EQ(pc2, 0);
	KEXPECT_EQ(pc3, 0);
	KEXPECT_EQ(pc4, 1);
	KEXPECT_FALSE(irqs_off1);
	KEXPECT_FALSE(irqs_off2);
	KEXPECT_TRUE(pre1);
	KEXPECT_TRUE(pre2);
	KEXPECT_FALSE(in_interrupt());
	KEXPECT_EQ(preempt_count(), 0);
	KEXPECT_EQ(current->migration_disabled, 0);
}

/* ---- preempted while pinned ---- */

/* Start fn on the last CPU but free to go anywhere: it takes
 * migrate_disable() first thing and reports its CPU in *cpu, then the
 * affinity is widened to every CPU. Returns the task (NULL on failure). */
static struct task *start_pinned(int (*fn)(void *), const char *name,
				 volatile int *cpu)
{
	struct task *t = ktest_spawn(fn, 0, name, -1, SCHED_NORMAL, 0, false);

	if (!t)
		return 0;
	KEXPECT_EQ(set_cpus_allowed(t, cpumask_of(last_cpu())), 0);
	wake_up_process(t);
	KEXPECT_TRUE(ktest_poll_int(cpu, 0, 3000));
	KEXPECT_EQ(set_cpus_allowed(t, cpu_online_mask), 0);
	return t;
}

/* Preempt whatever runs on the preemptor's CPU, by kicks from here when
 * this is another CPU, else by its own timer wakeups, until it has run
 * want times (counted in *count). timeout_ms only keeps a broken kernel
 * from hanging the test; hitting it is logged, and the caller's
 * assertions on *count say whether that is a failure. */
static void preempt_for(struct preemptor *k, volatile long *count, long want,
			uint64_t timeout_ms, int cpu)
{
	uint64_t t0 = ktime_get_ns();

	while (load_long(count) < want) {
		if (ns_since(t0) >= timeout_ms * NS_PER_MS) {
			ktest_log("safety bound: %ld of %ld preemptions after "
				  "%lu ms", load_long(count), want,
				  (unsigned long)timeout_ms);
			return;
		}
		if (cpu != raw_smp_processor_id())
			kick(k);
		else
			msleep(2);
	}
}

static struct {
	volatile int cpu;                /* where the pinned task is */
	volatile int go;
	volatile int disabled;           /* it holds migrate_disable */
	volatile long seen;              /* preemptor runs it saw, pinned */
	long moved, iters;
	int depth_at_end;
	struct preemptor k;
} pin;

static int pinned_observer(void *arg)
{
	uint64_t t0 = ktime_get_ns();
	long last;
	int cpu;

	migrate_disable();
	store_int(&pin.disabled, 1);
	cpu = raw_smp_processor_id();
	store_int(&pin.cpu, cpu);
	while (!load_int(&pin.go) && ns_since(t0) < 5000 * NS_PER_MS)
		cpu_relax();
	last = load_long(&pin.k.runs);
	while (pin.seen < 20 && ns_since(t0) < 5000 * NS_PER_MS) {
		long r = load_long(&pin.k.runs);

		pin.moved += raw_smp_processor_id() != cpu;
		if (r != last) {
			inc_long(&pin.seen);
			last = r;
		}
		pin.iters++;
		cpu_relax();
	}
	pin.depth_at_end = current->migration_disabled;
	store_int(&pin.disabled, 0);
	migrate_enable();
	return 0;
}

/* A task holding migrate_disable() is still preempted: a FIFO task bound
 * to its CPU runs there (its counter moves, 20 times) while the task spins
 * pinned, still migrate-disabled; the task never leaves the CPU. */
KTEST(migrate, preempted_while_disabled)
{
	struct task *t, *k = 0;

	pin = (typeof(pin)){.cpu = -1};
	preemptor_init(&pin.k, &pin.disabled);
	t = start_pinned(pinned_observer, "pinned", &pin.cpu);
	KASSERT_TRUE(t);
	if (pin.cpu >= 0)
		k = ktest_spawn(preemptor_fn, &pin.k, "preemptor", pin.cpu,
				SCHED_FIFO, 50, true);
	store_int(&pin.go, 1);
	if (k)
		preempt_for(&pin.k, &pin.seen, 20, 5000, pin.cpu);
	ktest_join(t);
	preemptor_stop(&pin.k);
	ktest_join(k);
	ktest_log("pinned on CPU %d: saw the FIFO task run %ld times in %ld "
		  "iterations (it ran %ld times, %ld while pinned), %ld "
		  "iterations elsewhere", pin.cpu, pin.seen, pin.iters,
		  pin.k.runs, pin.k.runs_while, pin.moved);
	KEXPECT_GE(pin.seen, 20);
	KEXPECT_EQ(pin.moved, 0);
	KEXPECT_EQ(pin.depth_at_end, 1);
}

static unsigned long warnings(void)
{
	return __atomic_load_n(&smp_processor_id_warnings, __ATOMIC_RELAXED);
}

static struct {
	volatile int cpu;
	volatile int stop;
	volatile long preemptions;
	long mismatches, iters;
	int first, bad;
	unsigned long warnings_before, warnings_after;
	struct preemptor k;
} sid;

static int stable_id_fn(void *arg)
{
	uint64_t t0 = ktime_get_ns();
	unsigned long sw;
	int cpu;

	migrate_disable();
	sid.warnings_before = warnings();
	cpu = sid.first = smp_processor_id();
	sw = per_cpu(nr_switches, cpu);
	store_int(&sid.cpu, cpu);
	while (!load_int(&sid.stop) && ns_since(t0) < HELPER_MAX_NS) {
		int now = smp_processor_id();
		unsigned long s = per_cpu(nr_switches, cpu);

		if (s != sw) { /* switches on our CPU: we were switched out */
			inc_long(&sid.preemptions);
			sw = s;
		}
		if (now != cpu) {
			sid.mismatches++;
			sid.bad = now;
		}
		sid.iters++;
	}
	sid.warnings_after = warnings();
	migrate_enable();
	return 0;
}

/* While migration is disabled, smp_processor_id() answers the same CPU
 * before and after every preemption (hundreds: by a FIFO task, and by time
 * slices with a busy NORMAL task), and it does not report: the task is not
 * bound, so without migrate_disable() it would (on two or more CPUs). */
KTEST(migrate, same_cpu_id_across_preemptions)
{
	struct task *t, *k = 0, *busy = 0;

	sid = (typeof(sid)){.cpu = -1, .bad = -1};
	preemptor_init(&sid.k, 0);
	t = start_pinned(stable_id_fn, "stable-id", &sid.cpu);
	KASSERT_TRUE(t);
	if (sid.cpu >= 0) {
		k = ktest_spawn(preemptor_fn, &sid.k, "preemptor", sid.cpu,
				SCHED_FIFO, 50, true);
		busy = ktest_spawn_on(sid.cpu, ktest_spin_until_stopped,
				      (void *)&sid.stop, "busy");
	}
	if (k)
		preempt_for(&sid.k, &sid.preemptions, 300, PREEMPT_BOUND_MS,
			    sid.cpu);
	store_int(&sid.stop, 1);
	preemptor_stop(&sid.k);
	ktest_join(t);
	ktest_join(k);
	ktest_join(busy);
	ktest_log("CPU %d: %ld iterations, %ld preemptions, %ld other CPU ids "
		  "(last %d), FIFO task ran %ld times, %lu new reports",
		  sid.first, sid.iters, sid.preemptions, sid.mismatches,
		  sid.bad, sid.k.runs,
		  sid.warnings_after - sid.warnings_before);
	KEXPECT_GE(sid.preemptions, 50);
	KEXPECT_EQ(sid.mismatches, 0);
	KEXPECT_EQ(sid.warnings_after, sid.warnings_before);
}

/* ---- per-CPU data under get_cpu_var() ---- */

struct pcp_pair {
	long a;
	long b;
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
	static struct pair_arg args[6];
	static const struct { int cpu, policy, prio, sleep_every; long iters; }
	    cfg[6] = {
		{1, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{1, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{1, SCHED_FIFO, 10, 40, PAIR_FIFO_ITERS},
		{1, SCHED_FIFO, 20, 50, PAIR_FIFO_ITERS},
		{-1, SCHED_NORMAL, 0, 0, PAIR_NORMAL_ITERS},
		{-1, SCHED_NORMAL, 0, 1000, PAIR_NORMAL_ITERS},
	};
	struct task *t[6];
	long want = 0, sum_a = 0, sum_b = 0, uneven = 0;
	int cpu, c = last_cpu();

	for_each_possible_cpu(cpu)
		*raw_per_cpu_ptr(&pcp_pair, cpu) = (struct pcp_pair){0, 0};
	for (int i = 0; i < 6; i++) {
		args[i] = (struct pair_arg){cfg[i].iters, cfg[i].sleep_every,
					    0};
		t[i] = ktest_spawn(pair_fn, &args[i], "pair",
				   cfg[i].cpu < 0 ? -1 : c, cfg[i].policy,
				   cfg[i].prio, true);
	}
	for (int i = 0; i < 6; i++) {
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

/* ---- nothing moves a pinned task ---- */

static struct {
	volatile int start_cpu;
	volatile int go, finish;
	volatile int disabled;
	volatile long iters, moved, preempted;
	volatile int still_there_inner;  /* after the inner enable */
	volatile int pending_before_outer;
	volatile int cpu_after_outer;
	volatile int allowed_after_outer;
	volatile int pending_after_outer;
	volatile int done;
	volatile int load_stop;
	struct preemptor k;
} hold;

static int hold_fn(void *arg)
{
	uint64_t t0 = ktime_get_ns();
	unsigned long sw;
	int cpu;

	migrate_disable();
	store_int(&hold.disabled, 1);
	cpu = raw_smp_processor_id();
	store_int(&hold.start_cpu, cpu);
	sw = per_cpu(nr_switches, cpu);
	while (!load_int(&hold.finish) && ns_since(t0) < HELPER_MAX_NS) {
		unsigned long s = per_cpu(nr_switches, cpu);

		if (raw_smp_processor_id() != cpu)
			inc_long(&hold.moved);
		if (s != sw) {
			inc_long(&hold.preempted);
			sw = s;
		}
		inc_long(&hold.iters);
		cpu_relax();
	}
	/* Depth 2, back to 1: still pinned, still here. */
	migrate_disable();
	migrate_enable();
	hold.still_there_inner = raw_smp_processor_id() == cpu;
	hold.pending_before_outer = current->migration_pending;
	store_int(&hold.disabled, 0);
	migrate_enable(); /* outermost: the affinity change happens now */
	preempt_disable();
	hold.cpu_after_outer = raw_smp_processor_id();
	hold.allowed_after_outer = cpumask_test_cpu(hold.cpu_after_outer,
						    &current->cpus_mask);
	preempt_enable();
	hold.pending_after_outer = current->migration_pending;
	store_int(&hold.done, 1);
	return 0;
}

#define HOLD_LOAD 2

/*
 * A NORMAL task T, not bound, takes migrate_disable() and spins on its CPU
 * c checking it never runs elsewhere, while: NORMAL tasks bound to c keep
 * it queued behind them (so idle CPUs try to pull it: it is the only task
 * there that may move), a FIFO task bound to c wakes every ms and whenever
 * kicked from CPU 0, preempting it thousands of times, and the test keeps
 * setting T's affinity to masks without c. T stays on c; its
 * migration_pending is set; an inner migrate_enable() leaves it on c, and
 * the outermost one moves it to an allowed CPU.
 */
KTEST_CPUS(migrate, pinned_task_never_moves, 2)
{
	struct task *t, *k = 0, *load[HOLD_LOAD] = {0};
	int c = last_cpu(), changes = 0, pending_seen = 0;
	cpumask_t away, other;
	uint64_t t0;
	bool done;

	hold = (typeof(hold)){.start_cpu = -1, .cpu_after_outer = -1};
	preemptor_init(&hold.k, &hold.disabled);
	t = ktest_spawn(hold_fn, 0, "holder", c, SCHED_NORMAL, 0, true);
	KASSERT_TRUE(t);
	KEXPECT_TRUE(ktest_poll_int(&hold.start_cpu, 0, 3000));
	KEXPECT_EQ(hold.start_cpu, c);
	/* Free to go anywhere, but for migrate_disable(). */
	KEXPECT_EQ(set_cpus_allowed(t, cpu_online_mask), 0);
	for (int i = 0; i < HOLD_LOAD; i++)
		load[i] = ktest_spawn_on(c, ktest_spin_until_stopped,
					 (void *)&hold.load_stop, "load");
	k = ktest_spawn(preemptor_fn, &hold.k, "preemptor", c, SCHED_FIFO, 50,
			true);
	mask_without(&away, c);
	cpumask_clear(&other);
	cpumask_set_cpu(0, &other);
	t0 = ktime_get_ns();
	/* Until the FIFO task has run thousands of times (the counts, not
	 * the time, are what the test needs: a starved vCPU only slows it). */
	while (load_long(&hold.k.runs_while) < 3000 ||
	       load_long(&hold.preempted) < 1000) {
		if (ns_since(t0) >= PREEMPT_BOUND_MS * NS_PER_MS) {
			ktest_log("safety bound: %ld FIFO runs, %ld preemptions "
				  "after %d ms", load_long(&hold.k.runs_while),
				  load_long(&hold.preempted), PREEMPT_BOUND_MS);
			break;
		}
		for (int i = 0; i < 10 && k; i++)
			kick(&hold.k);
		KEXPECT_EQ(set_cpus_allowed(t, changes % 2 ? &other : &away),
			   0);
		changes++;
		pending_seen += t->migration_pending;
	}
	/* The last mask excludes c: T leaves it at the outermost enable. */
	KEXPECT_EQ(set_cpus_allowed(t, &away), 0);
	pending_seen += t->migration_pending;
	changes++;
	store_int(&hold.finish, 1);
	/* A bound, not an expectation: 32 vCPUs on 2 host cores have
	 * needed more than 5 s here. */
	done = ktest_poll_int(&hold.done, 1, 20000);
	preemptor_stop(&hold.k);
	store_int(&hold.load_stop, 1);
	ktest_join(t);
	ktest_join(k);
	for (int i = 0; i < HOLD_LOAD; i++)
		ktest_join(load[i]);
	ktest_log("on CPU %d for %lu ms: %ld iterations, %ld elsewhere; "
		  "preempted %ld times; FIFO task ran %ld times while it was "
		  "pinned; %d affinity changes, pending after %d of them",
		  hold.start_cpu, (unsigned long)(ns_since(t0) / NS_PER_MS),
		  hold.iters, hold.moved, hold.preempted, hold.k.runs_while,
		  changes, pending_seen);
	ktest_log("inner enable: still there %d, pending %d; outer enable: on "
		  "CPU %d (allowed %d), pending %d", hold.still_there_inner,
		  hold.pending_before_outer, hold.cpu_after_outer,
		  hold.allowed_after_outer, hold.pending_after_outer);
	KEXPECT_TRUE(done);
	KEXPECT_EQ(hold.moved, 0);
	KEXPECT_GT(hold.iters, 0);
	KEXPECT_GE(hold.k.runs_while, 500);
	KEXPECT_GE(hold.preempted, 100);
	KEXPECT_EQ(pending_seen, changes);
	KEXPECT_TRUE(hold.still_there_inner);
	KEXPECT_TRUE(hold.pending_before_outer);
	KEXPECT_NE(hold.cpu_after_outer, c);
	KEXPECT_TRUE(hold.allowed_after_outer);
	KEXPECT_FALSE(hold.pending_after_outer);
}

static struct {
	volatile int start_cpu;
	volatile int disabled;
	volatile int enable;             /* phase 2: migrate_enable() */
	volatile long moved_while_disabled, preempted, iters;
	volatile int cpu_after;          /* first other CPU after enable */
	volatile int done;
	struct preemptor k;
} rtp;

static int rt_holder_fn(void *arg)
{
	uint64_t t0 = ktime_get_ns();
	unsigned long sw;
	int cpu;

	migrate_disable();
	store_int(&rtp.disabled, 1);
	cpu = raw_smp_processor_id();
	store_int(&rtp.start_cpu, cpu);
	sw = per_cpu(nr_switches, cpu);
	while (!load_int(&rtp.enable) && ns_since(t0) < 10000 * NS_PER_MS) {
		unsigned long s = per_cpu(nr_switches, cpu);

		if (raw_smp_processor_id() != cpu)
			inc_long(&rtp.moved_while_disabled);
		if (s != sw) {
			inc_long(&rtp.preempted);
			sw = s;
		}
		inc_long(&rtp.iters);
		cpu_relax();
	}
	store_int(&rtp.disabled, 0);
	migrate_enable();
	/* Now the next preemption pushes it to a CPU running lower work;
	 * stop as soon as that happened (or after 3 s). */
	t0 = ktime_get_ns();
	while (ns_since(t0) < 3000 * NS_PER_MS) {
		int now = raw_smp_processor_id();

		if (now != cpu) {
			rtp.cpu_after = now;
			break;
		}
		cpu_relax();
	}
	store_int(&rtp.done, 1);
	return 0;
}

/*
 * RT push and pull leave a pinned RT task alone: a FIFO 20 task, not
 * bound, holds migrate_disable() on CPU c while a FIFO 50 task bound to c
 * preempts it (kicked from CPU 0, hundreds of times). Each time, c has an
 * RT task waiting that other CPUs (idle, or running NORMAL work) could
 * run: push after the switch and pull from those CPUs both try, and must
 * not move it. Once it calls migrate_enable() the same situation does move
 * it (push works, and it was migrate_disable() that held it).
 */
KTEST_CPUS(migrate, rt_push_pull_skip_pinned_task, 2)
{
	struct task *t, *k;
	int c = last_cpu();
	uint64_t t0;
	bool done;

	rtp = (typeof(rtp)){.start_cpu = -1, .cpu_after = -1};
	preemptor_init(&rtp.k, &rtp.disabled);
	t = ktest_spawn(rt_holder_fn, 0, "rt-holder", c, SCHED_FIFO, 20, true);
	KASSERT_TRUE(t);
	KEXPECT_TRUE(ktest_poll_int(&rtp.start_cpu, 0, 3000));
	KEXPECT_EQ(set_cpus_allowed(t, cpu_online_mask), 0);
	k = ktest_spawn(preemptor_fn, &rtp.k, "preemptor", c, SCHED_FIFO, 50,
			true);
	t0 = ktime_get_ns();
	while ((load_long(&rtp.k.runs_while) < 1000 ||
		load_long(&rtp.preempted) < 1000) &&
	       ns_since(t0) < 6000 * NS_PER_MS && k)
		kick(&rtp.k);
	store_int(&rtp.enable, 1);
	/* Preempt it again until it is pushed away. */
	t0 = ktime_get_ns();
	while (!load_int(&rtp.done) && ns_since(t0) < 5000 * NS_PER_MS) {
		if (k)
			kick(&rtp.k);
		else
			msleep(1);
	}
	done = load_int(&rtp.done);
	preemptor_stop(&rtp.k);
	ktest_join(t);
	ktest_join(k);
	ktest_log("FIFO 20 task pinned on CPU %d: %ld iterations, preempted "
		  "%ld times, FIFO 50 task ran %ld times meanwhile, %ld "
		  "iterations elsewhere; after migrate_enable() it went to "
		  "CPU %d",
		  rtp.start_cpu, rtp.iters, rtp.preempted, rtp.k.runs_while,
		  rtp.moved_while_disabled, rtp.cpu_after);
	KEXPECT_TRUE(done);
	KEXPECT_EQ(rtp.moved_while_disabled, 0);
	KEXPECT_GE(rtp.k.runs_while, 500);
	KEXPECT_GE(rtp.preempted, 500);
	KEXPECT_GE(rtp.cpu_after, 0);
	KEXPECT_NE(rtp.cpu_after, c);
}
