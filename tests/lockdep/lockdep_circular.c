/*
 * The lock validator's LOCKDEP_CIRCULAR scenarios: cycles of two to four
 * classes, in one task or in tasks on different CPUs taken one after the
 * other, over every lock kind, and the consistent orders that stay
 * silent (lockdep_suite.h has the rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

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

/* ======================= LOCKDEP_CIRCULAR ======================= */

/*
 * A cycle of n locks built one edge at a time, lock i then lock i + 1
 * (the last: then lock 0): silent until the last edge closes it. With
 * on_cpus, each edge is taken by a task of its own, on CPU first_cpu + i
 * (modulo the online CPUs), one after the other: the graph is global.
 */
static void check_cycle(const struct any_lock *locks, int n, bool on_cpus,
			int first_cpu)
{
	for (int i = 0; i < n; i++) {
		struct order_job edge = {2, {locks[i], locks[(i + 1) % n]}};

		if (i == n - 1)
			KEXPECT_EQ(lockdep_reports_total(), 0);
		if (on_cpus)
			ktest_run_on(cpu_for(first_cpu + i), order_fn, &edge,
				     "ld-circ");
		else
			take_in_order(&edge);
	}
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* A -> B, then B -> A: the classic ABBA, in one task. */
static DEFINE_RAW_SPINLOCK(circ2_a);
static DEFINE_RAW_SPINLOCK(circ2_b);

KTEST(lockdep, circular_two_locks)
{
	check_cycle((struct any_lock[]){R(circ2_a), R(circ2_b)}, 2, false, 0);
}

/* A -> B -> C -> A, one edge at a time. */
static DEFINE_MUTEX(circ3_a);
static DEFINE_MUTEX(circ3_b);
static DEFINE_MUTEX(circ3_c);

KTEST(lockdep, circular_three_locks)
{
	check_cycle((struct any_lock[]){M(circ3_a), M(circ3_b), M(circ3_c)}, 3,
		    false, 0);
}

/* A cycle of four spinlock_t. */
static DEFINE_SPINLOCK(circ4_a);
static DEFINE_SPINLOCK(circ4_b);
static DEFINE_SPINLOCK(circ4_c);
static DEFINE_SPINLOCK(circ4_d);

KTEST(lockdep, circular_four_locks)
{
	check_cycle((struct any_lock[]){S(circ4_a), S(circ4_b), S(circ4_c),
					S(circ4_d)},
		    4, false, 0);
}

/* The two halves of ABBA in two tasks on two CPUs, one after the other:
 * the graph is global, so the second task's order closes the cycle. */
static DEFINE_MUTEX(circ_tasks2_a);
static DEFINE_MUTEX(circ_tasks2_b);

KTEST_CPUS(lockdep, circular_two_tasks_two_cpus, 2)
{
	check_cycle((struct any_lock[]){M(circ_tasks2_a), M(circ_tasks2_b)}, 2,
		    true, 0);
}

/* A three-lock cycle built by three tasks spread over the CPUs. */
static DEFINE_SPINLOCK(circ_tasks3_a);
static DEFINE_SPINLOCK(circ_tasks3_b);
static DEFINE_SPINLOCK(circ_tasks3_c);

KTEST_CPUS(lockdep, circular_three_tasks, 2)
{
	check_cycle((struct any_lock[]){S(circ_tasks3_a), S(circ_tasks3_b),
					S(circ_tasks3_c)},
		    3, true, 1);
}

/* A four-lock cycle of raw spinlocks, one edge on each of four CPUs. */
static DEFINE_RAW_SPINLOCK(circ_cpus4_0);
static DEFINE_RAW_SPINLOCK(circ_cpus4_1);
static DEFINE_RAW_SPINLOCK(circ_cpus4_2);
static DEFINE_RAW_SPINLOCK(circ_cpus4_3);

KTEST_CPUS(lockdep, circular_four_tasks_four_cpus, 4)
{
	check_cycle((struct any_lock[]){R(circ_cpus4_0), R(circ_cpus4_1),
					R(circ_cpus4_2), R(circ_cpus4_3)},
		    4, true, 0);
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
	take_nested(L(circ_ll_pcp.lock), S(circ_ll_spin));
	KEXPECT_EQ(lockdep_reports_total(), 0);
	take_nested(S(circ_ll_spin), L(circ_ll_pcp.lock));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Raw spinlocks with interrupts off in both orders: still a cycle. */
static DEFINE_RAW_SPINLOCK(circ_irqsave_a);
static DEFINE_RAW_SPINLOCK(circ_irqsave_b);

KTEST(lockdep, circular_raw_irqsave)
{
	take_nested(R_IRQSAVE(circ_irqsave_a), R_IRQSAVE(circ_irqsave_b));
	take_nested(R_IRQSAVE(circ_irqsave_b), R_IRQSAVE(circ_irqsave_a));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

/* Task context and hardirq context add to one graph: A -> B in a task
 * (with IRQs off, so no IRQ usage problem), B -> A in an interrupt. */
static DEFINE_RAW_SPINLOCK(circ_irq_a);
static DEFINE_RAW_SPINLOCK(circ_irq_b);

static void circ_irq_fn(void *arg)
{
	take_nested(R(circ_irq_b), R(circ_irq_a));
}

KTEST(lockdep, circular_task_and_hardirq)
{
	take_nested(R_IRQSAVE(circ_irq_a), R_IRQSAVE(circ_irq_b));
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_in_hardirq(circ_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_CIRCULAR, 1);
}

#endif /* CONFIG_LOCKDEP */
