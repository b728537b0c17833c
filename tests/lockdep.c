/*
 * The lock validator's scenario matrix (kernel/lockdep.c; see
 * docs/lockdep.md): each test provokes one report of one kind, or shows
 * that a correct variant stays silent, and checks the counters with
 * lockdep_reports(kind) and lockdep_reports_total(). The per-CPU access
 * checker has its own suite (lockdep_percpu.c).
 *
 * Rules every test here keeps:
 *   - it starts and ends with a clean validator: the suite's set-up and
 *     tear-down are lockdep_reset() (the runner lets only suites named
 *     lockdep* leave reports, and a reset keeps the next test's counters
 *     clean);
 *   - its locks are its own file-scope statics, each a class of its own
 *     (or sharing a key it sets up itself), so that no test sees another's
 *     dependencies even if a reset were forgotten;
 *   - nothing ever deadlocks: "recursion" takes two different locks of one
 *     class, and a cycle is shown by taking the orders one after the other
 *     (in one task, or in tasks that run one after the other on different
 *     CPUs), never concurrently;
 *   - a sleeping lock taken where it may not sleep is always free, so it is
 *     taken on its fast path and nothing actually sleeps.
 * Tests needing several CPUs say so with KTEST_CPUS; helper tasks only
 * record what they see, the test task checks.
 */
#ifdef CONFIG_LOCKDEP

#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "asm/processor.h"
#include "cpumask.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "lockdep.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "rtmutex.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "time.h"

KTEST_SUITE(lockdep, .init = lockdep_reset, .exit = lockdep_reset);

/* The i-th helper of a test goes to CPU i, modulo the online CPUs. */
static int cpu_for(int i)
{
	return i % (int)num_online_cpus();
}

/* ---- a lock order, taken in a task: one lock of any kind per step ---- */

struct order_job {
	int n;
	struct any_lock s[4];
};

/* Take the job's locks in order, then release them in reverse. */
static void take_in_order(struct order_job *j)
{
	for (int i = 0; i < j->n; i++)
		any_lock_acquire(&j->s[i]);
	for (int i = j->n - 1; i >= 0; i--)
		any_lock_release(&j->s[i]);
}

static int order_fn(void *arg)
{
	take_in_order(arg);
	return 0;
}

#define M(x) ANY_LOCK(LOCK_MUTEX, &(x))
#define R(x) ANY_LOCK(LOCK_RAW, &(x))
#define S(x) ANY_LOCK(LOCK_SPIN, &(x))
#define RT(x) ANY_LOCK(LOCK_RTMUTEX, &(x))

/* ======================= LOCKDEP_RECURSIVE ======================= */

/* Two raw spinlocks given one class: the second acquisition is the class
 * taken twice (with one lock it would really deadlock). */
static struct lock_class_key rec_raw_key;
static DEFINE_RAW_SPINLOCK(rec_raw_a);
static DEFINE_RAW_SPINLOCK(rec_raw_b);

KTEST(lockdep, recursive_raw_same_class)
{
	lockdep_set_class(&rec_raw_a, &rec_raw_key);
	lockdep_set_class(&rec_raw_b, &rec_raw_key);
	raw_spin_lock(&rec_raw_a);
	raw_spin_lock(&rec_raw_b);
	raw_spin_unlock(&rec_raw_b);
	raw_spin_unlock(&rec_raw_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

static struct lock_class_key rec_spin_key;
static DEFINE_SPINLOCK(rec_spin_a);
static DEFINE_SPINLOCK(rec_spin_b);

KTEST(lockdep, recursive_spinlock_same_class)
{
	lockdep_set_class(&rec_spin_a, &rec_spin_key);
	lockdep_set_class(&rec_spin_b, &rec_spin_key);
	spin_lock(&rec_spin_a);
	spin_lock(&rec_spin_b);
	spin_unlock(&rec_spin_b);
	spin_unlock(&rec_spin_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

static struct lock_class_key rec_mutex_key;
static DEFINE_MUTEX(rec_mutex_a);
static DEFINE_MUTEX(rec_mutex_b);

KTEST(lockdep, recursive_mutex_same_class)
{
	lockdep_set_class(&rec_mutex_a, &rec_mutex_key);
	lockdep_set_class(&rec_mutex_b, &rec_mutex_key);
	mutex_lock(&rec_mutex_a);
	mutex_lock(&rec_mutex_b);
	mutex_unlock(&rec_mutex_b);
	mutex_unlock(&rec_mutex_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

static struct lock_class_key rec_rtm_key;
static DEFINE_RT_MUTEX(rec_rtm_a);
static DEFINE_RT_MUTEX(rec_rtm_b);

KTEST(lockdep, recursive_rt_mutex_same_class)
{
	lockdep_set_class(&rec_rtm_a, &rec_rtm_key);
	lockdep_set_class(&rec_rtm_b, &rec_rtm_key);
	KEXPECT_EQ(rt_mutex_lock(&rec_rtm_a), 0);
	KEXPECT_EQ(rt_mutex_lock(&rec_rtm_b), 0);
	rt_mutex_unlock(&rec_rtm_b);
	rt_mutex_unlock(&rec_rtm_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* Locks set up by one *_init() call site share its class. */
static spinlock_t rec_site[2];

KTEST(lockdep, recursive_init_site_class)
{
	for (int i = 0; i < 2; i++)
		spin_lock_init(&rec_site[i]);
	spin_lock(&rec_site[0]);
	spin_lock(&rec_site[1]);
	spin_unlock(&rec_site[1]);
	spin_unlock(&rec_site[0]);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* Two locks from two different init sites are two classes. */
static struct mutex rec_two_sites_a, rec_two_sites_b;

KTEST(lockdep, recursive_two_init_sites_silent)
{
	mutex_init(&rec_two_sites_a);
	mutex_init(&rec_two_sites_b);
	mutex_lock(&rec_two_sites_a);
	mutex_lock(&rec_two_sites_b);
	mutex_unlock(&rec_two_sites_b);
	mutex_unlock(&rec_two_sites_a);
	KEXPECT_LOCKDEP_NONE();
}

/* The documented nesting (subclass 1) is silent, for every lock type. */
static struct lock_class_key rec_nest_raw_key;
static DEFINE_RAW_SPINLOCK(rec_nest_raw_a);
static DEFINE_RAW_SPINLOCK(rec_nest_raw_b);

KTEST(lockdep, recursive_raw_nested_silent)
{
	lockdep_set_class(&rec_nest_raw_a, &rec_nest_raw_key);
	lockdep_set_class(&rec_nest_raw_b, &rec_nest_raw_key);
	raw_spin_lock(&rec_nest_raw_a);
	raw_spin_lock_nested(&rec_nest_raw_b, SINGLE_DEPTH_NESTING);
	raw_spin_unlock(&rec_nest_raw_b);
	raw_spin_unlock(&rec_nest_raw_a);
	KEXPECT_LOCKDEP_NONE();
}

static struct lock_class_key rec_nest_spin_key;
static DEFINE_SPINLOCK(rec_nest_spin_a);
static DEFINE_SPINLOCK(rec_nest_spin_b);

KTEST(lockdep, recursive_spinlock_nested_silent)
{
	lockdep_set_class(&rec_nest_spin_a, &rec_nest_spin_key);
	lockdep_set_class(&rec_nest_spin_b, &rec_nest_spin_key);
	spin_lock(&rec_nest_spin_a);
	spin_lock_nested(&rec_nest_spin_b, SINGLE_DEPTH_NESTING);
	spin_unlock(&rec_nest_spin_b);
	spin_unlock(&rec_nest_spin_a);
	KEXPECT_LOCKDEP_NONE();
}

static struct lock_class_key rec_nest_mutex_key;
static DEFINE_MUTEX(rec_nest_mutex_a);
static DEFINE_MUTEX(rec_nest_mutex_b);

KTEST(lockdep, recursive_mutex_nested_silent)
{
	lockdep_set_class(&rec_nest_mutex_a, &rec_nest_mutex_key);
	lockdep_set_class(&rec_nest_mutex_b, &rec_nest_mutex_key);
	mutex_lock(&rec_nest_mutex_a);
	mutex_lock_nested(&rec_nest_mutex_b, SINGLE_DEPTH_NESTING);
	mutex_unlock(&rec_nest_mutex_b);
	mutex_unlock(&rec_nest_mutex_a);
	KEXPECT_LOCKDEP_NONE();
}

static struct lock_class_key rec_nest_rtm_key;
static DEFINE_RT_MUTEX(rec_nest_rtm_a);
static DEFINE_RT_MUTEX(rec_nest_rtm_b);

KTEST(lockdep, recursive_rt_mutex_nested_silent)
{
	lockdep_set_class(&rec_nest_rtm_a, &rec_nest_rtm_key);
	lockdep_set_class(&rec_nest_rtm_b, &rec_nest_rtm_key);
	KEXPECT_EQ(rt_mutex_lock(&rec_nest_rtm_a), 0);
	KEXPECT_EQ(rt_mutex_lock_nested(&rec_nest_rtm_b, SINGLE_DEPTH_NESTING),
		   0);
	rt_mutex_unlock(&rec_nest_rtm_b);
	rt_mutex_unlock(&rec_nest_rtm_a);
	KEXPECT_LOCKDEP_NONE();
}

/* A third lock at the same subclass as the second is recursion again. */
static struct lock_class_key rec_sub_key;
static DEFINE_RAW_SPINLOCK(rec_sub_a);
static DEFINE_RAW_SPINLOCK(rec_sub_b);
static DEFINE_RAW_SPINLOCK(rec_sub_c);

KTEST(lockdep, recursive_same_subclass_twice)
{
	lockdep_set_class(&rec_sub_a, &rec_sub_key);
	lockdep_set_class(&rec_sub_b, &rec_sub_key);
	lockdep_set_class(&rec_sub_c, &rec_sub_key);
	raw_spin_lock(&rec_sub_a);
	raw_spin_lock_nested(&rec_sub_b, SINGLE_DEPTH_NESTING);
	raw_spin_lock_nested(&rec_sub_c, SINGLE_DEPTH_NESTING);
	raw_spin_unlock(&rec_sub_c);
	raw_spin_unlock(&rec_sub_b);
	raw_spin_unlock(&rec_sub_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* A trylock cannot deadlock: it is not checked. */
static struct lock_class_key rec_try_key;
static DEFINE_SPINLOCK(rec_try_a);
static DEFINE_SPINLOCK(rec_try_b);

KTEST(lockdep, recursive_trylock_silent)
{
	bool got;

	lockdep_set_class(&rec_try_a, &rec_try_key);
	lockdep_set_class(&rec_try_b, &rec_try_key);
	spin_lock(&rec_try_a);
	got = spin_trylock(&rec_try_b);
	if (got)
		spin_unlock(&rec_try_b);
	spin_unlock(&rec_try_a);
	KEXPECT_TRUE(got);
	KEXPECT_LOCKDEP_NONE();
}

/* The same chain of held classes is validated once: doing the same
 * recursion again is not a second report. */
static struct lock_class_key rec_once_key;
static DEFINE_MUTEX(rec_once_a);
static DEFINE_MUTEX(rec_once_b);

KTEST(lockdep, recursive_reported_once)
{
	lockdep_set_class(&rec_once_a, &rec_once_key);
	lockdep_set_class(&rec_once_b, &rec_once_key);
	for (int i = 0; i < 3; i++) {
		mutex_lock(&rec_once_a);
		mutex_lock(&rec_once_b);
		mutex_unlock(&rec_once_b);
		mutex_unlock(&rec_once_a);
	}
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* Held in the task, taken in an interrupt on the same CPU: two contexts,
 * so not recursion. (The class is then used in hardirq and held with
 * IRQs on, which is its own report: IRQ_STATE, the only one.) */
static struct lock_class_key rec_irq_key;
static DEFINE_RAW_SPINLOCK(rec_irq_task);
static DEFINE_RAW_SPINLOCK(rec_irq_irq);

static void rec_irq_fn(void *arg)
{
	raw_spin_lock(&rec_irq_irq);
	raw_spin_unlock(&rec_irq_irq);
}

KTEST(lockdep, recursive_task_vs_hardirq_not_recursive)
{
	lockdep_set_class(&rec_irq_task, &rec_irq_key);
	lockdep_set_class(&rec_irq_irq, &rec_irq_key);
	raw_spin_lock(&rec_irq_task);
	ktest_in_hardirq(rec_irq_fn, 0);
	raw_spin_unlock(&rec_irq_task);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_RECURSIVE), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* Inside one interrupt handler, the same class twice is recursion. */
static struct lock_class_key rec_in_irq_key;
static DEFINE_RAW_SPINLOCK(rec_in_irq_a);
static DEFINE_RAW_SPINLOCK(rec_in_irq_b);

static void rec_in_irq_fn(void *arg)
{
	raw_spin_lock(&rec_in_irq_a);
	raw_spin_lock(&rec_in_irq_b);
	raw_spin_unlock(&rec_in_irq_b);
	raw_spin_unlock(&rec_in_irq_a);
}

KTEST(lockdep, recursive_in_hardirq)
{
	lockdep_set_class(&rec_in_irq_a, &rec_in_irq_key);
	lockdep_set_class(&rec_in_irq_b, &rec_in_irq_key);
	ktest_in_hardirq(rec_in_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* ======================= LOCKDEP_CIRCULAR ======================= */

/* A -> B, then B -> A: the classic ABBA, in one task. */
static DEFINE_RAW_SPINLOCK(circ2_a);
static DEFINE_RAW_SPINLOCK(circ2_b);

KTEST(lockdep, circular_two_locks)
{
	struct order_job ab = {2, {R(circ2_a), R(circ2_b)}};
	struct order_job ba = {2, {R(circ2_b), R(circ2_a)}};

	take_in_order(&ab);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_in_order(&ba);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* A -> B -> C -> A, one edge at a time. */
static DEFINE_MUTEX(circ3_a);
static DEFINE_MUTEX(circ3_b);
static DEFINE_MUTEX(circ3_c);

KTEST(lockdep, circular_three_locks)
{
	struct order_job ab = {2, {M(circ3_a), M(circ3_b)}};
	struct order_job bc = {2, {M(circ3_b), M(circ3_c)}};
	struct order_job ca = {2, {M(circ3_c), M(circ3_a)}};

	take_in_order(&ab);
	take_in_order(&bc);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_in_order(&ca);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* A cycle of four spinlock_t. */
static DEFINE_SPINLOCK(circ4_a);
static DEFINE_SPINLOCK(circ4_b);
static DEFINE_SPINLOCK(circ4_c);
static DEFINE_SPINLOCK(circ4_d);

KTEST(lockdep, circular_four_locks)
{
	struct order_job j[4] = {
		{2, {S(circ4_a), S(circ4_b)}},
		{2, {S(circ4_b), S(circ4_c)}},
		{2, {S(circ4_c), S(circ4_d)}},
		{2, {S(circ4_d), S(circ4_a)}},
	};

	for (int i = 0; i < 3; i++)
		take_in_order(&j[i]);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_in_order(&j[3]);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* The two halves of ABBA in two tasks on two CPUs, one after the other:
 * the graph is global, so the second task's order closes the cycle. */
static DEFINE_MUTEX(circ_tasks2_a);
static DEFINE_MUTEX(circ_tasks2_b);

KTEST_CPUS(lockdep, circular_two_tasks_two_cpus, 2)
{
	struct order_job ab = {2, {M(circ_tasks2_a), M(circ_tasks2_b)}};
	struct order_job ba = {2, {M(circ_tasks2_b), M(circ_tasks2_a)}};

	ktest_run_on(0, order_fn, &ab, "ld-ab");
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_run_on(last_cpu(), order_fn, &ba, "ld-ba");
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* A three-lock cycle built by three tasks spread over the CPUs. */
static DEFINE_SPINLOCK(circ_tasks3_a);
static DEFINE_SPINLOCK(circ_tasks3_b);
static DEFINE_SPINLOCK(circ_tasks3_c);

KTEST_CPUS(lockdep, circular_three_tasks, 2)
{
	struct order_job j[3] = {
		{2, {S(circ_tasks3_a), S(circ_tasks3_b)}},
		{2, {S(circ_tasks3_b), S(circ_tasks3_c)}},
		{2, {S(circ_tasks3_c), S(circ_tasks3_a)}},
	};

	for (int i = 0; i < 2; i++)
		ktest_run_on(cpu_for(i + 1), order_fn, &j[i], "ld-circ3");
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_run_on(cpu_for(3), order_fn, &j[2], "ld-circ3");
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* A four-lock cycle of raw spinlocks, one edge on each of four CPUs. */
static DEFINE_RAW_SPINLOCK(circ_cpus4_0);
static DEFINE_RAW_SPINLOCK(circ_cpus4_1);
static DEFINE_RAW_SPINLOCK(circ_cpus4_2);
static DEFINE_RAW_SPINLOCK(circ_cpus4_3);

KTEST_CPUS(lockdep, circular_four_tasks_four_cpus, 4)
{
	struct order_job j[4] = {
		{2, {R(circ_cpus4_0), R(circ_cpus4_1)}},
		{2, {R(circ_cpus4_1), R(circ_cpus4_2)}},
		{2, {R(circ_cpus4_2), R(circ_cpus4_3)}},
		{2, {R(circ_cpus4_3), R(circ_cpus4_0)}},
	};

	for (int i = 0; i < 3; i++)
		ktest_run_on(i, order_fn, &j[i], "ld-circ4");
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_run_on(3, order_fn, &j[3], "ld-circ4");
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* The same order again and again, and a longer chain that agrees with
 * it, are no cycle. */
static DEFINE_MUTEX(circ_ok_a);
static DEFINE_MUTEX(circ_ok_b);
static DEFINE_MUTEX(circ_ok_c);

KTEST(lockdep, circular_consistent_order_silent)
{
	struct order_job ab = {2, {M(circ_ok_a), M(circ_ok_b)}};
	struct order_job abc = {3, {M(circ_ok_a), M(circ_ok_b), M(circ_ok_c)}};
	struct order_job ac = {2, {M(circ_ok_a), M(circ_ok_c)}};

	take_in_order(&ab);
	take_in_order(&ab);
	take_in_order(&abc);
	take_in_order(&ac);
	KEXPECT_LOCKDEP_NONE();
}

/* A -> B -> C taken by a task on every CPU, one after the other. */
static DEFINE_SPINLOCK(circ_ok_cpus_a);
static DEFINE_SPINLOCK(circ_ok_cpus_b);
static DEFINE_SPINLOCK(circ_ok_cpus_c);

KTEST_CPUS(lockdep, circular_consistent_order_all_cpus_silent, 2)
{
	struct order_job abc = {3, {S(circ_ok_cpus_a), S(circ_ok_cpus_b),
				    S(circ_ok_cpus_c)}};
	int cpu;

	for_each_online_cpu(cpu)
		ktest_run_on(cpu, order_fn, &abc, "ld-abc");
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock cannot wait, so "A then trylock B" adds no A -> B: taking
 * B then A later is no cycle. */
static DEFINE_SPINLOCK(circ_try_a);
static DEFINE_SPINLOCK(circ_try_b);

KTEST(lockdep, circular_trylock_adds_no_edge)
{
	struct order_job ba = {2, {S(circ_try_b), S(circ_try_a)}};
	bool got;

	spin_lock(&circ_try_a);
	got = spin_trylock(&circ_try_b);
	if (got)
		spin_unlock(&circ_try_b);
	spin_unlock(&circ_try_a);
	KEXPECT_TRUE(got);
	take_in_order(&ba);
	KEXPECT_LOCKDEP_NONE();
}

/* The bad order repeated (in this task and in another) is one report. */
static DEFINE_MUTEX(circ_once_a);
static DEFINE_MUTEX(circ_once_b);

KTEST(lockdep, circular_reported_once)
{
	struct order_job ab = {2, {M(circ_once_a), M(circ_once_b)}};
	struct order_job ba = {2, {M(circ_once_b), M(circ_once_a)}};

	take_in_order(&ab);
	take_in_order(&ba);
	take_in_order(&ba);
	ktest_run_on(last_cpu(), order_fn, &ba, "ld-ba");
	take_in_order(&ab);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* The edge that closed the cycle is refused: after B -> A is reported,
 * A -> X and X -> B (a path A -> X -> B, consistent with A -> B) close
 * nothing, which they would if B -> A had been added. */
static DEFINE_RAW_SPINLOCK(circ_refused_a);
static DEFINE_RAW_SPINLOCK(circ_refused_b);
static DEFINE_RAW_SPINLOCK(circ_refused_x);

KTEST(lockdep, circular_closing_edge_not_added)
{
	struct order_job ab = {2, {R(circ_refused_a), R(circ_refused_b)}};
	struct order_job ba = {2, {R(circ_refused_b), R(circ_refused_a)}};
	struct order_job ax = {2, {R(circ_refused_a), R(circ_refused_x)}};
	struct order_job xb = {2, {R(circ_refused_x), R(circ_refused_b)}};

	take_in_order(&ab);
	take_in_order(&ba);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_CIRCULAR), 1);
	take_in_order(&ax);
	take_in_order(&xb);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Mixed lock types: a mutex and an rt_mutex (both sleep, so neither
 * order is a wait-context problem) in opposite orders. */
static DEFINE_MUTEX(circ_mix_m);
static DEFINE_RT_MUTEX(circ_mix_r);

KTEST(lockdep, circular_mutex_rt_mutex)
{
	struct order_job mr = {2, {M(circ_mix_m), RT(circ_mix_r)}};
	struct order_job rm = {2, {RT(circ_mix_r), M(circ_mix_m)}};

	take_in_order(&mr);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_run_on(last_cpu(), order_fn, &rm, "ld-rm");
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Mixed: a local_lock and a spinlock_t (both "config" locks). */
struct circ_ll {
	local_lock_t lock;
	long n;
};
static DEFINE_PER_CPU(struct circ_ll, circ_ll_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(circ_ll_spin);

KTEST(lockdep, circular_local_lock_spinlock)
{
	local_lock(&circ_ll_pcp.lock);
	spin_lock(&circ_ll_spin);
	spin_unlock(&circ_ll_spin);
	local_unlock(&circ_ll_pcp.lock);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	spin_lock(&circ_ll_spin);
	local_lock(&circ_ll_pcp.lock);
	local_unlock(&circ_ll_pcp.lock);
	spin_unlock(&circ_ll_spin);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Raw spinlocks with interrupts off in both orders: still a cycle. */
static DEFINE_RAW_SPINLOCK(circ_irqsave_a);
static DEFINE_RAW_SPINLOCK(circ_irqsave_b);

KTEST(lockdep, circular_raw_irqsave)
{
	unsigned long f1, f2;

	raw_spin_lock_irqsave(&circ_irqsave_a, f1);
	raw_spin_lock_irqsave(&circ_irqsave_b, f2);
	raw_spin_unlock_irqrestore(&circ_irqsave_b, f2);
	raw_spin_unlock_irqrestore(&circ_irqsave_a, f1);
	raw_spin_lock_irqsave(&circ_irqsave_b, f1);
	raw_spin_lock_irqsave(&circ_irqsave_a, f2);
	raw_spin_unlock_irqrestore(&circ_irqsave_a, f2);
	raw_spin_unlock_irqrestore(&circ_irqsave_b, f1);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Task context and hardirq context add to one graph: A -> B in a task
 * (with IRQs off, so no IRQ usage problem), B -> A in an interrupt. */
static DEFINE_RAW_SPINLOCK(circ_irq_a);
static DEFINE_RAW_SPINLOCK(circ_irq_b);

static void circ_irq_fn(void *arg)
{
	raw_spin_lock(&circ_irq_b);
	raw_spin_lock(&circ_irq_a);
	raw_spin_unlock(&circ_irq_a);
	raw_spin_unlock(&circ_irq_b);
}

KTEST(lockdep, circular_task_and_hardirq)
{
	unsigned long f1, f2;

	raw_spin_lock_irqsave(&circ_irq_a, f1);
	raw_spin_lock_irqsave(&circ_irq_b, f2);
	raw_spin_unlock_irqrestore(&circ_irq_b, f2);
	raw_spin_unlock_irqrestore(&circ_irq_a, f1);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_in_hardirq(circ_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* ======================= LOCKDEP_IRQ_STATE ======================= */
/* (Raw spinlocks only: on RT=1 spinlock_t's _irqsave leaves IRQs on.) */

static void irq_lock_fn(void *arg)
{
	raw_spinlock_t *l = arg;

	raw_spin_lock(l);
	raw_spin_unlock(l);
}

/* Taken in hardirq, then in a task with IRQs on: an interrupt on a CPU
 * whose task holds it would deadlock. */
static DEFINE_RAW_SPINLOCK(irq_then_task);

KTEST(lockdep, irq_hardirq_then_task_irqs_on)
{
	ktest_in_hardirq(irq_lock_fn, &irq_then_task);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock(&irq_then_task);
	raw_spin_unlock(&irq_then_task);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

static DEFINE_RAW_SPINLOCK(irq_task_then);

KTEST(lockdep, irq_task_irqs_on_then_hardirq)
{
	raw_spin_lock(&irq_task_then);
	raw_spin_unlock(&irq_task_then);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_in_hardirq(irq_lock_fn, &irq_task_then);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The inconsistency is reported once, however often it is repeated. */
static DEFINE_RAW_SPINLOCK(irq_once);

KTEST(lockdep, irq_inconsistent_reported_once)
{
	ktest_in_hardirq(irq_lock_fn, &irq_once);
	for (int i = 0; i < 3; i++) {
		raw_spin_lock(&irq_once);
		raw_spin_unlock(&irq_once);
		ktest_in_hardirq(irq_lock_fn, &irq_once);
	}
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The task side with IRQs off (_irqsave, _irq) is the correct pattern. */
static DEFINE_RAW_SPINLOCK(irq_irqsave_ok);

KTEST(lockdep, irq_hardirq_and_task_irqsave_silent)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_irqsave_ok);
	raw_spin_lock_irqsave(&irq_irqsave_ok, flags);
	raw_spin_unlock_irqrestore(&irq_irqsave_ok, flags);
	ktest_in_hardirq(irq_lock_fn, &irq_irqsave_ok);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_RAW_SPINLOCK(irq_irq_ok);

KTEST(lockdep, irq_hardirq_and_task_lock_irq_silent)
{
	raw_spin_lock_irq(&irq_irq_ok);
	raw_spin_unlock_irq(&irq_irq_ok);
	ktest_in_hardirq(irq_lock_fn, &irq_irq_ok);
	raw_spin_lock_irq(&irq_irq_ok);
	raw_spin_unlock_irq(&irq_irq_ok);
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock in hardirq cannot deadlock there, so it does not make the
 * class IRQ-safe: a later plain use with IRQs on is fine. */
static DEFINE_RAW_SPINLOCK(irq_try);

static void irq_trylock_fn(void *arg)
{
	bool *got = arg;

	*got = raw_spin_trylock(&irq_try);
	if (*got)
		raw_spin_unlock(&irq_try);
}

KTEST(lockdep, irq_hardirq_trylock_silent)
{
	bool got = false;

	ktest_in_hardirq(irq_trylock_fn, &got);
	KEXPECT_TRUE(got);
	raw_spin_lock(&irq_try);
	raw_spin_unlock(&irq_try);
	KEXPECT_LOCKDEP_NONE();
}

/* IRQ-safe A (used in hardirq) taken before IRQ-unsafe B (taken with IRQs
 * on elsewhere): while a task holds B with IRQs on, an interrupt taking
 * A waits for a CPU that waits for B. */
static DEFINE_RAW_SPINLOCK(irq_order_safe);
static DEFINE_RAW_SPINLOCK(irq_order_unsafe);

KTEST(lockdep, irq_safe_before_unsafe)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_order_safe);
	raw_spin_lock(&irq_order_unsafe);
	raw_spin_unlock(&irq_order_unsafe);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock_irqsave(&irq_order_safe, flags);
	raw_spin_lock(&irq_order_unsafe);
	raw_spin_unlock(&irq_order_unsafe);
	raw_spin_unlock_irqrestore(&irq_order_safe, flags);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* The reverse nesting (unsafe B held, safe A taken inside with IRQs off)
 * is fine. */
static DEFINE_RAW_SPINLOCK(irq_rev_safe);
static DEFINE_RAW_SPINLOCK(irq_rev_unsafe);

KTEST(lockdep, irq_unsafe_before_safe_silent)
{
	unsigned long flags;

	ktest_in_hardirq(irq_lock_fn, &irq_rev_safe);
	raw_spin_lock(&irq_rev_unsafe);
	raw_spin_lock_irqsave(&irq_rev_safe, flags);
	raw_spin_unlock_irqrestore(&irq_rev_safe, flags);
	raw_spin_unlock(&irq_rev_unsafe);
	KEXPECT_LOCKDEP_NONE();
}

/* The edge first (both with IRQs off, nothing wrong yet), the usages
 * after: the second usage completes the bad order and is reported. */
static DEFINE_RAW_SPINLOCK(irq_late_safe);
static DEFINE_RAW_SPINLOCK(irq_late_unsafe);

KTEST(lockdep, irq_usage_after_edge)
{
	unsigned long f1, f2;

	raw_spin_lock_irqsave(&irq_late_safe, f1);
	raw_spin_lock_irqsave(&irq_late_unsafe, f2);
	raw_spin_unlock_irqrestore(&irq_late_unsafe, f2);
	raw_spin_unlock_irqrestore(&irq_late_safe, f1);
	ktest_in_hardirq(irq_lock_fn, &irq_late_safe);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock(&irq_late_unsafe);
	raw_spin_unlock(&irq_late_unsafe);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* Safe A -> B -> unsafe C: the bad order through a lock in between. */
static DEFINE_RAW_SPINLOCK(irq_path_a);
static DEFINE_RAW_SPINLOCK(irq_path_b);
static DEFINE_RAW_SPINLOCK(irq_path_c);

KTEST(lockdep, irq_safe_before_unsafe_transitive)
{
	unsigned long f1, f2;

	ktest_in_hardirq(irq_lock_fn, &irq_path_a);
	raw_spin_lock(&irq_path_c);
	raw_spin_unlock(&irq_path_c);
	raw_spin_lock_irqsave(&irq_path_b, f1);
	raw_spin_lock(&irq_path_c);
	raw_spin_unlock(&irq_path_c);
	raw_spin_unlock_irqrestore(&irq_path_b, f1);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	raw_spin_lock_irqsave(&irq_path_a, f1);
	raw_spin_lock_irqsave(&irq_path_b, f2);
	raw_spin_unlock_irqrestore(&irq_path_b, f2);
	raw_spin_unlock_irqrestore(&irq_path_a, f1);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* ======================= LOCKDEP_BAD_UNLOCK ======================= */

static DEFINE_RAW_SPINLOCK(bad_raw);

KTEST(lockdep, bad_unlock_raw_never_locked)
{
	int pc = preempt_count();

	raw_spin_unlock(&bad_raw);
	KEXPECT_EQ(preempt_count(), pc);
	KEXPECT_FALSE(raw_spin_is_locked(&bad_raw));
	/* Still a working lock. */
	raw_spin_lock(&bad_raw);
	KEXPECT_TRUE(raw_spin_is_locked(&bad_raw));
	raw_spin_unlock(&bad_raw);
	KEXPECT_FALSE(raw_spin_is_locked(&bad_raw));
	KEXPECT_EQ(preempt_count(), pc);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_SPINLOCK(bad_spin);

KTEST(lockdep, bad_unlock_spinlock_never_locked)
{
	int pc = preempt_count(), md = current->migration_disabled;

	spin_unlock(&bad_spin);
	KEXPECT_EQ(preempt_count(), pc);
	KEXPECT_EQ(current->migration_disabled, md);
	KEXPECT_FALSE(spin_is_locked(&bad_spin));
	spin_lock(&bad_spin);
	KEXPECT_TRUE(spin_is_locked(&bad_spin));
	spin_unlock(&bad_spin);
	KEXPECT_FALSE(spin_is_locked(&bad_spin));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_MUTEX(bad_mutex);

KTEST(lockdep, bad_unlock_mutex_never_locked)
{
	mutex_unlock(&bad_mutex);
	KEXPECT_FALSE(mutex_is_locked(&bad_mutex));
	mutex_lock(&bad_mutex);
	KEXPECT_TRUE(mutex_is_locked(&bad_mutex));
	mutex_unlock(&bad_mutex);
	KEXPECT_FALSE(mutex_is_locked(&bad_mutex));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_RT_MUTEX(bad_rtm);

KTEST(lockdep, bad_unlock_rt_mutex_never_locked)
{
	rt_mutex_unlock(&bad_rtm);
	KEXPECT_FALSE(rt_mutex_is_locked(&bad_rtm));
	KEXPECT_EQ(rt_mutex_lock(&bad_rtm), 0);
	KEXPECT_TRUE(rt_mutex_owner(&bad_rtm) == current);
	rt_mutex_unlock(&bad_rtm);
	KEXPECT_FALSE(rt_mutex_is_locked(&bad_rtm));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

/* Released twice: the second release is the bad one. */
static DEFINE_MUTEX(bad_twice);

KTEST(lockdep, bad_unlock_double_unlock)
{
	mutex_lock(&bad_twice);
	mutex_unlock(&bad_twice);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	mutex_unlock(&bad_twice);
	KEXPECT_FALSE(mutex_is_locked(&bad_twice));
	mutex_lock(&bad_twice);
	mutex_unlock(&bad_twice);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

/* A local_lock released without being held: refused, and what the lock
 * would have undone (migration on RT=1, preemption on RT=0) stays as it
 * was. */
struct bad_ll_pcp {
	local_lock_t lock;
};
static DEFINE_PER_CPU(struct bad_ll_pcp, bad_ll) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, bad_unlock_local_lock)
{
	int migration = current->migration_disabled;
	int count = preempt_count();

	local_unlock(&bad_ll.lock);
	KEXPECT_EQ(current->migration_disabled, migration);
	KEXPECT_EQ(preempt_count(), count);
	local_lock(&bad_ll.lock);
	local_unlock(&bad_ll.lock);
	KEXPECT_EQ(current->migration_disabled, migration);
	KEXPECT_EQ(preempt_count(), count);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

/* Held by a helper task: our unlock is refused, the helper keeps it (for
 * the locks built on an rt_mutex: stays its owner). */
static void check_unlock_of_held_by_other(struct any_lock l)
{
	struct lock_holder h = {.lock = l};
	struct rt_mutex *rtm = any_lock_rtmutex(&l);
	struct task *t;

	t = ktest_spawn_on(last_cpu(), lock_holder_fn, &h, "ld-holder");
	KASSERT_TRUE(t);
	KEXPECT_TRUE(ktest_poll_int(&h.held, 1, 2000));
	any_lock_release(&l);
	KEXPECT_TRUE(rtm ? rt_mutex_owner(rtm) == t : any_lock_is_locked(&l));
	store_int(&h.release, 1);
	kthread_join(t);
	KEXPECT_TRUE(h.held_at_release);
	KEXPECT_FALSE(any_lock_is_locked(&l));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_BAD_UNLOCK, 1);
}

static DEFINE_MUTEX(bad_other_mutex);

KTEST(lockdep, bad_unlock_mutex_held_by_other_task)
{
	check_unlock_of_held_by_other(M(bad_other_mutex));
}

static DEFINE_RAW_SPINLOCK(bad_other_raw);

KTEST_CPUS(lockdep, bad_unlock_raw_held_by_other_task, 2)
{
	check_unlock_of_held_by_other(R(bad_other_raw));
}

static DEFINE_SPINLOCK(bad_other_spin);

KTEST_CPUS(lockdep, bad_unlock_spinlock_held_by_other_task, 2)
{
	check_unlock_of_held_by_other(S(bad_other_spin));
}

/* Releasing in another order than taking is not a bad unlock. */
static DEFINE_MUTEX(bad_ooo_a);
static DEFINE_MUTEX(bad_ooo_b);
static DEFINE_MUTEX(bad_ooo_c);

KTEST(lockdep, bad_unlock_out_of_order_silent)
{
	mutex_lock(&bad_ooo_a);
	mutex_lock(&bad_ooo_b);
	mutex_lock(&bad_ooo_c);
	mutex_unlock(&bad_ooo_a);
	mutex_unlock(&bad_ooo_c);
	mutex_unlock(&bad_ooo_b);
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_a));
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_b));
	KEXPECT_FALSE(mutex_is_locked(&bad_ooo_c));
	/* The stack of held locks is still right: the same again. */
	mutex_lock(&bad_ooo_a);
	mutex_lock(&bad_ooo_b);
	mutex_unlock(&bad_ooo_a);
	mutex_unlock(&bad_ooo_b);
	KEXPECT_LOCKDEP_NONE();
}

/* lockdep_reset() forgets the graph and the counters, not what is held:
 * a lock taken before it is released quietly after it. */
static DEFINE_SPINLOCK(bad_reset_held);

KTEST(lockdep, bad_unlock_reset_keeps_held_locks)
{
	spin_lock(&bad_reset_held);
	lockdep_reset();
	spin_unlock(&bad_reset_held);
	KEXPECT_FALSE(spin_is_locked(&bad_reset_held));
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_HELD_REINIT ======================= */

static DEFINE_SPINLOCK(reinit_spin);

KTEST(lockdep, reinit_held_spinlock)
{
	spin_lock(&reinit_spin);
	spin_lock_init(&reinit_spin);
	KEXPECT_TRUE(spin_is_locked(&reinit_spin));
	KEXPECT_EQ(lockdep_reports(LOCKDEP_HELD_REINIT), 1);
	spin_unlock(&reinit_spin);
	KEXPECT_FALSE(spin_is_locked(&reinit_spin));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_REINIT, 1);
}

static DEFINE_RAW_SPINLOCK(reinit_raw);

KTEST(lockdep, reinit_held_raw_spinlock)
{
	raw_spin_lock(&reinit_raw);
	raw_spin_lock_init(&reinit_raw);
	KEXPECT_TRUE(raw_spin_is_locked(&reinit_raw));
	raw_spin_unlock(&reinit_raw);
	KEXPECT_FALSE(raw_spin_is_locked(&reinit_raw));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_REINIT, 1);
}

static DEFINE_MUTEX(reinit_mutex);

KTEST(lockdep, reinit_held_mutex)
{
	mutex_lock(&reinit_mutex);
	mutex_init(&reinit_mutex);
	KEXPECT_TRUE(rt_mutex_owner(&reinit_mutex.rtmutex) == current);
	mutex_unlock(&reinit_mutex);
	KEXPECT_FALSE(mutex_is_locked(&reinit_mutex));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_REINIT, 1);
}

static DEFINE_RT_MUTEX(reinit_rtm);

KTEST(lockdep, reinit_held_rt_mutex)
{
	KEXPECT_EQ(rt_mutex_lock(&reinit_rtm), 0);
	rt_mutex_init(&reinit_rtm);
	KEXPECT_TRUE(rt_mutex_owner(&reinit_rtm) == current);
	rt_mutex_unlock(&reinit_rtm);
	KEXPECT_FALSE(rt_mutex_is_locked(&reinit_rtm));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_REINIT, 1);
}

/* Initialising a free lock again is allowed. */
static DEFINE_SPINLOCK(reinit_free);

KTEST(lockdep, reinit_free_lock_silent)
{
	spin_lock(&reinit_free);
	spin_unlock(&reinit_free);
	spin_lock_init(&reinit_free);
	spin_lock(&reinit_free);
	spin_unlock(&reinit_free);
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_WAIT_CONTEXT ======================= */
/* A lock that sleeps on PREEMPT_RT (spinlock_t, local_lock_t, mutex,
 * rt_mutex) where sleeping is not allowed: reported the same on RT=0 and
 * RT=1, and never as SLEEP_IN_ATOMIC as well. The sleeping lock is always
 * free, so nothing sleeps. */

#define EXPECT_WAIT_CONTEXT()                                                 \
	do {                                                                  \
		KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 0);      \
		KEXPECT_LOCKDEP_ONLY(LOCKDEP_WAIT_CONTEXT, 1);                \
	} while (0)

struct wc_pcp {
	local_lock_t lock;
	long n;
};

static DEFINE_RAW_SPINLOCK(wc_raw1);
static DEFINE_SPINLOCK(wc_spin1);

KTEST(lockdep, wait_spinlock_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw1);
	spin_lock(&wc_spin1);
	spin_unlock(&wc_spin1);
	raw_spin_unlock(&wc_raw1);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw2);
static DEFINE_MUTEX(wc_mutex2);

KTEST(lockdep, wait_mutex_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw2);
	mutex_lock(&wc_mutex2);
	mutex_unlock(&wc_mutex2);
	raw_spin_unlock(&wc_raw2);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw3);
static DEFINE_RT_MUTEX(wc_rtm3);

KTEST(lockdep, wait_rt_mutex_under_raw_spinlock_irqsave)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wc_raw3, flags);
	rt_mutex_lock(&wc_rtm3);
	rt_mutex_unlock(&wc_rtm3);
	raw_spin_unlock_irqrestore(&wc_raw3, flags);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_RAW_SPINLOCK(wc_raw4);
static DEFINE_PER_CPU(struct wc_pcp, wc_pcp4) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_local_lock_under_raw_spinlock)
{
	raw_spin_lock(&wc_raw4);
	local_lock(&wc_pcp4.lock);
	local_unlock(&wc_pcp4.lock);
	raw_spin_unlock(&wc_raw4);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin5);

KTEST(lockdep, wait_spinlock_under_preempt_disable)
{
	preempt_disable();
	spin_lock(&wc_spin5);
	spin_unlock(&wc_spin5);
	preempt_enable();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex6);

KTEST(lockdep, wait_mutex_under_preempt_disable)
{
	preempt_disable();
	mutex_lock(&wc_mutex6);
	mutex_unlock(&wc_mutex6);
	preempt_enable();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_PER_CPU(struct wc_pcp, wc_pcp7) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_local_lock_under_get_cpu)
{
	(void)get_cpu();
	local_lock(&wc_pcp7.lock);
	local_unlock(&wc_pcp7.lock);
	put_cpu();
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin8);

KTEST(lockdep, wait_spinlock_irqs_disabled)
{
	local_irq_disable();
	spin_lock(&wc_spin8);
	spin_unlock(&wc_spin8);
	local_irq_enable();
	EXPECT_WAIT_CONTEXT();
}

/* spin_lock_irqsave() with IRQs already off: on RT=0 the lock did not
 * turn them off (the caller did), so it is still a sleeping lock taken
 * with IRQs off. */
static DEFINE_SPINLOCK(wc_spin8b);

KTEST(lockdep, wait_spinlock_irqsave_irqs_already_off)
{
	unsigned long outer, inner;

	local_irq_save(outer);
	spin_lock_irqsave(&wc_spin8b, inner);
	spin_unlock_irqrestore(&wc_spin8b, inner);
	local_irq_restore(outer);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex9);

KTEST(lockdep, wait_mutex_irqs_saved)
{
	unsigned long flags;

	local_irq_save(flags);
	mutex_lock(&wc_mutex9);
	mutex_unlock(&wc_mutex9);
	local_irq_restore(flags);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_MUTEX(wc_mutex10);

static void wc_mutex_irq_fn(void *arg)
{
	mutex_lock(&wc_mutex10);
	mutex_unlock(&wc_mutex10);
}

KTEST(lockdep, wait_mutex_in_hardirq)
{
	ktest_in_hardirq(wc_mutex_irq_fn, 0);
	KEXPECT_FALSE(mutex_is_locked(&wc_mutex10));
	EXPECT_WAIT_CONTEXT();
}

/* A mutex always sleeps: not under a spinlock_t or local_lock either
 * (they do not sleep on RT=0, but the mutex would still sleep with
 * preemption off there). */
static DEFINE_SPINLOCK(wc_spin11);
static DEFINE_MUTEX(wc_mutex11);

KTEST(lockdep, wait_mutex_under_spinlock)
{
	spin_lock(&wc_spin11);
	mutex_lock(&wc_mutex11);
	mutex_unlock(&wc_mutex11);
	spin_unlock(&wc_spin11);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_PER_CPU(struct wc_pcp, wc_pcp12) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_MUTEX(wc_mutex12);

KTEST(lockdep, wait_mutex_under_local_lock)
{
	local_lock(&wc_pcp12.lock);
	mutex_lock(&wc_mutex12);
	mutex_unlock(&wc_mutex12);
	local_unlock(&wc_pcp12.lock);
	EXPECT_WAIT_CONTEXT();
}

static DEFINE_SPINLOCK(wc_spin13);
static DEFINE_RT_MUTEX(wc_rtm13);

KTEST(lockdep, wait_rt_mutex_under_spinlock_irqsave)
{
	unsigned long flags;

	spin_lock_irqsave(&wc_spin13, flags);
	rt_mutex_lock(&wc_rtm13);
	rt_mutex_unlock(&wc_rtm13);
	spin_unlock_irqrestore(&wc_spin13, flags);
	EXPECT_WAIT_CONTEXT();
}

/* --- the correct nestings: silent --- */

static DEFINE_SPINLOCK(wc_ok_plain);

KTEST(lockdep, wait_spinlock_in_task_silent)
{
	spin_lock(&wc_ok_plain);
	spin_unlock(&wc_ok_plain);
	spin_lock_irq(&wc_ok_plain);
	spin_unlock_irq(&wc_ok_plain);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_SPINLOCK(wc_ok_outer);
static DEFINE_SPINLOCK(wc_ok_inner);

KTEST(lockdep, wait_spinlock_in_spinlock_silent)
{
	spin_lock(&wc_ok_outer);
	spin_lock(&wc_ok_inner);
	spin_unlock(&wc_ok_inner);
	spin_unlock(&wc_ok_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* On RT=0 spin_lock_irqsave turns IRQs off for real, but on RT it would
 * not: the inner spinlock_t is fine. */
static DEFINE_SPINLOCK(wc_ok_irq_outer);
static DEFINE_SPINLOCK(wc_ok_irq_inner);

KTEST(lockdep, wait_spinlock_in_spinlock_irqsave_silent)
{
	unsigned long flags;

	spin_lock_irqsave(&wc_ok_irq_outer, flags);
	spin_lock(&wc_ok_irq_inner);
	spin_unlock(&wc_ok_irq_inner);
	spin_unlock_irqrestore(&wc_ok_irq_outer, flags);
	spin_lock_irq(&wc_ok_irq_outer);
	spin_lock(&wc_ok_irq_inner);
	spin_unlock(&wc_ok_irq_inner);
	spin_unlock_irq(&wc_ok_irq_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* local_lock and spinlock_t nest either way (different inner locks, so
 * the two orders are no cycle). */
static DEFINE_PER_CPU(struct wc_pcp, wc_ok_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(wc_ok_ll_in);
static DEFINE_SPINLOCK(wc_ok_ll_out);

KTEST(lockdep, wait_local_lock_and_spinlock_silent)
{
	unsigned long flags;

	local_lock(&wc_ok_pcp.lock);
	spin_lock(&wc_ok_ll_in);
	spin_unlock(&wc_ok_ll_in);
	local_unlock(&wc_ok_pcp.lock);
	local_lock_irqsave(&wc_ok_pcp.lock, flags);
	spin_lock(&wc_ok_ll_in);
	spin_unlock(&wc_ok_ll_in);
	local_unlock_irqrestore(&wc_ok_pcp.lock, flags);
	spin_lock(&wc_ok_ll_out);
	local_lock(&wc_ok_pcp.lock);
	local_unlock(&wc_ok_pcp.lock);
	spin_unlock(&wc_ok_ll_out);
	KEXPECT_LOCKDEP_NONE();
}

/* Under a mutex anything goes. */
static DEFINE_MUTEX(wc_ok_mutex);
static DEFINE_SPINLOCK(wc_ok_m_spin);
static DEFINE_RAW_SPINLOCK(wc_ok_m_raw);
static DEFINE_PER_CPU(struct wc_pcp, wc_ok_m_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep, wait_locks_in_mutex_silent)
{
	mutex_lock(&wc_ok_mutex);
	spin_lock(&wc_ok_m_spin);
	spin_unlock(&wc_ok_m_spin);
	raw_spin_lock(&wc_ok_m_raw);
	raw_spin_unlock(&wc_ok_m_raw);
	local_lock(&wc_ok_m_pcp.lock);
	local_unlock(&wc_ok_m_pcp.lock);
	mutex_unlock(&wc_ok_mutex);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_MUTEX(wc_ok_mm_outer);
static DEFINE_MUTEX(wc_ok_mm_inner);
static DEFINE_RT_MUTEX(wc_ok_mm_rtm);

KTEST(lockdep, wait_mutex_in_mutex_silent)
{
	mutex_lock(&wc_ok_mm_outer);
	mutex_lock(&wc_ok_mm_inner);
	rt_mutex_lock(&wc_ok_mm_rtm);
	rt_mutex_unlock(&wc_ok_mm_rtm);
	mutex_unlock(&wc_ok_mm_inner);
	mutex_unlock(&wc_ok_mm_outer);
	KEXPECT_LOCKDEP_NONE();
}

/* A raw spinlock spins: fine anywhere. */
static DEFINE_SPINLOCK(wc_ok_r_spin);
static DEFINE_RAW_SPINLOCK(wc_ok_r_outer);
static DEFINE_RAW_SPINLOCK(wc_ok_r_inner);

KTEST(lockdep, wait_raw_spinlock_anywhere_silent)
{
	unsigned long flags;

	spin_lock(&wc_ok_r_spin);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	spin_unlock(&wc_ok_r_spin);
	raw_spin_lock(&wc_ok_r_outer);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_outer);
	preempt_disable();
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	preempt_enable();
	local_irq_save(flags);
	raw_spin_lock(&wc_ok_r_inner);
	raw_spin_unlock(&wc_ok_r_inner);
	local_irq_restore(flags);
	KEXPECT_LOCKDEP_NONE();
}

/* A trylock does not wait: not checked. */
static DEFINE_MUTEX(wc_ok_try_mutex);
static DEFINE_RAW_SPINLOCK(wc_ok_try_raw);

KTEST(lockdep, wait_trylock_under_raw_spinlock_silent)
{
	bool got;

	raw_spin_lock(&wc_ok_try_raw);
	got = mutex_trylock(&wc_ok_try_mutex);
	if (got)
		mutex_unlock(&wc_ok_try_mutex);
	raw_spin_unlock(&wc_ok_try_raw);
	KEXPECT_TRUE(got);
	KEXPECT_LOCKDEP_NONE();
}

/* Migration disabled is not atomic: a sleeping lock is fine there. */
static DEFINE_MUTEX(wc_ok_migr);

KTEST(lockdep, wait_mutex_migrate_disabled_silent)
{
	migrate_disable();
	mutex_lock(&wc_ok_migr);
	mutex_unlock(&wc_ok_migr);
	migrate_enable();
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_SLEEP_IN_ATOMIC ======================= */

KTEST(lockdep, sleep_might_sleep_preempt_disabled)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

KTEST(lockdep, sleep_might_sleep_irqs_disabled)
{
	unsigned long flags;

	local_irq_save(flags);
	might_sleep();
	local_irq_restore(flags);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static DEFINE_RAW_SPINLOCK(sleep_raw);

KTEST(lockdep, sleep_might_sleep_raw_spinlock)
{
	raw_spin_lock(&sleep_raw);
	might_sleep();
	raw_spin_unlock(&sleep_raw);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static void sleep_irq_fn(void *arg)
{
	might_sleep();
}

KTEST(lockdep, sleep_might_sleep_hardirq)
{
	ktest_in_hardirq(sleep_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* msleep() checks with might_sleep() and then schedules: one report for
 * the one bad sleep, not one from each. */
KTEST(lockdep, sleep_msleep_preempt_disabled_once)
{
	preempt_disable();
	msleep(1);
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* schedule() itself with preemption off: one report. */
KTEST(lockdep, sleep_schedule_preempt_disabled)
{
	preempt_disable();
	schedule();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* might_sleep() announces the sleep of the function it is called in: a
 * schedule() later in that same function is that sleep (one report); a
 * later one from elsewhere is not (sleep_report_does_not_hide_a_later_one). */
KTEST(lockdep, sleep_might_sleep_then_schedule_same_function_once)
{
	preempt_disable();
	might_sleep();
	schedule();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* wait_for_completion*() with preemption off sleeps inside the very
 * function might_sleep() reported from: one report, not two. */
KTEST(lockdep, sleep_wait_for_completion_preempt_disabled_once)
{
	struct completion never;

	init_completion(&never);
	preempt_disable();
	KEXPECT_FALSE(wait_for_completion_timeout(&never, 2 * NS_PER_MS));
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

static __attribute__((noinline)) void schedule_from_deeper(void)
{
	schedule();
}

/* A might_sleep() report that did not sleep (the completion was done)
 * does not hide a later schedule() in atomic context from a deeper
 * function. */
KTEST(lockdep, sleep_report_does_not_hide_a_later_one)
{
	struct completion done;

	init_completion(&done);
	complete(&done);
	preempt_disable();
	wait_for_completion(&done);
	preempt_enable();
	preempt_disable();
	schedule_from_deeper();
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_SLEEP_IN_ATOMIC, 2);
}

KTEST(lockdep, sleep_might_sleep_task_silent)
{
	might_sleep();
	msleep(1);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_MUTEX(sleep_mutex);
static DEFINE_RT_MUTEX(sleep_rtm);

KTEST(lockdep, sleep_might_sleep_holding_mutex_silent)
{
	mutex_lock(&sleep_mutex);
	might_sleep();
	rt_mutex_lock(&sleep_rtm);
	might_sleep();
	msleep(1);
	rt_mutex_unlock(&sleep_rtm);
	mutex_unlock(&sleep_mutex);
	KEXPECT_LOCKDEP_NONE();
}

KTEST(lockdep, sleep_might_sleep_migrate_disabled_silent)
{
	migrate_disable();
	might_sleep();
	migrate_enable();
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= lockdep_assert_held ======================= */

/* The validator knows which locks the task holds, whatever their type;
 * the assertion is silent while they are held. */
static DEFINE_RAW_SPINLOCK(assert_raw);
static DEFINE_SPINLOCK(assert_spin);
static DEFINE_MUTEX(assert_mutex);

KTEST(lockdep, assert_held_knows_what_is_held)
{
	KEXPECT_FALSE(lock_is_held(&assert_mutex.dep_map));
	mutex_lock(&assert_mutex);
	spin_lock(&assert_spin);
	raw_spin_lock(&assert_raw);
	KEXPECT_TRUE(lock_is_held(&assert_raw.dep_map));
	KEXPECT_TRUE(lock_is_held(&assert_spin.dep_map));
	KEXPECT_TRUE(lock_is_held(&assert_mutex.dep_map));
	lockdep_assert_held(&assert_raw);
	lockdep_assert_held(&assert_spin);
	lockdep_assert_held(&assert_mutex);
	raw_spin_unlock(&assert_raw);
	KEXPECT_FALSE(lock_is_held(&assert_raw.dep_map));
	spin_unlock(&assert_spin);
	mutex_unlock(&assert_mutex);
	KEXPECT_FALSE(lock_is_held(&assert_spin.dep_map));
	KEXPECT_FALSE(lock_is_held(&assert_mutex.dep_map));
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_HELD_AT_EXIT ======================= */

/* Nothing takes this mutex again: its owner is gone for good. */
static DEFINE_MUTEX(exit_abandoned);
static DEFINE_MUTEX(exit_released);

static int exit_holding_fn(void *arg)
{
	mutex_lock(arg);
	return 0;
}

static int exit_released_fn(void *arg)
{
	mutex_lock(arg);
	mutex_unlock(arg);
	return 0;
}

KTEST(lockdep, exit_holding_mutex)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_fn, &exit_abandoned,
			  "ld-exit"), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_AT_EXIT, 1);
}

/* A raw spinlock left held also leaves preemption off: the exit report
 * covers that, and the task's last schedule() does not report it again
 * as sleeping in atomic context. */
static DEFINE_RAW_SPINLOCK(exit_abandoned_raw);

static int exit_holding_raw_fn(void *arg)
{
	raw_spin_lock(arg);
	return 0;
}

KTEST(lockdep, exit_holding_raw_spinlock)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_raw_fn,
				&exit_abandoned_raw, "ld-exit-raw"), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_HELD_AT_EXIT, 1);
}

/* Exiting with a mutex held and a stray preempt_disable(): the mutex
 * explains no preemption, so the final schedule() is reported too. */
static DEFINE_MUTEX(exit_abandoned_leak);

static int exit_holding_and_leaking_fn(void *arg)
{
	mutex_lock(arg);
	preempt_disable();
	return 0;
}

KTEST(lockdep, exit_holding_mutex_preempt_leak)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_holding_and_leaking_fn,
				&exit_abandoned_leak, "ld-exit-leak"), 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_HELD_AT_EXIT), 1);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_SLEEP_IN_ATOMIC), 1);
	KEXPECT_EQ(lockdep_reports_total(), 2);
}

KTEST(lockdep, exit_after_unlock_silent)
{
	KEXPECT_EQ(ktest_run_on(last_cpu(), exit_released_fn, &exit_released,
			  "ld-exit"), 0);
	KEXPECT_FALSE(mutex_is_locked(&exit_released));
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_PREEMPTIBLE_CPU_ID ======================= */
/* Test tasks start bound to CPU 0: these widen the affinity to every
 * online CPU first, and bind back to CPU 0 afterwards. */

static void allow_all_cpus(void)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpu_online_mask), 0);
}

static void back_to_cpu0(void)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
}

KTEST_CPUS(lockdep, cpu_id_preemptible_migratable, 2)
{
	int cpu;

	allow_all_cpus();
	cpu = smp_processor_id();
	back_to_cpu0();
	KEXPECT_LT(cpu, (int)num_online_cpus());
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PREEMPTIBLE_CPU_ID, 1);
}

KTEST_CPUS(lockdep, cpu_id_preempt_disabled_silent, 2)
{
	int cpu;

	allow_all_cpus();
	preempt_disable();
	cpu = smp_processor_id();
	KEXPECT_EQ(cpu, raw_smp_processor_id());
	preempt_enable();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_migrate_disabled_silent, 2)
{
	int cpu;

	allow_all_cpus();
	migrate_disable();
	cpu = smp_processor_id();
	msleep(1);
	KEXPECT_EQ(cpu, raw_smp_processor_id());
	migrate_enable();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_irqs_disabled_silent, 2)
{
	unsigned long flags;

	allow_all_cpus();
	local_irq_save(flags);
	(void)smp_processor_id();
	local_irq_restore(flags);
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

static void cpu_id_irq_fn(void *arg)
{
	*(int *)arg = smp_processor_id();
}

KTEST_CPUS(lockdep, cpu_id_hardirq_silent, 2)
{
	int cpu = -1;

	allow_all_cpus();
	ktest_in_hardirq(cpu_id_irq_fn, &cpu);
	back_to_cpu0();
	KEXPECT_GE(cpu, 0);
	KEXPECT_LOCKDEP_NONE();
}

KTEST(lockdep, cpu_id_single_cpu_affinity_silent)
{
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(0)), 0);
	KEXPECT_EQ(smp_processor_id(), 0);
	KEXPECT_LOCKDEP_NONE();
}

KTEST_CPUS(lockdep, cpu_id_raw_unchecked_silent, 2)
{
	allow_all_cpus();
	(void)raw_smp_processor_id();
	back_to_cpu0();
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
