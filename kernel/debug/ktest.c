/*
 * The in-kernel test runner: finds every KTEST through the .ktests
 * section, selects by the ktest=GLOB option, runs each selected test as
 * its own kernel task and prints KTAP (one subtest block per suite) on the
 * console.
 *
 * Each test task starts bound to CPU 0 (a test may change its own
 * affinity) and runs its suite's KTEST_SUITE set-up before the test and
 * its tear-down after it. KASSERT_* ends it through ktest_abort(); a test
 * that does not finish within the time bound is reported "# timeout",
 * with every CPU's and every task's stack, and ends the run as failed.
 */
#include "compiler.h"
#include <stdarg.h>
#include "debug/ktest.h"
#include "sched/completion.h"
#include "debug/explore.h"
#include "glob.h"
#include "irq_work.h"
#include "irqflags.h"
#include "mm/kmalloc.h"
#include "cmdline.h"
#include "locking/lockdep.h"
#include "printk.h"
#include "rcu/rcupdate.h"
#include "asm/qemu.h"
#include "rwonce.h"
#include "sched/sched.h"
#include "smp.h"
#include "string.h"
#include "time/time.h"
#include "vsprintf.h"

extern const struct ktest __ktests_start[], __ktests_end[];
extern const struct ktest_suite __ktest_suites_start[], __ktest_suites_end[];

/* The bound is in guest time, which runs on while the host does not run
 * the vCPUs: a correct test on 8 vCPUs of a busy 2-core host has taken
 * 87 s (user.fork_bomb_stopped_by_nproc, host load ~19), and one went
 * past 120 s. Only a hang comes near 300. */
#define DEFAULT_TIMEOUT_S 300
#define MAX_TIMEOUT_S 86400  /* a day; its ns still fit in 64 bits */
/* A test still running says so this often, so that a log never goes
 * quiet for longer while the kernel can print: a host that watches the
 * log can tell a long test from a kernel that cannot even report. */
#define HEARTBEAT_S 60

/* The test now running. failed may be set by the test's task and by any
 * task it started, on any CPU (WRITE_ONCE/READ_ONCE: each access one
 * store or load; the runner reads it once the test's completion has
 * ordered the task's stores); the rest belongs to the runner. */
static struct {
	const struct ktest *test;
	const struct ktest_suite *suite; /* its set-up, or NULL */
	struct task_struct *task;
	bool failed;
	struct completion done;
	unsigned long reports[LOCKDEP_NR_REPORT_KINDS]; /* when it began */
	unsigned long overflows;     /* lockdep_overflows() when it began */
	bool lockdep_off;            /* the validator was off as it began */
} cur;
static unsigned long timeout_s = DEFAULT_TIMEOUT_S;

/* Tests started and ended so far: the runner numbers each test as it
 * starts it, the test's task marks it ended (ktest_number(),
 * ktest_ended()). */
static unsigned long tests_started, tests_ended;

/* The tests that took longest, and how long (guest time), longest
 * first: printed at the end of the run, so that a log shows how close to
 * its bound the slowest test came and where a boot's time went. */
#define NR_SLOWEST 5
static struct {
	const struct ktest *test;
	uint64_t ns;
} slowest[NR_SLOWEST];

void ktest_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("    # ", fmt, ap);
	va_end(ap);
}

void ktest_fail(const char *file, int line, const char *op, const char *lhs,
		long long a, const char *rhs, long long b)
{
	WRITE_ONCE(cur.failed, true);
	printk("    # %s:%d: expected %s %s %s, got %lld (0x%llx) vs %lld "
	       "(0x%llx)\n",
	       file, line, lhs, op, rhs, a, a, b, b);
}

void ktest_fail_msg(const char *file, int line, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	WRITE_ONCE(cur.failed, true);
	printk("    # %s:%d: %s\n", file, line, buf);
}

/* The KTEST_SUITE() of the named suite, or NULL. */
static const struct ktest_suite *find_suite(const char *name)
{
	for (const struct ktest_suite *s = __ktest_suites_start;
	     s < __ktest_suites_end; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return 0;
}

/* The end of the test's task, however the test ended: the suite's
 * tear-down, then the runner is told. */
static void ktest_task_done(void)
{
	if (cur.suite && cur.suite->exit)
		cur.suite->exit();
	WRITE_ONCE(tests_ended, tests_started); /* its helpers may stop */
	complete(&cur.done);
}

unsigned long ktest_number(void)
{
	return READ_ONCE(tests_started);
}

bool ktest_ended(unsigned long n)
{
	return READ_ONCE(tests_ended) >= n;
}

/* A KASSERT failed: end the task it failed in (the failure is recorded;
 * a helper task of the test just stops). */
__noreturn void ktest_abort(void)
{
	if (current == cur.task)
		ktest_task_done();
	kthread_exit(1);
}

static int ktest_task_fn(void *arg)
{
	const struct ktest *t = arg;

	if (cur.suite && cur.suite->init)
		cur.suite->init();
	/* After the set-up: a lockdep suite's reset turns it back on. */
	cur.lockdep_off = IS_ENABLED(CONFIG_LOCKDEP) && !lockdep_enabled();
	t->fn();
	ktest_task_done();
	return 0;
}

/* The test hangs: show everything, then end the run. */
__noreturn static void ktest_timed_out(const struct ktest *t,
						      int num)
{
	explore_test_end();
	explore_report_failure(t->suite, t->name);
	printk("    # %s.%s did not finish within %lu s; CPUs and tasks:\n",
	       t->suite, t->name, timeout_s);
	trigger_all_cpu_backtrace();
	sched_show_all();
	printk("    not ok %d %s # timeout\n", num, t->name);
	printk("# ktest: run ended by a timeout\n");
	qemu_exit(QEMU_EXIT_FAIL);
	for (;;)
		schedule_timeout(~0ul);
}

/* Wait for the running test t to end, for at most timeout_s, saying every
 * HEARTBEAT_S that it still runs; false when the bound ran out. */
static bool ktest_wait_done(const struct ktest *t)
{
	unsigned long waited = 0;

	while (waited < timeout_s) {
		unsigned long step = timeout_s - waited < HEARTBEAT_S
					     ? timeout_s - waited
					     : HEARTBEAT_S;

		if (wait_for_completion_timeout(&cur.done, step * 1000000000ul))
			return true;
		waited += step;
		if (waited < timeout_s)
			printk("    # %s.%s still running after %lu s of its "
			       "%lu s bound\n", t->suite, t->name, waited,
			       timeout_s);
	}
	return false;
}

/*
 * The tasks of the tests before a test are freed a grace period after
 * their last reference (put_task_struct()): the runner waits in
 * rcu_barrier() before each test, so that a test that counts the
 * allocators' memory starts from a state no earlier test's deferred
 * frees can change under it. In a kernel whose grace periods have
 * stopped (a lab's starter, an RCU bug) rcu_barrier() never returns,
 * and the tests must still run and say what fails. So a helper task
 * waits in it for the runner, and the runner gives up once no grace
 * period has ended while every CPU took RCU_STALL_TICKS ticks (a grace
 * period needs a few: each tick reports a quiescent state), or in
 * RCU_STALL_S seconds of waiting. The count restarts at every grace
 * period that ends, so a long barrier that makes progress is waited for
 * whole; the ticks are the CPUs' own time, which a slow host stretches;
 * the seconds, the host's, are for a CPU that takes no tick at all, and
 * no correct grace period comes near them. From then on the runner skips
 * the barrier (the helper still holds rcu_barrier()'s mutex).
 */
#define RCU_STALL_TICKS 2000
#define RCU_STALL_S 10

static struct {
	struct task_struct *helper; /* made at the first barrier, never ends */
	struct completion request, done;
	bool stalled;               /* gave up: the helper never came back */
	struct tick_watch since_gp; /* ticks since the last grace period */
} barrier;

static int ktest_barrier_fn(void *unused)
{
	for (;;) {
		wait_for_completion(&barrier.request);
		rcu_barrier();
		complete(&barrier.done);
	}
	return 0;
}

static void ktest_rcu_barrier(void)
{
	unsigned long cookie = get_state_synchronize_rcu();
	uint64_t gp_ns = ktime_get_ns();

	if (barrier.stalled)
		return;
	if (!barrier.helper) {
		init_completion(&barrier.request);
		init_completion(&barrier.done);
		barrier.helper = kthread_run(ktest_barrier_fn, 0, "ktest_barrier");
		if (!barrier.helper) /* the test's own task will say so */
			return;
	}
	complete(&barrier.request);
	tick_watch_start(&barrier.since_gp);
	while (!wait_for_completion_timeout(&barrier.done, 100000000ul)) {
		if (poll_state_synchronize_rcu(cookie)) {
			cookie = get_state_synchronize_rcu();
			gp_ns = ktime_get_ns();
			tick_watch_start(&barrier.since_gp);
		} else if (tick_watch_passed(&barrier.since_gp,
					     RCU_STALL_TICKS) ||
			   ktime_get_ns() - gp_ns >= RCU_STALL_S * 1000000000ul) {
			printk("    # ktest: no RCU grace period ended while "
			       "every CPU took %u ticks, or in %u s, of "
			       "rcu_barrier(): the tests from here run without "
			       "it\n", RCU_STALL_TICKS, RCU_STALL_S);
			barrier.stalled = true;
			return;
		}
	}
}

static void note_slowest(const struct ktest *t, uint64_t ns)
{
	int i = NR_SLOWEST - 1;

	if (ns <= slowest[i].ns)
		return;
	for (; i > 0 && ns > slowest[i - 1].ns; i--)
		slowest[i] = slowest[i - 1];
	slowest[i].test = t;
	slowest[i].ns = ns;
}

static void print_slowest(void)
{
	for (int i = 0; i < NR_SLOWEST && slowest[i].test; i++)
		printk("# ktest: slowest test %s.%s, %lu ms of its %lu s "
		       "bound\n", slowest[i].test->suite,
		       slowest[i].test->name,
		       (unsigned long)(slowest[i].ns / 1000000), timeout_s);
}

/* Run t in a task of its own, bound to CPU 0, and wait for it. */
static void ktest_run_task(const struct ktest *t, int num)
{
	struct task_struct *task;
	uint64_t t0, took;

	ktest_rcu_barrier();
	task = kthread_create(ktest_task_fn, (void *)t, t->name);
	if (!task) {
		ktest_fail_msg(t->file, t->line, "no memory for the test task");
		return;
	}
	kthread_bind(task, 0);
	cur.task = task;
	init_completion(&cur.done);
	WRITE_ONCE(tests_started, tests_started + 1);
	explore_test_start(task);
	t0 = ktime_get_ns();
	wake_up_process(task);
	if (!ktest_wait_done(t))
		ktest_timed_out(t, num);
	took = ktime_get_ns() - t0;
	note_slowest(t, took);
	explore_test_end();
	kthread_join(task);
}

static int cmp_tests(const struct ktest *a, const struct ktest *b)
{
	int c = strcmp(a->file, b->file);
	return c ? c : a->line - b->line;
}

/* The tests in file and line order (the linker keeps no useful order). */
static const struct ktest **sorted_tests(int *n)
{
	int count = __ktests_end - __ktests_start;
	const struct ktest **v = kmalloc(sizeof(*v) * (count ? count : 1));

	if (!v)
		return 0;
	for (int i = 0; i < count; i++) {
		const struct ktest *t = &__ktests_start[i];
		int j = i;

		for (; j > 0 && cmp_tests(v[j - 1], t) > 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
	*n = count;
	return v;
}

static bool selected(const struct ktest *t, const char *glob)
{
	char full[128];

	snprintf(full, sizeof(full), "%s.%s", t->suite, t->name);
	return glob_match_list(glob, full);
}

/* A panic test ends the kernel, and an expected-failure test fails the
 * run, so each runs only when named alone. */
static bool runs_alone(const struct ktest *t, const char *glob)
{
	char full[128];

	snprintf(full, sizeof(full), "%s.%s", t->suite, t->name);
	return strcmp(glob, full) == 0;
}

struct tally {
	int passed, failed, skipped;
};

/* Only the validator's own suites provoke reports on purpose (and their
 * tear-down, lockdep_reset(), clears what they provoked); a report
 * anywhere else is a bug the test has found. */
static void check_lockdep_reports(const struct ktest *t, unsigned long before)
{
	unsigned long after = lockdep_reports_total();

	if (after > before && strncmp(t->suite, "lockdep", 7) != 0)
		ktest_fail_msg(t->file, t->line,
			       "%lu unexpected lockdep report(s)",
			       after - before);
}

/* The limit that switched the validator off, for a message: never NULL
 * (with LOCKDEP=0 there is none, and the callers below never print). */
static const char *overflow_limit(void)
{
	const char *limit = lockdep_overflow_limit();

	return limit ? limit : "no limit";
}

/*
 * A validator that switched itself off (a full table) checks nothing: a
 * test it watched while off passed vacuously, whether it expected reports
 * or none. So the test that was running when it happened fails, naming the
 * limit, and so does every later one that began with it still off.
 */
static void check_lockdep_on(const struct ktest *t)
{
	if (lockdep_overflows() != cur.overflows)
		ktest_fail_msg(t->file, t->line,
			       "the lock validator switched itself off during "
			       "this test (%s too low): its checks were not made",
			       overflow_limit());
	else if (cur.lockdep_off)
		ktest_fail_msg(t->file, t->line,
			       "the lock validator was off (%s too low, since "
			       "an earlier test): nothing was checked",
			       overflow_limit());
}

void ktest_expect_lockdep_reports(const char *file, int line, const char *name,
				  enum lockdep_report_kind kind,
				  unsigned long n)
{
	unsigned long got = lockdep_reports(kind) - cur.reports[kind];

	if (!IS_ENABLED(CONFIG_LOCKDEP)) {
		n = 0;
	} else if (!lockdep_enabled() ||
		   lockdep_overflows() != cur.overflows) {
		ktest_fail_msg(file, line, "expected %lu %s report(s), but the "
			       "lock validator is off (%s too low): got %lu",
			       n, name, overflow_limit(), got);
		lockdep_reset();
		return;
	}
	if (got != n)
		ktest_fail_msg(file, line, "expected %lu %s report(s), got %lu",
			       n, name, got);
	lockdep_reset();
}

static void ktest_run_one(const struct ktest *t, int num, const char *glob,
			  struct tally *tally)
{
	unsigned long reports;
	bool failed;

	if (t->expect && !runs_alone(t, glob)) {
		printk("    ok %d %s # SKIP %s\n", num, t->name,
		       t->must_fail ? "expected-failure test" : "panic test");
		tally->skipped++;
		return;
	}
	if ((int)num_online_cpus() < t->min_cpus) {
		printk("    ok %d %s # SKIP needs %d CPUs\n", num, t->name,
		       t->min_cpus);
		tally->skipped++;
		return;
	}
	for (const char *const *e = t->expect; e && *e; e++)
		printk("    # expect: %s\n", *e);
	cur.test = t;
	cur.suite = find_suite(t->suite);
	WRITE_ONCE(cur.failed, false);
	reports = lockdep_reports_total();
	for (int k = 0; k < LOCKDEP_NR_REPORT_KINDS; k++)
		cur.reports[k] = lockdep_reports(k);
	cur.overflows = lockdep_overflows();
	ktest_run_task(t, num);
	check_lockdep_reports(t, reports);
	check_lockdep_on(t);
	if (t->expect && !t->must_fail)
		ktest_fail_msg(t->file, t->line, "returned; a panic was expected");
	failed = READ_ONCE(cur.failed);
	if (IS_ENABLED(CONFIG_EXPLORE) && failed)
		explore_report_failure(t->suite, t->name);
	printk("    %sok %d %s\n", failed ? "not " : "", num, t->name);
	if (failed)
		tally->failed++;
	else
		tally->passed++;
}

/* Runs the selected tests of one suite, from index *i on; returns whether
 * the suite passed. */
static bool run_suite(const struct ktest **v, int n, int *i, const char *glob,
		      struct tally *tally)
{
	const char *suite = v[*i]->suite;
	int total = 0, num = 0, failed_before = tally->failed;

	for (int j = *i; j < n && strcmp(v[j]->suite, suite) == 0; j++)
		total += selected(v[j], glob);
	printk("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", suite, total);
	for (; *i < n && strcmp(v[*i]->suite, suite) == 0; (*i)++)
		if (selected(v[*i], glob))
			ktest_run_one(v[*i], ++num, glob, tally);
	return tally->failed == failed_before;
}

/* Group by suite, in the order suites first appear. */
static const struct ktest **group_suites(const struct ktest **v, int n)
{
	const struct ktest **g = kmalloc(sizeof(*g) * (n ? n : 1));
	int k = 0;

	if (!g)
		return 0;
	for (int i = 0; i < n; i++) {
		bool seen = false;

		for (int j = 0; j < i; j++)
			seen |= strcmp(v[j]->suite, v[i]->suite) == 0;
		if (seen)
			continue;
		for (int j = i; j < n; j++)
			if (strcmp(v[j]->suite, v[i]->suite) == 0)
				g[k++] = v[j];
	}
	kfree(v);
	return g;
}

static int count_suites(const struct ktest **v, int n, const char *glob)
{
	int suites = 0;

	for (int i = 0; i < n; i++) {
		bool first_of_suite = i == 0 || strcmp(v[i - 1]->suite,
						       v[i]->suite) != 0;
		bool any = false;

		if (!first_of_suite)
			continue;
		for (int j = i; j < n && strcmp(v[j]->suite, v[i]->suite) == 0;
		     j++)
			any |= selected(v[j], glob);
		suites += any;
	}
	return suites;
}

/* The runner's options: ktest_timeout=S (seconds, 1 to a day), and
 * ktest_seed=N (the interleaving explorer's seed; a number in any case).
 * A refused option fails the run, which goes on with the default: the
 * tests' results still show, and the failure says which option was bad. */
static void ktest_options(struct tally *tally)
{
	unsigned long seed = 1;
	bool seeded;

	cmdline_get_ulong("ktest_timeout", &timeout_s, 1, MAX_TIMEOUT_S);
	seeded = cmdline_get_ulong("ktest_seed", &seed, 0, ~0ul) > 0;
	explore_init(seeded, seed);
	if (cmdline_refused()) {
		printk("# ktest: %lu boot option(s) refused (see above): "
		       "counted as a failure\n", cmdline_refused());
		tally->failed++;
	}
	printk("ktest: each test bounded to %lu s\n", timeout_s);
}

int ktest_run_all(const char *glob)
{
	struct tally tally = {0, 0, 0};
	int n = 0, suite_num = 0;
	const struct ktest **v = sorted_tests(&n);

	if (!v || !(v = group_suites(v, n))) {
		printk("ktest: out of memory\n");
		return 1;
	}
	if (lockdep_reports_total()) {
		printk("# ktest: %lu lockdep report(s) before the tests: "
		       "counted as a failure\n", lockdep_reports_total());
		tally.failed++;
	}
	if (lockdep_overflows()) {
		printk("# ktest: the lock validator switched itself off before "
		       "the tests (%s too low): counted as a failure\n",
		       overflow_limit());
		tally.failed++;
	}
	ktest_options(&tally);
	printk("KTAP version 1\n1..%d\n", count_suites(v, n, glob));
	for (int i = 0; i < n;) {
		bool any = false;
		const char *suite = v[i]->suite;

		for (int j = i; j < n && strcmp(v[j]->suite, suite) == 0; j++)
			any |= selected(v[j], glob);
		if (!any) {
			while (i < n && strcmp(v[i]->suite, suite) == 0)
				i++;
			continue;
		}
		bool ok = run_suite(v, n, &i, glob, &tally);
		printk("%sok %d %s\n", ok ? "" : "not ", ++suite_num, suite);
	}
	print_slowest();
	printk("# ktest: %d passed, %d failed, %d skipped\n", tally.passed,
	       tally.failed, tally.skipped);
	kfree(v);
	return tally.failed;
}

/* ktest_in_hardirq(): an irq_work on this CPU, waited for with interrupts
 * on (they must be, or the self-IPI could never arrive). */
struct hardirq_call {
	struct irq_work work;
	void (*fn)(void *);
	void *arg;
	bool done; /* released by the interrupt once fn has run */
};

static void hardirq_call_func(struct irq_work *work)
{
	struct hardirq_call *c = (struct hardirq_call *)work;

	c->fn(c->arg);
	smp_store_release(&c->done, true);
}

void ktest_in_hardirq(void (*fn)(void *), void *arg)
{
	struct hardirq_call c = {.work.func = hardirq_call_func, .fn = fn,
				 .arg = arg};

	if (irqs_disabled()) {
		ktest_fail_msg(__FILE__, __LINE__,
			       "ktest_in_hardirq() called with IRQs off");
		return;
	}
	migrate_disable(); /* "the calling CPU" */
	irq_work_queue(&c.work);
	smp_cond_load_acquire(&c.done, VAL);
	migrate_enable();
}
