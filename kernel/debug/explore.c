/*
 * The seeded interleaving explorer (explore.h, docs/debugging.md).
 *
 * Decisions. Every visit to a scheduling point by a task of the running
 * test, where injecting is legal, takes the next decision number idx
 * (0, 1, 2, ... from the start of each test). What happens there is a pure
 * function of (seed, idx): a hash says whether to inject, at a rate the
 * seed also picks (1/2 .. 1/32: dense seeds split many windows, sparse
 * ones leave long runs alone), and which action. Nothing else feeds it, no
 * clock, no CPU number: under DETERMINISTIC=1 on one CPU the visits come in
 * the same order every run, so the same seed makes the same schedule.
 *
 * explore_only=LIST injects at exactly the decision numbers in LIST (with
 * the action the seed gives each): the host's shrinker (scripts/explore.sh)
 * drops decisions from a failing run's list while it still fails.
 *
 * Legal only: never in an interrupt, never with interrupts off (the
 * scheduler core, the lock validator and printk run so) but in the
 * scheduler's windows, where only a delay is made, never in a task
 * that is not the test's (idle, the runner), never re-entered from an
 * action's own scheduling points. A preemption where preemption is off is
 * asked for with need_resched instead, and happens at the section's end.
 *
 * Whole file under CONFIG_EXPLORE (EXPLORE=1).
 */
#ifdef CONFIG_EXPLORE
#include "debug/explore.h"
#include "cpumask.h"
#include "delay.h"
#include "debug/ktest.h"
#include "bootinfo.h"
#include "printk.h"
#include "sched/sched.h"
#include "string.h"
#include "vsprintf.h"

#define EXPLORE_MAX_INJECT 128     /* per test; later decisions are NONE */
#define EXPLORE_MAX_ONLY 256
#define EXPLORE_MAX_DELAY_US 1000

bool explore_armed;
#ifdef CONFIG_EXPLORE_BUGS
bool explore_bug_pi_chain;
#endif

struct explore_injection {
	unsigned long idx;
	enum explore_site site;
	enum explore_action action;
	int task_id;
	char task[16];                 /* its name, for the report */
};

static struct {
	bool enabled;                  /* ktest_seed= given */
	uint64_t seed;
	int first_task_id;             /* the test's task and its children */
	unsigned long next;            /* the next decision number */
	unsigned long injected;        /* slots of inj[] taken */
	struct explore_injection inj[EXPLORE_MAX_INJECT];
	bool only_set;
	int nr_only;
	unsigned long only[EXPLORE_MAX_ONLY]; /* sorted */
} ex;

static const char *const site_names[EXPLORE_NR_SITES] = {
	[EXPLORE_RAW_SPIN_LOCK] = "raw_spin_lock",
	[EXPLORE_RAW_SPIN_UNLOCK] = "raw_spin_unlock",
	[EXPLORE_SPIN_LOCK] = "spin_lock",
	[EXPLORE_SPIN_UNLOCK] = "spin_unlock",
	[EXPLORE_MUTEX_LOCK] = "mutex_lock",
	[EXPLORE_MUTEX_UNLOCK] = "mutex_unlock",
	[EXPLORE_RT_MUTEX_LOCK] = "rt_mutex_lock",
	[EXPLORE_RT_MUTEX_UNLOCK] = "rt_mutex_unlock",
	[EXPLORE_PREEMPT_ENABLE] = "preempt_enable",
	[EXPLORE_MIGRATE_ENABLE] = "migrate_enable",
	[EXPLORE_THIS_CPU_PTR] = "this_cpu_ptr",
	[EXPLORE_WAKE_UP] = "wake_up_process",
	[EXPLORE_PUT_DEAD_TASK] = "put_dead_task",
	[EXPLORE_PUSH_QUEUED] = "push_one_queued",
	[EXPLORE_PUSH_RT] = "push_rt_tasks",
	[EXPLORE_MOVABLE_CURR] = "movable_curr",
};

static bool explore_is_window(enum explore_site site)
{
	return site >= EXPLORE_PUT_DEAD_TASK;
}

static const char *const action_names[EXPLORE_NR_ACTIONS] = {
	[EXPLORE_NONE] = "none", [EXPLORE_YIELD] = "yield",
	[EXPLORE_DELAY] = "delay", [EXPLORE_IPI] = "ipi",
	[EXPLORE_MIGRATE] = "migrate",
};

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t decision_hash(uint64_t seed, unsigned long idx)
{
	return mix64(mix64(seed) ^ (idx * 0x9e3779b97f4a7c15ull + 1));
}

/* 1..5: the seed injects at about one decision in 2^shift. */
static unsigned int rate_shift(uint64_t seed)
{
	return 1 + mix64(seed ^ 0x5eed) % 5;
}

/* The action a decision takes if it injects: yield half the time, the
 * other three a sixth each (bits of the hash the rate does not use). */
static enum explore_action pick_action(uint64_t seed, unsigned long idx)
{
	unsigned int r = (decision_hash(seed, idx) >> 16) % 6;

	if (r < 3)
		return EXPLORE_YIELD;
	return r == 3 ? EXPLORE_DELAY : r == 4 ? EXPLORE_IPI : EXPLORE_MIGRATE;
}

enum explore_action explore_decide(uint64_t seed, unsigned long idx)
{
	uint64_t mask = (1ull << rate_shift(seed)) - 1;

	if (decision_hash(seed, idx) & mask)
		return EXPLORE_NONE;
	return pick_action(seed, idx);
}

unsigned int explore_delay_us(uint64_t seed, unsigned long idx)
{
	return 1 + (decision_hash(seed, idx) >> 40) % EXPLORE_MAX_DELAY_US;
}

bool explore_list_has(const unsigned long *v, int n, unsigned long idx)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (v[mid] == idx)
			return true;
		if (v[mid] < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Insert x into the sorted v[0..*n), if there is room. */
static bool list_insert(unsigned long *v, int *n, int max, unsigned long x)
{
	int i = *n;

	if (*n == max)
		return false;
	for (; i > 0 && v[i - 1] > x; i--)
		v[i] = v[i - 1];
	v[i] = x;
	(*n)++;
	return true;
}

int explore_parse_list(const char *s, unsigned long *v, int max)
{
	int n = 0;

	if (!*s || strcmp(s, "none") == 0)
		return 0;
	for (;;) {
		char *end;
		unsigned long a = simple_strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			b = simple_strtoul(++s, &end, 10);
			if (end == s || b < a)
				return -1;
			s = end;
		}
		for (unsigned long x = a; x <= b; x++)
			if (!list_insert(v, &n, max, x))
				return -1;
		if (!*s)
			return n;
		if (*s++ != ',')
			return -1;
	}
}

static int other_online_cpu(unsigned long idx)
{
	int n = num_online_cpus(), me = raw_smp_processor_id();

	if (n < 2)
		return me;
	return (me + 1 + decision_hash(ex.seed, idx) % (n - 1)) % n;
}

/* Preempt now if that is possible without changing what the task is
 * doing (running, preemptible), else at the end of the section. */
static void inject_yield(void)
{
	if (preemptible() && task_is_running(current))
		yield();
	else
		resched_cpu(raw_smp_processor_id());
}

/* Move to another CPU, then give the task its mask back (which allows the
 * new CPU: it stays there). Only a task that may move; else a yield. */
static void inject_migrate(unsigned long idx)
{
	struct task_struct *t = current;
	int cpu = other_online_cpu(idx);
	cpumask_t saved;

	if (cpu == raw_smp_processor_id() || !preemptible() ||
	    t->migration_disabled || !task_is_running(t) ||
	    !cpumask_test_cpu(cpu, &t->cpus_mask)) {
		inject_yield();
		return;
	}
	saved = t->cpus_mask;
	set_cpus_allowed(t, cpumask_of(cpu));
	set_cpus_allowed(t, &saved);
}

static void inject(enum explore_action action, unsigned long idx)
{
	switch (action) {
	case EXPLORE_YIELD:
		inject_yield();
		break;
	case EXPLORE_DELAY:
		udelay(explore_delay_us(ex.seed, idx));
		break;
	case EXPLORE_IPI:
		resched_cpu(other_online_cpu(idx));
		break;
	case EXPLORE_MIGRATE:
		inject_migrate(idx);
		break;
	default:
		break;
	}
}

/* Is injecting at this visit legal at all (see the header comment)? A
 * window is entered with interrupts off on purpose. */
static bool explore_may_inject(enum explore_site site, struct task_struct *t)
{
	if (in_interrupt() || (irqs_disabled() && !explore_is_window(site)) ||
	    !t || t->pid < ex.first_task_id || t->explore_depth)
		return false;
	if (site == EXPLORE_PREEMPT_ENABLE && preempt_count())
		return false;
	if (site == EXPLORE_MIGRATE_ENABLE && t->migration_disabled)
		return false;
	return true;
}

void __explore_point(enum explore_site site)
{
	struct task_struct *t = current;
	enum explore_action action;
	unsigned long idx, slot;

	if (!explore_may_inject(site, t))
		return;
	idx = __atomic_fetch_add(&ex.next, 1, __ATOMIC_RELAXED);
	if (ex.only_set)
		action = explore_list_has(ex.only, ex.nr_only, idx)
				 ? pick_action(ex.seed, idx) : EXPLORE_NONE;
	else
		action = explore_decide(ex.seed, idx);
	if (action == EXPLORE_NONE)
		return;
	if (explore_is_window(site))
		action = EXPLORE_DELAY; /* the only legal one there */
	slot = __atomic_fetch_add(&ex.injected, 1, __ATOMIC_RELAXED);
	if (slot >= EXPLORE_MAX_INJECT)
		return;
	ex.inj[slot] = (struct explore_injection){idx, site, action, t->pid, ""};
	strlcpy(ex.inj[slot].task, t->comm, sizeof(ex.inj[slot].task));
	t->explore_depth++;
	inject(action, idx);
	t->explore_depth--;
}

void explore_init(bool seeded, unsigned long seed)
{
	static char only[BOOT_CMDLINE_MAX];

	if (!seeded) {
		printk("explore: off (boot with ktest_seed=N to explore)\n");
		return;
	}
	ex.seed = seed;
	if (cmdline_get("explore_only", only, sizeof(only))) {
		ex.nr_only = explore_parse_list(only, ex.only, EXPLORE_MAX_ONLY);
		if (ex.nr_only < 0) {
			printk("explore: bad explore_only=%s (numbers and "
			       "ranges, comma-separated, at most %d): explorer "
			       "off\n", only, EXPLORE_MAX_ONLY);
			return;
		}
		ex.only_set = true;
	}
	ex.enabled = true;
	printk("explore: seed=%lu rate=1/%u%s%s\n", (unsigned long)ex.seed,
	       1u << rate_shift(ex.seed), ex.only_set ? " only=" : "",
	       ex.only_set ? only : "");
}

void explore_test_start(const struct task_struct *t)
{
	if (!ex.enabled)
		return;
	ex.first_task_id = t->pid;
	ex.next = 0;
	ex.injected = 0;
	__atomic_store_n(&explore_armed, true, __ATOMIC_RELEASE);
}

void explore_test_end(void)
{
	__atomic_store_n(&explore_armed, false, __ATOMIC_RELEASE);
}

/* The injected decisions as "3,17,40" into buf (the explore_only= form). */
static void format_only(char *buf, int size, unsigned long n)
{
	int len = 0;

	buf[0] = 0;
	for (unsigned long i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%lu", i ? "," : "",
				ex.inj[i].idx);
}

void explore_report_failure(const char *suite, const char *name)
{
	static char only[BOOT_CMDLINE_MAX];
	unsigned long n = ex.injected < EXPLORE_MAX_INJECT ? ex.injected
							   : EXPLORE_MAX_INJECT;

	if (!ex.enabled)
		return;
	ktest_log("explore: seed=%llu: %lu decisions, %lu injected",
		  (unsigned long long)ex.seed, ex.next, n);
	for (unsigned long i = 0; i < n; i++) {
		const struct explore_injection *j = &ex.inj[i];

		if (j->action == EXPLORE_DELAY)
			ktest_log("explore:   %lu: delay %u us at %s in %s/%d",
				  j->idx, explore_delay_us(ex.seed, j->idx),
				  site_names[j->site], j->task, j->task_id);
		else
			ktest_log("explore:   %lu: %s at %s in %s/%d", j->idx,
				  action_names[j->action], site_names[j->site],
				  j->task, j->task_id);
	}
	format_only(only, sizeof(only), n);
	ktest_log("explore: only=%s", n ? only : "none");
	ktest_log("explore: replay: make explore KTEST=%s.%s KSEED=%llu "
		  "CPUS=%u RT=%d LOCKDEP=%d%s%s", suite, name,
		  (unsigned long long)ex.seed, num_online_cpus(),
		  IS_ENABLED(CONFIG_PREEMPT_RT), IS_ENABLED(CONFIG_LOCKDEP),
		  ex.only_set ? " EXPLORE_ONLY=" : "",
		  ex.only_set ? (n ? only : "none") : "");
}
#endif /* CONFIG_EXPLORE */
