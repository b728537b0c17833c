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
 * PCT mode (explore_mode=pct; Burckhardt, Kothari, Musuvathi and
 * Nagarakatte, "A randomized scheduler with probabilistic guarantees of
 * finding bugs", ASPLOS 2010). Injections take a task off its CPU for as
 * long as a yield or a delay lasts; PCT keeps it off for as long as a
 * higher task can run. Each task of the test gets a random priority (a
 * function of the seed and its number), and d-1 decisions drawn among
 * the first k ("change points") demote the deciding task below all the
 * others. At each decision a task waits, asleep, while a higher task of
 * the test can run: is runnable, or sleeps but made a decision within
 * PCT_HOLD_NS (a timed sleep, a completion another task gives, a CPU
 * going offline: it will run again), and is not itself waiting in its
 * gate. A higher task asleep for longer is
 * taken to wait for a lower one (a lock it holds, a flag it sets), and
 * no longer holds anyone back; nor does a runnable one while no task of
 * the test makes a decision for PCT_HOLD_NS (a busy-wait for a lower
 * task, which strict priorities would turn into a livelock). So the
 * test's tasks run one at a time, in priority order, at the granularity
 * of their scheduling points. A bug of depth d (d orderings that must
 * all happen) is found by one run with probability at least
 * 1/(n * k^(d-1)) for n tasks and k decisions; the runner prints that
 * bound after each test.
 *
 * Whole file under CONFIG_EXPLORE (EXPLORE=1).
 */
#ifdef CONFIG_EXPLORE
#include "debug/explore.h"
#include "atomic.h"
#include "cpumask.h"
#include "delay.h"
#include "debug/ktest.h"
#include "bootinfo.h"
#include "cmdline.h"
#include "printk.h"
#include "rwonce.h"
#include "sched/sched.h"
#include "string.h"
#include "time/time.h"
#include "vsprintf.h"

#define EXPLORE_MAX_INJECT 128     /* per test; later decisions are NONE */
#define EXPLORE_MAX_ONLY 256
#define EXPLORE_MAX_DELAY_US 1000
#define PCT_MAX_DEPTH 8
#define PCT_MAX_TASKS 64           /* tasks counted; later ones: no demotion */
#define PCT_HOLD_NS (200 * 1000000ull)
/* First priorities are above every demoted one (d-1 .. 1). */
#define PCT_BASE_PRIO (1ull << 48)

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
	atomic_long_t next;            /* the next decision number */
	atomic_long_t injected;        /* slots of inj[] taken */
	struct explore_injection inj[EXPLORE_MAX_INJECT];
	bool only_set;
	int nr_only;
	unsigned long only[EXPLORE_MAX_ONLY]; /* sorted */
	bool pct;                      /* explore_mode=pct */
	unsigned int depth;            /* PCT's d */
	unsigned long steps;           /* PCT's k */
} ex;

/* PCT's state for the running test. Tasks are numbered from the test's
 * own (pid - first_task_id); written by the task itself at its
 * decisions, read by the others' gates (racy on purpose: a stale look
 * costs one more millisecond of waiting). */
static struct {
	uint64_t demoted[PCT_MAX_TASKS];  /* 0, or the priority it dropped to */
	uint64_t seen_ns[PCT_MAX_TASKS];  /* its last decision */
	bool waiting[PCT_MAX_TASKS];      /* in its gate: holds no one back */
	atomic_t nr_tasks;                /* tasks that made a decision */
	uint64_t progress_ns;             /* the last decision of any task */
	unsigned long gated;              /* gates that made a task wait */
	unsigned long released;           /* ... let through by PCT_HOLD_NS */
} pct;

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
	[EXPLORE_MIGRATE] = "migrate", [EXPLORE_DEMOTE] = "demote",
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

uint64_t explore_pct_prio(uint64_t seed, unsigned int task)
{
	/* 48 random bits: distinct for any two tasks of a test but with
	 * odds of 2^-48; a tie goes to the lower number. */
	return PCT_BASE_PRIO + (mix64(mix64(seed ^ 0x9c7) + task) >> 16);
}

unsigned long explore_pct_change(uint64_t seed, unsigned int i,
				 unsigned long k)
{
	return k ? mix64(mix64(seed ^ 0xc4a) + i) % k : 0;
}

/* Which change point (1..d-1) decision idx is, or 0. */
static unsigned int pct_change_point(unsigned long idx)
{
	for (unsigned int i = 1; i < ex.depth; i++)
		if (explore_pct_change(ex.seed, i, ex.steps) == idx)
			return i;
	return 0;
}

static unsigned int pct_task(const struct task_struct *t)
{
	return t->pid - ex.first_task_id;
}

/* t's PCT priority: higher runs first; ties go to the lower number. */
static uint64_t pct_prio(const struct task_struct *t)
{
	unsigned int n = pct_task(t);
	uint64_t d = n < PCT_MAX_TASKS ? READ_ONCE(pct.demoted[n]) : 0;

	return (d ? d : explore_pct_prio(ex.seed, n)) * 2 * PCT_MAX_TASKS +
	       (2 * PCT_MAX_TASKS - 1 - (n < PCT_MAX_TASKS ? n : PCT_MAX_TASKS));
}

/* What a gate found holding it back. */
struct pct_look {
	const struct task_struct *self;
	uint64_t prio, now;
	bool runnable;                 /* the holder is runnable */
	int pid;
	char comm[16];
};

/* Does t, a task of the test above look->self, hold it back? Under the
 * task list's lock. */
static bool pct_holds(struct task_struct *t, void *arg)
{
	struct pct_look *look = arg;
	unsigned int n = pct_task(t);
	unsigned int state = READ_ONCE(t->__state);
	bool recent;

	/* A task waiting in its own gate waits for higher ones: it cannot
	 * run, and counting it would chain every gate to every other. */
	if (t == look->self || t->pid < ex.first_task_id ||
	    (state & (TASK_DEAD | TASK_NEW)) || pct_prio(t) <= look->prio ||
	    (n < PCT_MAX_TASKS && READ_ONCE(pct.waiting[n])))
		return false;
	recent = n < PCT_MAX_TASKS && READ_ONCE(pct.seen_ns[n]) &&
		 look->now - READ_ONCE(pct.seen_ns[n]) < PCT_HOLD_NS;
	/* Asleep: it holds the others back if it decided lately, unless it
	 * waits for a lock, whose owner (perhaps look->self) must run. */
	if (state != TASK_RUNNING && (!recent || t->pi_blocked_on))
		return false;
	look->runnable = state == TASK_RUNNING;
	look->pid = t->pid;
	strlcpy(look->comm, t->comm, sizeof(look->comm));
	return true;
}

/* Wait while a higher task of the test can run (see the top of the
 * file). Only where t may sleep: preemptible, running (a task between
 * set_current_state() and schedule() is on its way to sleep anyway). */
static void pct_gate(struct task_struct *t)
{
	struct pct_look look = {.self = t, .prio = pct_prio(t)};
	unsigned int n = pct_task(t);
	bool waited = false;

	if (!preemptible() || !task_is_running(t))
		return;
	if (n < PCT_MAX_TASKS)
		WRITE_ONCE(pct.waiting[n], true);
	for (;;) {
		look.now = ktime_get_ns();
		if (!task_find(pct_holds, &look))
			break;
		if (look.runnable &&
		    look.now - READ_ONCE(pct.progress_ns) >= PCT_HOLD_NS) {
			pct.released++;
			printk("explore: pct: %s/%d let through: %s/%d, above "
			       "it, is runnable but no task of the test has "
			       "decided anything for %llu ms (a busy-wait?)\n",
			       t->comm, t->pid, look.comm, look.pid,
			       PCT_HOLD_NS / 1000000);
			break;
		}
		waited = true;
		msleep(1);
	}
	if (n < PCT_MAX_TASKS)
		WRITE_ONCE(pct.waiting[n], false);
	if (waited)
		pct.gated++;
}

/* A decision in PCT mode: note the task, demote it at a change point
 * (or at an explore_only= decision that is one), then gate it. */
static void pct_point(struct task_struct *t, enum explore_site site,
		      unsigned long idx)
{
	unsigned int n = pct_task(t), level = pct_change_point(idx);
	uint64_t now = ktime_get_ns();
	unsigned long slot;

	WRITE_ONCE(pct.progress_ns, now);
	if (n < PCT_MAX_TASKS) {
		if (!READ_ONCE(pct.seen_ns[n]))
			atomic_inc(&pct.nr_tasks);
		WRITE_ONCE(pct.seen_ns[n], now);
	}
	if (ex.only_set && !explore_list_has(ex.only, ex.nr_only, idx))
		level = 0;
	t->explore_depth++;
	if (level && n < PCT_MAX_TASKS) {
		WRITE_ONCE(pct.demoted[n], ex.depth - level);
		slot = atomic_long_fetch_add(1, &ex.injected);
		if (slot < EXPLORE_MAX_INJECT) {
			ex.inj[slot] = (struct explore_injection){
				idx, site, EXPLORE_DEMOTE, t->pid, ""};
			strlcpy(ex.inj[slot].task, t->comm,
				sizeof(ex.inj[slot].task));
		}
	}
	pct_gate(t);
	t->explore_depth--;
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
	restore_cpus_allowed(t, &saved);
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
	if (in_hardirq() || (irqs_disabled() && !explore_is_window(site)) ||
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
	idx = atomic_long_fetch_add(1, &ex.next);
	if (ex.pct) {
		pct_point(t, site, idx);
		return;
	}
	if (ex.only_set)
		action = explore_list_has(ex.only, ex.nr_only, idx)
				 ? pick_action(ex.seed, idx) : EXPLORE_NONE;
	else
		action = explore_decide(ex.seed, idx);
	if (action == EXPLORE_NONE)
		return;
	if (explore_is_window(site))
		action = EXPLORE_DELAY; /* the only legal one there */
	slot = atomic_long_fetch_add(1, &ex.injected);
	if (slot >= EXPLORE_MAX_INJECT)
		return;
	ex.inj[slot] = (struct explore_injection){idx, site, action, t->pid, ""};
	strlcpy(ex.inj[slot].task, t->comm, sizeof(ex.inj[slot].task));
	t->explore_depth++;
	inject(action, idx);
	t->explore_depth--;
}

/* explore_mode=pct, explore_depth=d (1..8, default 2), explore_steps=k
 * (default 1000): false if one is refused (the option parser says why). */
static bool pct_init(void)
{
	char mode[8];
	unsigned long d = 2, k = 1000;

	if (!cmdline_get("explore_mode", mode, sizeof(mode)))
		return true;
	if (strcmp(mode, "pct") != 0) {
		printk("explore: explore_mode=%s: no such mode (pct, or none "
		       "for injections)\n", mode);
		return false;
	}
	if (cmdline_get_ulong("explore_depth", &d, 1, PCT_MAX_DEPTH) < 0 ||
	    cmdline_get_ulong("explore_steps", &k, 1, 1ul << 32) < 0)
		return false;
	ex.pct = true;
	ex.depth = d;
	ex.steps = k;
	return true;
}

void explore_init(bool seeded, unsigned long seed)
{
	static char only[BOOT_CMDLINE_MAX];
	char how[48];

	if (!seeded) {
		printk("explore: off (boot with ktest_seed=N to explore)\n");
		return;
	}
	ex.seed = seed;
	if (!pct_init()) {
		printk("explore: explorer off\n");
		return;
	}
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
	if (ex.pct)
		snprintf(how, sizeof(how), "pct depth=%u steps=%lu", ex.depth,
			 ex.steps);
	else
		snprintf(how, sizeof(how), "rate=1/%u", 1u << rate_shift(ex.seed));
	printk("explore: seed=%lu %s%s%s\n", (unsigned long)ex.seed, how,
	       ex.only_set ? " only=" : "", ex.only_set ? only : "");
}

void explore_test_start(const struct task_struct *t)
{
	if (!ex.enabled)
		return;
	ex.first_task_id = t->pid;
	atomic_long_set(&ex.next, 0);
	atomic_long_set(&ex.injected, 0);
	memset(&pct, 0, sizeof(pct));
	/* Release: the counts are reset before any CPU injects. */
	smp_store_release(&explore_armed, true);
}

/* n * k^(d-1), or 0 past 2^63 (then "no useful bound"). */
static uint64_t pct_bound(unsigned int n, unsigned long k, unsigned int d)
{
	uint64_t b = n ? n : 1;

	for (unsigned int i = 1; i < d; i++) {
		if (b > (1ull << 63) / k)
			return 0;
		b *= k;
	}
	return b;
}

void explore_test_end(void)
{
	unsigned long next;
	uint64_t b;

	if (!xchg(&explore_armed, false) || !ex.pct)
		return;
	next = atomic_long_read(&ex.next);
	/* The guarantee holds for k at least the run's own step count. */
	b = pct_bound(atomic_read(&pct.nr_tasks),
		      ex.steps > next ? ex.steps : next, ex.depth);
	ktest_log("explore: pct: %d task(s), %lu step(s) (k=%lu), depth %u: "
		  "a bug of depth %u is found with probability >= 1/%llu per "
		  "run; %lu gate(s) waited, %lu let through",
		  atomic_read(&pct.nr_tasks), next, ex.steps, ex.depth,
		  ex.depth, (unsigned long long)b, pct.gated, pct.released);
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
	char mode[48] = "";
	unsigned long n = atomic_long_read(&ex.injected);

	if (n > EXPLORE_MAX_INJECT)
		n = EXPLORE_MAX_INJECT;

	if (!ex.enabled)
		return;
	ktest_log("explore: seed=%llu: %lu decisions, %lu injected",
		  (unsigned long long)ex.seed, atomic_long_read(&ex.next), n);
	for (unsigned long i = 0; i < n; i++) {
		const struct explore_injection *j = &ex.inj[i];

		if (j->action == EXPLORE_DELAY)
			ktest_log("explore:   %lu: delay %u us at %s in %s/%d",
				  j->idx, explore_delay_us(ex.seed, j->idx),
				  site_names[j->site], j->task, j->task_id);
		else if (j->action == EXPLORE_DEMOTE)
			ktest_log("explore:   %lu: demote to %u at %s in %s/%d",
				  j->idx, ex.depth - pct_change_point(j->idx),
				  site_names[j->site], j->task, j->task_id);
		else
			ktest_log("explore:   %lu: %s at %s in %s/%d", j->idx,
				  action_names[j->action], site_names[j->site],
				  j->task, j->task_id);
	}
	format_only(only, sizeof(only), n);
	ktest_log("explore: only=%s", n ? only : "none");
	if (ex.pct)
		snprintf(mode, sizeof(mode), " MODE=pct DEPTH=%u PCT_STEPS=%lu",
			 ex.depth, ex.steps);
	ktest_log("explore: replay: make explore KTEST=%s.%s KSEED=%llu "
		  "CPUS=%u RT=%d LOCKDEP=%d%s%s%s", suite, name,
		  (unsigned long long)ex.seed, num_online_cpus(),
		  IS_ENABLED(CONFIG_PREEMPT_RT), IS_ENABLED(CONFIG_LOCKDEP),
		  mode, ex.only_set ? " EXPLORE_ONLY=" : "",
		  ex.only_set ? (n ? only : "none") : "");
}
#endif /* CONFIG_EXPLORE */
