/*
 * What becomes of a CPU's per-CPU data when it goes offline
 * (docs/hotplug.md): its copy of each per-CPU variable, static or from
 * alloc_percpu(), stays where it is, unread and unwritten, and is what
 * the CPU finds when it comes back; each percpu_counter's delta of that
 * CPU is folded into the shared count on the way down (the
 * CPUHP_PERCPU_CNT_DEAD teardown), so read() loses nothing and sum()
 * stays exact, also with adds running on every CPU while CPUs come and
 * go; irq_work queued on the CPU at its very end runs there before it
 * parks.
 */
#include "cpuhotplug.h"
#include "irq_work.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "percpu_alloc.h"
#include "percpu_counter.h"
#include "percpu/percpu_counter_util.h"
#include "prandom.h"
#include "sched.h"
#include "hotplug/hotplug_util.h"

KTEST_SUITE(percpu_hotplug, .exit = hotplug_all_online);

/* ---- the CPU's copy stays ---- */

static DEFINE_PER_CPU(long, kept);

struct copy_job {
	long *dyn;                   /* from alloc_percpu() */
	long value;
};

static int write_copies(void *arg)
{
	struct copy_job *j = arg;

	this_cpu_write(kept, j->value);
	migrate_disable(); /* this CPU's copy, and stay on it */
	*this_cpu_ptr(j->dyn) = j->value + 1;
	migrate_enable();
	return 0;
}

static int read_copies(void *arg)
{
	struct copy_job *j = arg;
	long dyn, stat = this_cpu_read(kept);

	migrate_disable();
	dyn = *this_cpu_ptr(j->dyn);
	migrate_enable();
	return stat == j->value && dyn == j->value + 1;
}

/* Offline, a CPU's copies are memory nobody uses; Linux keeps them too
 * (the per-CPU areas are set up once, for every possible CPU). The
 * others may read them, and the CPU finds them as it left them. */
KTEST_CPUS(percpu_hotplug, cpu_copy_kept_across_offline, 2)
{
	struct copy_job j = {.dyn = alloc_percpu(long), .value = 4242};
	int d = last_cpu();

	KASSERT_TRUE(j.dyn);
	KASSERT_EQ(ktest_run_on(d, write_copies, &j, "pcpu-write"), 0);
	KASSERT_EQ(cpu_down(d), 0);
	KEXPECT_EQ(per_cpu(kept, d), j.value);
	KEXPECT_EQ(*per_cpu_ptr(j.dyn, d), j.value + 1);
	KASSERT_EQ(cpu_up(d), 0);
	KEXPECT_EQ(ktest_run_on(d, read_copies, &j, "pcpu-read"), 1);
	free_percpu(j.dyn);
}

/* ---- percpu_counter deltas fold ---- */

/*
 * A delta below the batch stays on its CPU; cpu_down() folds it into
 * the count, so read() sees it and sum() is unchanged. With every CPU
 * but the boot CPU offline, read() is off from sum() by exactly the
 * boot CPU's delta: nothing else is left anywhere.
 */
KTEST_CPUS(percpu_hotplug, counter_delta_folded_on_cpu_down, 2)
{
	struct percpu_counter c;
	int cpu, n = nr_cpu_ids;

	KASSERT_EQ(percpu_counter_init(&c, 100), 0);
	for (cpu = 1; cpu < n; cpu++) {
		pcc_leave_delta_on(cpu, &c, cpu + 1);
		KEXPECT_EQ(pcc_delta_of(&c, cpu), cpu + 1);
	}
	KEXPECT_EQ(percpu_counter_read(&c), 100);
	for (cpu = n - 1; cpu >= 1; cpu--) {
		int64_t sum = percpu_counter_sum(&c);

		KASSERT_EQ(cpu_down(cpu), 0);
		KEXPECT_EQ(pcc_delta_of(&c, cpu), 0);
		KEXPECT_EQ(percpu_counter_sum(&c), sum);
	}
	/* 100 + (2 + 3 + ... + n) */
	KEXPECT_EQ(percpu_counter_read(&c), 100 + (n * (n + 1)) / 2 - 1);
	KEXPECT_EQ(percpu_counter_sum(&c) - percpu_counter_read(&c),
		   pcc_delta_of(&c, 0));
	for (cpu = 1; cpu < n; cpu++)
		KEXPECT_EQ(cpu_up(cpu), 0);
	percpu_counter_destroy(&c);
}

#define ADDERS_PER_CPU 2
#define ADDS 3000
#define CYCLES 20

struct add_storm {
	struct percpu_counter c;
	volatile int done;
};

/* +1 at a time, mostly below the batch: most adds stay in a CPU's delta
 * until a fold. A pause now and then lets CPUs come and go under it. */
static int adder(void *arg)
{
	struct add_storm *s = arg;

	for (int i = 1; i <= ADDS; i++) {
		percpu_counter_add(&s->c, 1);
		if (i % 100 == 0)
			msleep(1);
	}
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Adders on every CPU (unbound: they are moved off each CPU that goes)
 * while a random non-boot CPU goes down and comes back CYCLES times:
 * right after each cpu_down() that CPU holds no delta, and at the end
 * the sum is exact, the read within its bound.
 */
KTEST_CPUS(percpu_hotplug, counter_exact_under_offline_cycles, 2)
{
	static struct task_struct *t[ADDERS_PER_CPU * NR_CPUS];
	static struct add_storm s;
	int n = ADDERS_PER_CPU * nr_cpu_ids, cycles = 0;
	struct rnd_state rnd;
	int64_t sum, read;

	s = (struct add_storm){0};
	prandom_seed_state(&rnd, 0x23);
	KASSERT_EQ(percpu_counter_init(&s.c, 0), 0);
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(adder, &s, "pcc-hp-adder", -1, SCHED_NORMAL,
				   0, true);
	for (; cycles < CYCLES; cycles++) {
		int d = hotplug_random_cpu(&rnd);

		KEXPECT_EQ(cpu_down(d), 0);
		KEXPECT_EQ(pcc_delta_of(&s.c, d), 0);
		KEXPECT_EQ(cpu_up(d), 0);
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(ktest_join(t[i]), 0);
	KEXPECT_EQ(load_int(&s.done), n);
	sum = percpu_counter_sum(&s.c);
	read = percpu_counter_read(&s.c);
	KEXPECT_EQ(sum, (int64_t)n * ADDS);
	KEXPECT_LE(sum - read, (int64_t)percpu_counter_batch * nr_cpu_ids);
	KEXPECT_GE(sum - read, -(int64_t)percpu_counter_batch * nr_cpu_ids);
	ktest_log("%d adders x %d adds, %d offline/online cycles: sum %ld, "
		  "read %ld", n, ADDS, cycles, (long)sum, (long)read);
	percpu_counter_destroy(&s.c);
}

/* ---- irq_work queued at the CPU's very end ---- */

static struct {
	struct irq_work work;
	int state;                   /* our dynamic STARTING/DYING state */
	volatile int queued, ran, ran_cpu;
	bool ran_in_irq;
} iw;

static void iw_func(struct irq_work *w)
{
	iw.ran_cpu = raw_smp_processor_id();
	iw.ran_in_irq = in_hardirq();
	__atomic_fetch_add(&iw.ran, 1, __ATOMIC_RELEASE);
}

/* A DYING teardown, on the CPU itself with interrupts off: the work's
 * self-IPI cannot be taken any more; irq_work's own DYING step, which
 * runs after ours, runs it. */
static int iw_queue_dying(unsigned int cpu)
{
	iw.queued += irq_work_queue(&iw.work);
	return 0;
}

KTEST_CPUS(percpu_hotplug, irq_work_runs_before_park, 2)
{
	int d = last_cpu();

	iw = (typeof(iw)){.work = {.func = iw_func}, .ran_cpu = -1};
	iw.state = cpuhp_setup_state_nocalls(CPUHP_AP_STARTING_DYN,
					     "test:irq_work", 0,
					     iw_queue_dying);
	KASSERT_GT(iw.state, 0);
	KEXPECT_EQ(cpu_down(d), 0);
	KEXPECT_EQ(iw.queued, 1);
	KEXPECT_EQ(load_int(&iw.ran), 1);
	KEXPECT_EQ(iw.ran_cpu, d);
	KEXPECT_TRUE(iw.ran_in_irq);
	KEXPECT_FALSE(iw.work.pending);
	cpuhp_remove_state_nocalls(iw.state);
	KEXPECT_EQ(cpu_up(d), 0);
}
