/*
 * What leaves a CPU before it parks (docs/hotplug.md): a pinned task
 * is waited for until its outermost migrate_enable(), which moves it; a
 * task bound to that CPU alone has its affinity broken and runs on;
 * timers queued there fire elsewhere, and sleepers whose timers they are
 * wake; a per-CPU thread is parked on the CPU, not moved. Waits count
 * kernel events (ticks, task states); their time bounds only end a
 * broken test.
 */
#include "cpuhotplug.h"
#include "ktest.h"
#include "ktest_util.h"
#include "mm/drain.h"
#include "percpu.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "timer.h"
#include "watchdog.h"

static cpumask_t mask_of_two(int a, int b)
{
	cpumask_t m;

	cpumask_clear(&m);
	cpumask_set_cpu(a, &m);
	cpumask_set_cpu(b, &m);
	return m;
}

/* cpu_down() in a task of its own: it may have to wait. */
struct down_job {
	int cpu;
	volatile int done;
	int ret;
};

static int down_fn(void *arg)
{
	struct down_job *j = arg;

	j->ret = cpu_down(j->cpu);
	store_int(&j->done, 1);
	return 0;
}

/* ---- a pinned task holds the CPU until it lets go ---- */

struct pin_job {
	int cpu;
	bool sleeps;                 /* waits asleep, or spinning */
	volatile int pinned, release;
	bool pending_seen;
	int cpu_before, cpu_after;
};

static int pinned_fn(void *arg)
{
	struct pin_job *j = arg;
	cpumask_t m = mask_of_two(0, j->cpu);

	set_cpus_allowed(current, &m); /* stays: it runs on j->cpu */
	migrate_disable();
	j->cpu_before = raw_smp_processor_id();
	store_int(&j->pinned, 1);
	ktest_helper_wait(load_int(&j->release),
			  j->sleeps ? POLL_SLEEP : POLL_SPIN);
	j->pending_seen = current->migration_pending;
	migrate_enable();
	j->cpu_after = raw_smp_processor_id();
	return 0;
}

static void pinned_delays_down(bool sleeps)
{
	struct pin_job pj = {.cpu = last_cpu(), .sleeps = sleeps,
			     .cpu_after = -1};
	struct down_job dj = {.cpu = pj.cpu};
	struct task_struct *pinned, *downer;
	unsigned long ticks;

	pinned = ktest_spawn_on(pj.cpu, pinned_fn, &pj, "pinned");
	KASSERT_TRUE(pinned);
	KASSERT_TRUE(ktest_poll_int(&pj.pinned, 1, KTEST_WAIT_MS));
	downer = ktest_spawn(down_fn, &dj, "downer", -1, SCHED_NORMAL, 0, true);
	KASSERT_TRUE(downer);
	KEXPECT_TRUE(ktest_poll_until(!cpu_active(pj.cpu), KTEST_WAIT_MS,
				      POLL_SLEEP));
	/* Twenty ticks of that CPU, each of which preempts what runs there
	 * and moves it if it may move: the pinned task stays, and so does
	 * the CPU. */
	ticks = per_cpu(cpu_ticks, pj.cpu);
	KEXPECT_TRUE(ktest_poll_until(per_cpu(cpu_ticks, pj.cpu) >= ticks + 20,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(load_int(&dj.done), 0);
	KEXPECT_TRUE(cpu_online(pj.cpu));
	KEXPECT_EQ(task_cpu(pinned), pj.cpu);
	KEXPECT_TRUE(pinned->migration_pending); /* told to leave */
	store_int(&pj.release, 1);
	KEXPECT_EQ(ktest_join(pinned), 0);
	KEXPECT_EQ(ktest_join(downer), 0);
	KEXPECT_EQ(dj.ret, 0);
	KEXPECT_FALSE(cpu_online(pj.cpu));
	KEXPECT_EQ(pj.cpu_before, pj.cpu);
	KEXPECT_TRUE(pj.pending_seen);
	KEXPECT_EQ(pj.cpu_after, 0); /* moved by its migrate_enable() */
	KEXPECT_EQ(cpu_up(pj.cpu), 0);
}

KTEST_CPUS(hotplug, pinned_sleeper_delays_cpu_down, 2)
{
	pinned_delays_down(true);
}

KTEST_CPUS(hotplug, pinned_spinner_delays_cpu_down, 2)
{
	pinned_delays_down(false);
}

/* ---- a task bound to the CPU alone runs on, its affinity broken ---- */

struct bound_job {
	bool sleeps;
	volatile int started, stop;
	volatile long rounds;
};

static int bound_fn(void *arg)
{
	struct bound_job *j = arg;

	store_int(&j->started, 1);
	for (long i = 0; !load_int(&j->stop) && i < 10000000; i++) {
		__atomic_fetch_add(&j->rounds, 1, __ATOMIC_RELEASE);
		if (j->sleeps)
			msleep(1);
		else
			cpu_relax();
	}
	return 0;
}

static void bound_task_moved(bool sleeps)
{
	struct bound_job bj = {.sleeps = sleeps};
	int c = last_cpu();
	struct task_struct *t = ktest_spawn_on(c, bound_fn, &bj, "bound");
	long rounds;

	KASSERT_TRUE(t);
	KASSERT_TRUE(ktest_poll_int(&bj.started, 1, KTEST_WAIT_MS));
	KEXPECT_EQ(t->nr_cpus_allowed, 1);
	KASSERT_EQ(cpu_down(c), 0);
	/* A sleeper's affinity is broken when it next wakes: after a few
	 * rounds, both kinds have been placed since the CPU went. */
	rounds = load_long(&bj.rounds);
	KEXPECT_TRUE(ktest_poll_long(&bj.rounds, rounds + 5, KTEST_WAIT_MS));
	/* Widened to every possible CPU, as Linux's fallback: the one it
	 * was bound to included, for when that CPU comes back. */
	KEXPECT_NE(task_cpu(t), c);
	KEXPECT_EQ(t->nr_cpus_allowed, nr_cpu_ids);
	KEXPECT_EQ(cpumask_weight(&t->cpus_mask), nr_cpu_ids);
	KEXPECT_TRUE(cpumask_test_cpu(c, &t->cpus_mask));
	store_int(&bj.stop, 1);
	KEXPECT_EQ(ktest_join(t), 0);
	KEXPECT_EQ(cpu_up(c), 0);
}

KTEST_CPUS(hotplug, bound_sleeper_affinity_broken, 2)
{
	bound_task_moved(true);
}

KTEST_CPUS(hotplug, bound_spinner_affinity_broken, 2)
{
	bound_task_moved(false);
}

/* A task bound to a CPU hops over every online CPU (on_each_cpu_hop(),
 * as mm_drain_all() does), and at its first stop, CPU 0, takes its own
 * CPU down. Its affinity cannot be given back: it falls back, as it
 * would have had the task stayed, to every possible CPU (before: the
 * task stayed bound to the last CPU it visited, for good). */
struct hop_job {
	int cpu;          /* the task's own CPU, taken down on the way */
	int down;         /* cpu_down()'s result */
	int visited;
	int allowed;      /* the task's affinity after the hop: its weight */
	bool own_allowed; /* ... and whether it holds cpu */
};

static void hop_take_own_cpu_down(void *arg)
{
	struct hop_job *j = arg;

	if (j->visited++ == 0)
		j->down = cpu_down(j->cpu);
}

static int hop_fn(void *arg)
{
	struct hop_job *j = arg;
	int missed = on_each_cpu_hop(hop_take_own_cpu_down, j);

	j->allowed = cpumask_weight(&current->cpus_mask);
	j->own_allowed = cpumask_test_cpu(j->cpu, &current->cpus_mask);
	return missed;
}

KTEST_CPUS(hotplug, hop_back_to_a_gone_affinity_falls_back, 2)
{
	struct hop_job j = {.cpu = last_cpu(), .down = 1};
	struct task_struct *t = ktest_spawn(hop_fn, &j, "hopper", j.cpu,
					    SCHED_NORMAL, 0, false);

	KASSERT_TRUE(t);
	wake_up_process(t);
	KEXPECT_EQ(ktest_join(t), 0);
	KEXPECT_EQ(j.down, 0);
	KEXPECT_FALSE(cpu_online(j.cpu));
	KEXPECT_EQ(j.visited, num_online_cpus());
	KEXPECT_EQ(j.allowed, nr_cpu_ids);
	KEXPECT_TRUE(j.own_allowed);
	KEXPECT_EQ(cpu_up(j.cpu), 0);
}

/* ---- timers ---- */

struct timer_job {
	struct timer_list timer;
	uint64_t delay_ns;
	volatile int fired;
	int fired_cpu;
};

static void timer_fired(struct timer_list *t)
{
	struct timer_job *j = (struct timer_job *)t;

	j->fired_cpu = raw_smp_processor_id();
	__atomic_fetch_add(&j->fired, 1, __ATOMIC_RELEASE);
}

static int arm_here(void *arg)
{
	struct timer_job *j = arg;

	timer_setup(&j->timer, timer_fired);
	add_timer(&j->timer, ktime_get_ns() + j->delay_ns);
	return raw_smp_processor_id();
}

struct sleep_job {
	int cpu;
	unsigned long ms;
	volatile int woke;
	int woke_cpu;
};

static int sleep_on_cpu(void *arg)
{
	struct sleep_job *j = arg;
	cpumask_t m = mask_of_two(0, j->cpu);

	set_cpus_allowed(current, &m);
	msleep(j->ms); /* its timer is on j->cpu */
	j->woke_cpu = raw_smp_processor_id();
	store_int(&j->woke, 1);
	return j->woke_cpu;
}

/* Tries, each with twice the delays of the one before: cpu_down() takes
 * 0.2-0.3 s on average and up to 2 s on a loaded 2-core host with 8
 * vCPUs, and a try whose timer or sleep ran out first shows nothing. */
#define TIMER_TRIES 4
#define TIMER_SOON_NS (500 * NS_PER_MS)

/* Static: a try that ends early (KASSERT) leaves no armed timer on a
 * stack that is gone. */
static struct timer_job tm_soon, tm_later;
static struct sleep_job tm_sleep;

/* One try: a timer due in delay_ns, one due in a minute and a task in
 * msleep() for 3/5 of delay_ns, all on c; then c goes down. Whether the
 * checks were made: false when the host made cpu_down() outlast the
 * short timer or the sleep (it fired, or woke, on c first). c is back
 * online at the end either way. */
static bool timers_move_try(int c, uint64_t delay_ns)
{
	int here = raw_smp_processor_id();
	struct task_struct *sleeper;
	bool went_first;

	tm_soon = (struct timer_job){.delay_ns = delay_ns};
	tm_later = (struct timer_job){.delay_ns = 60000 * NS_PER_MS};
	tm_sleep = (struct sleep_job){.cpu = c,
				      .ms = delay_ns * 3 / 5 / NS_PER_MS,
				      .woke_cpu = -1};
	KASSERT_EQ(ktest_run_on(c, arm_here, &tm_soon, "arm"), c);
	KASSERT_EQ(ktest_run_on(c, arm_here, &tm_later, "arm"), c);
	sleeper = ktest_spawn_on(c, sleep_on_cpu, &tm_sleep, "sleeper");
	KASSERT_TRUE(sleeper);
	KEXPECT_TRUE(ktest_poll_until(!sleeper->on_rq && !sleeper->on_cpu,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KASSERT_EQ(cpu_down(c), 0);
	went_first = !(load_int(&tm_soon.fired) && tm_soon.fired_cpu == c) &&
		     !(load_int(&tm_sleep.woke) && tm_sleep.woke_cpu == c);
	if (went_first) {
		KEXPECT_EQ(load_int(&tm_soon.fired), 0);
		KEXPECT_EQ(tm_soon.timer.cpu, here);
		KEXPECT_EQ(tm_later.timer.cpu, here);
	}
	KEXPECT_TRUE(ktest_poll_int(&tm_soon.fired, 1, KTEST_WAIT_MS));
	KEXPECT_EQ(tm_soon.fired, 1);
	KEXPECT_TRUE(del_timer(&tm_later.timer));
	KEXPECT_EQ(tm_later.fired, 0);
	if (went_first) {
		KEXPECT_NE(tm_soon.fired_cpu, c);
		KEXPECT_NE(ktest_join(sleeper), c);
		KEXPECT_EQ(tm_sleep.woke, 1);
	} else {
		ktest_join(sleeper);
	}
	KEXPECT_EQ(cpu_up(c), 0);
	return went_first;
}

/*
 * Timers queued on a CPU that goes offline move to the CPU that took it
 * down: one due soon fires there, once; one due much later is still
 * queued there (del_timer() finds it); a task asleep in msleep() on the
 * CPU wakes elsewhere. "Soon" starts at half a second, longer than
 * cpu_down() takes on a quiet host; a try in which the CPU went only
 * after the timer or the sleep ran out is made again with both doubled.
 */
KTEST_CPUS(hotplug, timers_move_and_fire, 2)
{
	uint64_t delay = TIMER_SOON_NS;
	bool checked;
	int tries;

	for (tries = 1; !(checked = timers_move_try(last_cpu(), delay)) &&
			tries < TIMER_TRIES;
	     tries++)
		delay *= 2;
	ktest_log("%d tr%s, the last with a timer due in %lu ms", tries,
		  tries > 1 ? "ies" : "y", (unsigned long)(delay / NS_PER_MS));
	if (!checked)
		ktest_fail_msg(__FILE__, __LINE__, "cpu_down() outlasted the "
			       "timer or the sleep in each of %d tries", tries);
}

/* ---- per-CPU threads park ---- */

/* The watchdog's per-CPU task is parked on its CPU when the CPU goes
 * (not moved, its affinity kept), and runs there again when it comes
 * back; stopping the watchdog with the CPU offline ends the parked task
 * too. A threshold of 10 s: nothing here is reported. */
/* The soft-lockup detector stops judging a CPU in the step that parks
 * its watchdog thread, though the CPU stays online after it for as long
 * as a pinned task keeps it: here, until the CPU has ticked three
 * thresholds past the parking with no stamp renewed. Before, every
 * threshold of those ticks was a "soft lockup" of the idle CPU. */
#define WD_THRESH_MS 300

struct wd_pin_job {
	int cpu;
	volatile int pinned;
	unsigned long before;       /* the CPU's reports before cpu_down() */
	bool waited;
};

static int wd_pinned_fn(void *arg)
{
	struct wd_pin_job *j = arg;
	struct task_struct *wd = softlockup_task(j->cpu);
	unsigned long ticks;

	migrate_disable();
	store_int(&j->pinned, 1);
	/* Asleep pinned: the CPU cannot go until we wake and leave. */
	j->waited = ktest_poll_until(wd->parked, 20000, POLL_SLEEP);
	ticks = per_cpu(cpu_ticks, j->cpu);
	j->waited &= ktest_poll_until(
		per_cpu(cpu_ticks, j->cpu) >= ticks + 3 * WD_THRESH_MS ||
			softlockup_reports(j->cpu) != j->before,
		20000, POLL_SLEEP);
	migrate_enable();
	return 0;
}

KTEST_CPUS(hotplug, watchdog_quiet_while_cpu_waits_for_pinned, 2)
{
	struct wd_pin_job j = {.cpu = last_cpu()};
	struct task_struct *t;

	KASSERT_EQ(softlockup_start(WD_THRESH_MS), 0);
	j.before = softlockup_reports(j.cpu);
	t = ktest_spawn_on(j.cpu, wd_pinned_fn, &j, "wd-pinned");
	KASSERT_TRUE(t);
	KASSERT_TRUE(ktest_poll_int(&j.pinned, 1, 10000));
	KEXPECT_EQ(cpu_down(j.cpu), 0);
	KEXPECT_EQ(ktest_join(t), 0);
	KEXPECT_TRUE(j.waited);
	KEXPECT_EQ(softlockup_reports(j.cpu) - j.before, 0);
	KEXPECT_EQ(cpu_up(j.cpu), 0);
	softlockup_stop();
}

KTEST_CPUS(hotplug, per_cpu_thread_parked_not_moved, 2)
{
	int c = last_cpu();
	struct task_struct *t;

	KASSERT_EQ(softlockup_start(10000), 0);
	t = softlockup_task(c);
	KASSERT_TRUE(t);
	KEXPECT_TRUE(t->per_cpu_kthread);
	KASSERT_EQ(cpu_down(c), 0);
	KEXPECT_TRUE(t->parked);
	KEXPECT_FALSE(t->on_rq);
	KEXPECT_EQ(task_cpu(t), c);
	KEXPECT_EQ(t->nr_cpus_allowed, 1);
	KEXPECT_TRUE(cpumask_test_cpu(c, &t->cpus_mask));
	KEXPECT_TRUE(t->per_cpu_kthread);
	KASSERT_EQ(cpu_up(c), 0);
	KEXPECT_FALSE(t->parked);
	KEXPECT_TRUE(ktest_poll_until(!t->should_park && task_cpu(t) == c,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KASSERT_EQ(cpu_down(c), 0);
	softlockup_stop(); /* its task parked on the offline CPU ends too */
	KEXPECT_EQ(softlockup_task(c), 0);
	KEXPECT_EQ(cpu_up(c), 0);
}
