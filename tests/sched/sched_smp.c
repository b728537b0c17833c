/*
 * The scheduler across CPUs (kernel/sched/sched.c, balance.c, migrate.c):
 * cross-CPU wakeups are never lost, busy tasks are placed and balanced
 * over the CPUs, and affinity changes are never violated.
 */
#include "prandom.h"
#include "sched_util.h"
#include "wait.h"

#define PING_PONG_ROUNDS 100000
#define PING_PONG_IDLE_ROUNDS 3000
#define PING_PONG_BUDGET_MS 60000

static struct {
	struct wait_queue_head wq[2];
	volatile int turn;
	volatile int stop;
	volatile long count[2];
	volatile long finished;
} ping;

/* Wait for my turn, count, hand the turn over, wake the other. */
static int ping_pong_fn(void *arg)
{
	int me = (int)(long)arg;

	for (int i = 0; i < PING_PONG_ROUNDS; i++) {
		wait_event(ping.wq[me], load_int(&ping.turn) == me ||
					load_int(&ping.stop));
		if (load_int(&ping.stop))
			break;
		inc_long(&ping.count[me]);
		store_int(&ping.turn, 1 - me);
		wake_up(&ping.wq[1 - me]);
	}
	__atomic_fetch_add(&ping.finished, 1, __ATOMIC_RELEASE);
	return 0;
}

static volatile int background_stop;

/*
 * 100,000 round trips of wakeups between a FIFO task on CPU 0 and one on
 * CPU 1: each sleeps on a wait queue until the turn is its own. A single
 * lost wakeup would stop both (caught as KTEST_WAIT_MS without a round
 * trip, after which both are told to stop); the counts match exactly.
 *
 * The first 3,000 round trips wake a halted CPU. Under TCG that takes the
 * host hundreds of microseconds, so for the rest a NORMAL task keeps each
 * CPU busy and every wakeup preempts it by IPI instead (tens of us).
 */
KTEST_CPUS(sched, ping_pong_wakeups_never_lost, 2)
{
	struct task_struct *t[2], *bg[2] = {0, 0};
	struct ktest_progress progress = {0};
	uint64_t t0, t1 = 0, spent;
	bool done, stalled = false;

	ping = (typeof(ping)){.turn = 0};
	init_waitqueue_head(&ping.wq[0]);
	init_waitqueue_head(&ping.wq[1]);
	background_stop = 0;
	t0 = ktime_get_ns();
	for (int i = 0; i < 2; i++)
		t[i] = ktest_spawn(ping_pong_fn, (void *)(long)i, "ping-pong",
				   i, SCHED_FIFO, 50, true);
	if (ktest_poll_long(&ping.count[1], PING_PONG_IDLE_ROUNDS,
			    KTEST_WAIT_MS)) {
		t1 = ktime_get_ns();
		for (int i = 0; i < 2; i++)
			bg[i] = ktest_spawn_on(i, ktest_spin_until_stopped,
					       (void *)&background_stop,
					       "busy");
	}
	/* Until both finish. A lost wakeup shows as no round trip at all for
	 * KTEST_WAIT_MS. The run is bounded by PING_PONG_BUDGET_MS: on a host
	 * so loaded that 100,000 round trips take longer (each needs two
	 * vCPU threads scheduled in turn), what was done is checked and the
	 * shortfall logged. The budget only says how long the test goes on:
	 * every check holds for any number of round trips. */
	while (load_long(&ping.finished) < 2 &&
	       ns_since(t0) < PING_PONG_BUDGET_MS * NS_PER_MS) {
		if (ktest_stalled(&progress, load_long(&ping.count[1]))) {
			stalled = true;
			break;
		}
		msleep(20);
	}
	done = load_long(&ping.finished) == 2;
	spent = ns_since(t0);
	store_int(&ping.stop, 1);
	wake_up(&ping.wq[0]);
	wake_up(&ping.wq[1]);
	store_int(&background_stop, 1);
	ktest_join_all(t, 2);
	ktest_join_all(bg, 2);
	ktest_log("%ld/%ld round trips in %lu ms; turn %d", ping.count[0],
		  ping.count[1], (unsigned long)(spent / NS_PER_MS), ping.turn);
	if (t1 && ping.count[1] > PING_PONG_IDLE_ROUNDS)
		ktest_log("%lu ns per round trip to halted CPUs, %lu ns to "
			  "busy ones",
			  (unsigned long)((t1 - t0) / PING_PONG_IDLE_ROUNDS),
			  (unsigned long)((t0 + spent - t1) /
					  (ping.count[1] -
					   PING_PONG_IDLE_ROUNDS)));
	KEXPECT_FALSE(stalled);
	if (!done && !stalled) {
		ktest_log("time budget of %d s ran out after %ld round trips, "
			  "none lost: the host is too slow for %d",
			  PING_PONG_BUDGET_MS / 1000, ping.count[1],
			  PING_PONG_ROUNDS);
		/* Stopped in the middle of a round: A may be one ahead. */
		KEXPECT_GE(ping.count[0], ping.count[1]);
		KEXPECT_LE(ping.count[0], ping.count[1] + 1);
		return;
	}
	KEXPECT_TRUE(done);
	KEXPECT_EQ(ping.count[0], PING_PONG_ROUNDS);
	KEXPECT_EQ(ping.count[1], PING_PONG_ROUNDS);
}

/* N busy NORMAL tasks, not bound, started from CPU 0 on an N-CPU machine:
 * every CPU comes to run at least one of them (waited for as an event:
 * the balancer moves them as the vCPUs run). */
KTEST(sched, cpu_bound_tasks_spread_over_cpus)
{
	static struct task_struct *t[MAX_BUSY_TASKS];
	int n = busy_start(t, num_online_cpus(), "spread", -1);

	ktest_poll_until(cpumask_weight(&busy.seen) >= n, KTEST_WAIT_MS,
			 POLL_SLEEP);
	store_int(&busy.stop, 1);
	ktest_join_all(t, n);
	for (int i = 0; i < n; i++)
		ktest_log("task %d: %ld iterations on %d CPU(s)", i,
			  busy.count[i], cpumask_weight(&busy.seen_by[i]));
	KEXPECT_EQ(cpumask_weight(&busy.seen), n);
}

/* N busy NORMAL tasks all start on CPU 0 (affinity {0}), then may go
 * anywhere: the idle CPUs pull them until each CPU runs one. */
KTEST_CPUS(sched, idle_cpus_pull_normal_tasks, 2)
{
	static struct task_struct *t[MAX_BUSY_TASKS];
	cpumask_t on;
	int n;
	uint64_t t0, t1;

	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, 80), 0);
	n = busy_start(t, num_online_cpus(), "pulled", 0);
	/* They all run on CPU 0 (we are above them, but sleep). */
	ktest_poll_until(busy_all_counted(n), KTEST_WAIT_MS, POLL_SLEEP);
	for (int i = 0; i < n; i++)
		if (t[i])
			KEXPECT_EQ(set_cpus_allowed(t[i], cpu_online_mask), 0);
	/* Give the balancer time, then look where each one is. */
	t0 = ktime_get_ns();
	do {
		msleep(20);
		cpumask_clear(&on);
		for (int i = 0; i < n; i++)
			if (t[i])
				cpumask_set_cpu(task_cpu(t[i]), &on);
	} while (cpumask_weight(&on) < n &&
		 ns_since(t0) < KTEST_WAIT_MS * NS_PER_MS);
	/* Then each CPU runs its task: on a loaded host a vCPU may wait a
	 * while for a host core, so that is waited for too. */
	cpumask_clear(&busy.seen);
	t1 = ktime_get_ns();
	ktest_poll_until(cpumask_weight(&busy.seen) >= n, KTEST_WAIT_MS,
			 POLL_SLEEP);
	store_int(&busy.stop, 1);
	become_normal();
	ktest_join_all(t, n);
	ktest_log("after %lu ms the %d tasks were on %d CPU(s); %d CPU(s) ran "
		  "them in the next %lu ms",
		  (unsigned long)((t1 - t0) / NS_PER_MS), n,
		  cpumask_weight(&on), cpumask_weight(&busy.seen),
		  (unsigned long)(ns_since(t1) / NS_PER_MS));
	KEXPECT_EQ(cpumask_weight(&on), n);
	KEXPECT_EQ(cpumask_weight(&busy.seen), n);
}

/* ---- affinity ---- */

/*
 * Each task has a history of masks: generation g's at ring[g % AFF_RING].
 * The test publishes gen = g before set_cpus_allowed(g) and applied = g
 * after it returns. A running task may stay on a CPU its new mask excludes
 * until the reschedule IPI reaches it; what must never happen is that it
 * is switched in on a CPU outside its mask. So on each iteration after a
 * switch (its CPU or that CPU's switch count changed), it checks its CPU
 * against the masks that can have been in force when it was switched in:
 * those of generations applied (read on the previous iteration) to gen
 * (read now).
 */
#define AFF_TASKS 4
#define AFF_RING 16

struct aff_task {
	cpumask_t ring[AFF_RING];
	volatile long gen, applied;
	struct task_struct *task;
	volatile long iters, checks, violations;
	volatile int cpu;                /* last seen on, with ... */
	volatile long cpu_gen;           /* ... gen read right after */
	int bad_cpu;
	long bad_lo, bad_hi;
};

static struct {
	volatile int stop;
	struct aff_task t[AFF_TASKS];
} aff;

static int aff_spinner(void *arg)
{
	struct aff_task *a = arg;
	int prev_cpu = -1;
	unsigned long prev_sw = 0;
	long prev_applied = 0;
	unsigned long test = ktest_number();

	while (!load_int(&aff.stop) && !ktest_ended(test)) {
		int cpu;
		unsigned long sw;
		long hi, applied;

		preempt_disable();
		cpu = raw_smp_processor_id();
		sw = per_cpu(nr_switches, cpu);
		hi = load_long(&a->gen);
		applied = load_long(&a->applied);
		if ((cpu != prev_cpu || sw != prev_sw) &&
		    hi - prev_applied < AFF_RING - 2) {
			bool ok = false;

			for (long g = prev_applied; g <= hi; g++)
				ok |= cpumask_test_cpu(cpu,
						       &a->ring[g % AFF_RING]);
			a->checks++;
			if (!ok) {
				a->violations++;
				a->bad_cpu = cpu;
				a->bad_lo = prev_applied;
				a->bad_hi = hi;
			}
		}
		prev_cpu = cpu;
		prev_sw = sw;
		prev_applied = applied;
		a->cpu = cpu;
		__atomic_store_n(&a->cpu_gen, hi, __ATOMIC_RELEASE);
		preempt_enable();
		a->iters++;
		cpu_relax();
	}
	return 0;
}

static struct rnd_state aff_rnd;

static uint32_t rnd(void)
{
	return prandom_u32_state(&aff_rnd);
}

/* A new mask for a task last seen on cur: usually without cur, one CPU
 * or two. */
static void random_mask(cpumask_t *m, int n, int cur)
{
	int a = rnd() % n, b;

	if (a == cur && rnd() % 4)
		a = (a + 1 + rnd() % (n - 1)) % n;
	cpumask_clear(m);
	cpumask_set_cpu(a, m);
	if (n > 2 && rnd() % 2) {
		b = (a + 1 + rnd() % (n - 1)) % n;
		if (b != cur || rnd() % 4 == 0)
			cpumask_set_cpu(b, m);
	}
}

/* Affinity changes the test makes (about 1 s on a quiet host; a loaded
 * 2-core host has been seen to allow only 3-15 changes in 1.5 s, and 100
 * took 2.7 s at load 15): a count ends the run, never a time. */
#define AFF_CHANGES 100

/* Whether a's task comes to run inside m, its mask of generation g,
 * waited for (KTEST_WAIT_MS only catches a task that never moves); if
 * not, say where it is and where every task is. */
static bool runs_inside(struct aff_task *a, long g, const cpumask_t *m)
{
	struct task_struct *p = a->task;

	if (ktest_poll_until(load_long(&a->cpu_gen) >= g &&
			     cpumask_test_cpu(load_int(&a->cpu), m),
			     KTEST_WAIT_MS, POLL_SLEEP))
		return true;
	ktest_log("task %d (id %d) not seen inside its new mask %#lx within "
		  "%lu ms: last seen on CPU %d at generation %ld; now state %d "
		  "cpu %d on_rq %d on_cpu %d pending %d mask %#lx",
		  (int)(a - aff.t), p->pid, m->bits[0], KTEST_WAIT_MS,
		  load_int(&a->cpu), load_long(&a->cpu_gen), READ_ONCE(p->__state),
		  task_cpu(p), p->on_rq, p->on_cpu, p->migration_pending,
		  p->cpus_mask.bits[0]);
	sched_show_all();
	return false;
}

/* Busy tasks (more than CPUs on small machines, so that they are switched
 * often) have their affinity changed every few ms between single CPUs and
 * pairs: none is ever switched in outside its mask, and after each change
 * it comes to run inside the new mask. */
KTEST_CPUS(sched, affinity_never_violated, 2)
{
	int n = (int)num_online_cpus(), changes = 0, stuck = 0;
	long checks = 0, violations = 0;
	uint64_t t0;

	aff.stop = 0;
	prandom_seed_state(&aff_rnd, 2463534242u);
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, 80), 0);
	for (int i = 0; i < AFF_TASKS; i++) {
		struct aff_task *a = &aff.t[i];

		*a = (struct aff_task){.cpu = -1, .bad_cpu = -1};
		cpumask_copy(&a->ring[0], cpu_online_mask);
		a->task = ktest_spawn(aff_spinner, a, "affinity", -1,
				      SCHED_NORMAL, 0, true);
	}
	t0 = ktime_get_ns();
	/* A count of changes, not a time window, ends the run: each waits
	 * for its task to move, which a starved vCPU only delays. */
	while (changes < AFF_CHANGES) {
		struct aff_task *a = &aff.t[changes % AFF_TASKS];
		long g = a->gen + 1;
		cpumask_t *m = &a->ring[g % AFF_RING];

		if (!a->task) {
			changes++;
			continue;
		}
		random_mask(m, n, load_int(&a->cpu));
		__atomic_store_n(&a->gen, g, __ATOMIC_RELEASE);
		KEXPECT_EQ(set_cpus_allowed(a->task, m), 0);
		__atomic_store_n(&a->applied, g, __ATOMIC_RELEASE);
		changes++;
		if (!runs_inside(a, g, m)) {
			stuck++; /* one says it: no more waits of 30 s */
			break;
		}
	}
	store_int(&aff.stop, 1);
	become_normal();
	for (int i = 0; i < AFF_TASKS; i++) {
		struct aff_task *a = &aff.t[i];

		ktest_join(a->task);
		checks += a->checks;
		violations += a->violations;
		if (a->violations)
			ktest_log("task %d: %ld violation(s), last on CPU %d "
				  "with generations %ld..%ld allowed", i,
				  a->violations, a->bad_cpu, a->bad_lo,
				  a->bad_hi);
	}
	ktest_log("%d affinity changes in %lu ms; %ld switch-ins checked, %ld "
		  "violations, %d tasks that never moved", changes,
		  (unsigned long)(ns_since(t0) / NS_PER_MS), checks, violations,
		  stuck);
	KEXPECT_GT(checks, changes);
	KEXPECT_EQ(violations, 0);
	KEXPECT_EQ(stuck, 0);
}
