/*
 * CPU offline and online under load: 100 cycles of cpu_down()/cpu_up()
 * of a random non-boot CPU (seeded: the same CPUs in the same order on
 * every run) while worker tasks take every kind of lock, pin themselves,
 * sleep, yield and change their affinity, short tasks come and go, and a
 * reader holding the hotplug lock checks the online set.
 *
 * At the end every task has finished and the counts are exact: each
 * lock-protected counter equals the sum of what the workers say they
 * added, and each CPU's copy of a per-CPU pair updated under local_lock
 * is consistent (both halves equal), its sum exact too, although tasks
 * moved between CPUs, and CPUs came and went, under it. The reader saw,
 * each time, as many online CPUs as the mask holds, each one fully up
 * (at CPUHP_ONLINE, active, answering a call).
 */
#include "cpuhotplug.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "mutex.h"
#include "percpu.h"
#include "prandom.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "hotplug/hotplug_util.h"

#define CYCLES 100
#define SEED 0x23c9u
#define WORKERS 4
#define BURST 8     /* ops between pauses */
#define PAUSE_MS 4

struct pcp_pair {
	local_lock_t lock;
	long a, b;
};

static DEFINE_PER_CPU(struct pcp_pair, stress_pair) = {
	.lock = INIT_LOCAL_LOCK(lock),
};
static DEFINE_SPINLOCK(stress_spin);
static DEFINE_MUTEX(stress_mutex);

enum { OP_SPIN, OP_MUTEX, OP_LOCAL, OP_PINNED_SLEEP, OP_SLEEP, OP_AFFINITY,
       NR_OPS };

static struct {
	volatile int stop;
	long spin_count;             /* under stress_spin */
	long mutex_count;            /* under stress_mutex */
	volatile long short_tasks_done;
} st;

struct worker {
	int id;
	int burst;
	long ops[NR_OPS];
};

/* Any CPU with CPU 0, which is always there: no affinity to break. */
static void random_affinity(struct rnd_state *rnd)
{
	cpumask_t m;

	cpumask_clear(&m);
	cpumask_set_cpu(0, &m);
	for (int cpu = 1; cpu < nr_cpu_ids; cpu++)
		if (prandom_u32_state(rnd) & 1)
			cpumask_set_cpu(cpu, &m);
	set_cpus_allowed(current, &m);
}

static void do_op(int op, struct rnd_state *rnd)
{
	struct pcp_pair *p;

	switch (op) {
	case OP_SPIN:
		spin_lock(&stress_spin);
		st.spin_count++;
		spin_unlock(&stress_spin);
		break;
	case OP_MUTEX:
		mutex_lock(&stress_mutex);
		st.mutex_count++;
		mutex_unlock(&stress_mutex);
		break;
	case OP_LOCAL:
		local_lock(&stress_pair.lock);
		p = this_cpu_ptr(&stress_pair);
		p->a++;
		p->b++;
		local_unlock(&stress_pair.lock);
		break;
	case OP_PINNED_SLEEP: /* asleep pinned: its CPU waits for it */
		migrate_disable();
		msleep(1);
		migrate_enable();
		break;
	case OP_SLEEP:
		msleep(1 + prandom_u32_state(rnd) % 2);
		break;
	default:
		random_affinity(rnd);
		yield();
		break;
	}
}

static int worker_fn(void *arg)
{
	struct worker *w = arg;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, SEED + w->id);
	while (!load_int(&st.stop)) {
		int op = prandom_u32_state(&rnd) % NR_OPS;

		do_op(op, &rnd);
		w->ops[op]++;
		/* Mostly asleep, so that the vCPUs the host time-shares
		 * have time for the CPUs going and coming. */
		if (++w->burst % BURST == 0)
			msleep(PAUSE_MS);
	}
	return 0;
}

/* A task that lives for one cycle: a few locked increments. */
static int short_fn(void *arg)
{
	for (int i = 0; i < 10; i++) {
		spin_lock(&stress_spin);
		st.spin_count++;
		spin_unlock(&stress_spin);
	}
	__atomic_fetch_add(&st.short_tasks_done, 1, __ATOMIC_ACQ_REL);
	return 10;
}

struct reader {
	long checks, bad_count, half_up;
};

static void nop(void *arg)
{
	(*(volatile int *)arg)++;
}

/* Under the hotplug lock the online set is one of the two a cycle moves
 * between, and each CPU in it is whole: fully up and active; one of
 * them, in turn, answers a call (one per look: a call waits for the
 * other CPU, whose vCPU the host may be running late). */
static int reader_fn(void *arg)
{
	struct reader *r = arg;
	int turn = 0;

	while (!load_int(&st.stop)) {
		int cpu, weight, ask = turn++ % nr_cpu_ids;

		cpus_read_lock();
		weight = cpumask_weight(cpu_online_mask);
		if ((int)num_online_cpus() != weight ||
		    weight < nr_cpu_ids - 1)
			r->bad_count++;
		for_each_online_cpu(cpu) {
			volatile int ran = 0;

			if (cpuhp_cpu_state(cpu) != CPUHP_ONLINE ||
			    !cpu_active(cpu))
				r->half_up++;
			if (cpu == ask &&
			    (smp_call_function_single(cpu, nop, (void *)&ran,
						      true) || ran != 1))
				r->half_up++;
		}
		cpus_read_unlock();
		r->checks++;
		msleep(2);
	}
	return 0;
}

static long sum_pairs(long *uneven)
{
	long sum = 0;
	int cpu;

	*uneven = 0;
	for_each_possible_cpu(cpu) {
		/* Unchecked: every task that used it has been joined. */
		struct pcp_pair *p = raw_per_cpu_ptr(&stress_pair, cpu);

		sum += p->a;
		*uneven += p->a != p->b;
	}
	return sum;
}

static void reset_pairs(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		raw_per_cpu_ptr(&stress_pair, cpu)->a = 0;
		raw_per_cpu_ptr(&stress_pair, cpu)->b = 0;
	}
}

/* How long the operations took, for the log only (wall time on a host
 * that time-shares its vCPUs: a figure, never a verdict). */
struct op_times {
	uint64_t down_ns, up_ns, down_max, up_max;
};

static void add_time(uint64_t *total, uint64_t *max, uint64_t t0)
{
	uint64_t d = ns_since(t0);

	*total += d;
	if (d > *max)
		*max = d;
}

/* One cycle: cpu goes and comes back; the controller alone changes the
 * set, so between its calls the counts it sees are exact. */
static void cycle(int cpu, struct op_times *ot)
{
	uint64_t t0 = ktime_get_ns();

	KEXPECT_EQ(cpu_down(cpu), 0);
	add_time(&ot->down_ns, &ot->down_max, t0);
	KEXPECT_FALSE(cpu_online(cpu));
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids - 1);
	KEXPECT_EQ(cpumask_weight(cpu_active_mask), nr_cpu_ids - 1);
	t0 = ktime_get_ns();
	KEXPECT_EQ(cpu_up(cpu), 0);
	add_time(&ot->up_ns, &ot->up_max, t0);
	KEXPECT_TRUE(cpu_active(cpu));
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);
}

KTEST_CPUS(hotplug, offline_online_cycles_under_load, 2)
{
	static struct worker workers[WORKERS + 1];
	struct task_struct *wt[WORKERS + 1], *rt, *shorty = 0;
	struct reader rd = {0};
	struct op_times ot = {0};
	struct rnd_state rnd;
	int n = WORKERS, shorts = 0;
	long want_spin = 0, want_mutex = 0, want_local = 0, uneven;
	uint64_t t0 = ktime_get_ns();

	st = (typeof(st)){0};
	reset_pairs();
	prandom_seed_state(&rnd, SEED);
	for (int i = 0; i < n; i++) {
		workers[i] = (struct worker){.id = i};
		wt[i] = ktest_spawn(worker_fn, &workers[i], "stress", -1,
				    SCHED_NORMAL, 0, true);
	}
	rt = ktest_spawn(reader_fn, &rd, "reader", -1, SCHED_NORMAL, 0, true);
	KEXPECT_EQ(sched_setscheduler(current, SCHED_FIFO, 50), 0);
	for (int i = 0; i < CYCLES; i++) {
		if (shorty)
			KEXPECT_EQ(ktest_join(shorty), 10);
		shorty = kthread_run(short_fn, 0, "short");
		shorts += shorty != 0;
		cycle(hotplug_random_cpu(&rnd), &ot);
	}
	if (shorty)
		KEXPECT_EQ(ktest_join(shorty), 10);
	become_normal();
	store_int(&st.stop, 1);
	for (int i = 0; i < n; i++) {
		KEXPECT_EQ(ktest_join(wt[i]), 0);
		want_spin += workers[i].ops[OP_SPIN];
		want_mutex += workers[i].ops[OP_MUTEX];
		want_local += workers[i].ops[OP_LOCAL];
	}
	KEXPECT_EQ(ktest_join(rt), 0);
	ktest_log("%d cycles in %lu ms; %d workers: %ld spin, %ld mutex, "
		  "%ld local_lock updates; %d short tasks; %ld reader checks",
		  CYCLES, (unsigned long)(ns_since(t0) / NS_PER_MS), n,
		  want_spin, want_mutex, want_local, shorts, rd.checks);
	ktest_log("cpu_down: %lu us average, %lu us worst; cpu_up: %lu us "
		  "average, %lu us worst",
		  (unsigned long)(ot.down_ns / CYCLES / 1000),
		  (unsigned long)(ot.down_max / 1000),
		  (unsigned long)(ot.up_ns / CYCLES / 1000),
		  (unsigned long)(ot.up_max / 1000));
	KEXPECT_EQ(shorts, CYCLES);
	KEXPECT_EQ(st.short_tasks_done, shorts);
	KEXPECT_EQ(st.spin_count, want_spin + 10 * st.short_tasks_done);
	KEXPECT_EQ(st.mutex_count, want_mutex);
	KEXPECT_EQ(sum_pairs(&uneven), want_local);
	KEXPECT_EQ(uneven, 0);
	KEXPECT_GT(rd.checks, 0);
	KEXPECT_EQ(rd.bad_count, 0);
	KEXPECT_EQ(rd.half_up, 0);
}
