/*
 * Lab 9's hidden checks (docs/labs/lab9.md): what the visible checks do
 * not look at. What each quiescent-state report answers; grace-period
 * numbers that wrap around the counter's end;
 * a CPU that goes offline while a grace period waits for it; and no
 * element freed under a reader while a writer frees old versions with
 * call_rcu() and CPUs go offline and back. Every wait is polled and
 * bounded. The starter generator leaves this file out of the students'
 * tree.
 */
#include "cpuhotplug.h"
#include "ktest_util.h"
#include "hotplug/hotplug_util.h"
#include "rcu_segcblist.h"
#include "rcupdate.h"
#include "rcutree.h"
#include "rcu/tree.h"

#define WAIT_MS 10000

KTEST_SUITE(lab9_hidden, .exit = hotplug_all_online);

static struct rcu_head heads[4];

/* Numbers compared as a wrapping counter's: 2 is after ULONG_MAX - 1. */
KTEST(lab9_hidden, advance_across_the_wrap)
{
	unsigned long top = ~0ul - 5; /* a multiple of 4 minus 2: any value */
	struct rcu_segcblist l;
	struct rcu_cblist done;

	rcu_segcblist_init(&l);
	rcu_segcblist_enqueue(&l, &heads[0]);
	rcu_segcblist_accelerate(&l, top + 4);
	rcu_segcblist_enqueue(&l, &heads[1]);
	rcu_segcblist_accelerate(&l, top + 8);      /* wraps past zero */
	rcu_segcblist_advance(&l, top + 3);
	KEXPECT_FALSE(rcu_segcblist_ready_cbs(&l));
	rcu_segcblist_advance(&l, top + 4);
	KEXPECT_EQ(l.seglen[RCU_DONE_TAIL], 1);
	rcu_segcblist_advance(&l, top + 7);         /* small: after the wrap */
	KEXPECT_EQ(l.seglen[RCU_DONE_TAIL], 1);
	rcu_segcblist_advance(&l, top + 8);
	KEXPECT_EQ(l.seglen[RCU_DONE_TAIL], 2);
	rcu_cblist_init(&done);
	rcu_segcblist_extract_done_cbs(&l, &done);
	KEXPECT_TRUE(rcu_cblist_dequeue(&done) == &heads[0]);
	KEXPECT_TRUE(rcu_cblist_dequeue(&done) == &heads[1]);
	KEXPECT_FALSE(rcu_segcblist_pend_cbs(&l));
}

static struct {
	int in_section, release;
} rd;

static int reader(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(rd.in_section, 1);
	while (!READ_ONCE(rd.release))
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

/*
 * rcu_report_qs_cpu()'s contract, call by call: true exactly when the
 * report leaves the grace period waiting for nothing, false for a CPU it
 * does not wait for (a second report) and while a preempted reader still
 * blocks it. The grace-period kthread polls for the end as well, so a
 * report that never says "done" still lets grace periods end, slower:
 * only a look at the calls themselves tells. The test sets up each
 * state in rcu_state under its lock, with every other CPU offline and
 * interrupts off, so that nothing else can see it, and puts the real one
 * back before it lets go.
 */
static struct list_head fake_blocked;

struct report_calls {
	bool first, again, blocked, not_waited, last;
	bool mask_after_first, mask_after_again, mask_after_blocked;
};

static void report_calls(struct report_calls *r)
{
	unsigned long flags = rcu_node_lock();
	cpumask_t saved_mask = rcu_state.qsmask;
	struct list_head *saved_gp_tasks = rcu_state.gp_tasks;
	cpumask_t *m = &rcu_state.qsmask;

	cpumask_clear(m);
	cpumask_set_cpu(0, m);
	cpumask_set_cpu(1, m);
	rcu_state.gp_tasks = 0;
	r->first = rcu_report_qs_cpu(1);            /* 0 still owes one */
	r->mask_after_first = !cpumask_test_cpu(1, m) && cpumask_test_cpu(0, m);
	r->again = rcu_report_qs_cpu(1);            /* not waited for */
	r->mask_after_again = !cpumask_test_cpu(1, m) && cpumask_test_cpu(0, m);
	rcu_state.gp_tasks = &fake_blocked;
	r->blocked = rcu_report_qs_cpu(0);          /* a reader blocks it */
	r->mask_after_blocked = cpumask_weight(m) == 0;
	rcu_state.gp_tasks = 0;
	r->not_waited = rcu_report_qs_cpu(0);       /* done, but not by this */
	cpumask_set_cpu(0, m);
	r->last = rcu_report_qs_cpu(0);             /* this one ends it */
	rcu_state.qsmask = saved_mask;
	rcu_state.gp_tasks = saved_gp_tasks;
	rcu_node_unlock(flags);
}

KTEST(lab9_hidden, report_says_done_exactly_when_it_is)
{
	struct report_calls r;

	for (int cpu = 1; cpu < nr_cpu_ids; cpu++)
		if (cpu_online(cpu))
			KASSERT_EQ(cpu_down(cpu), 0);
	report_calls(&r);
	KEXPECT_FALSE(r.first);
	KEXPECT_TRUE(r.mask_after_first);
	KEXPECT_FALSE(r.again);
	KEXPECT_TRUE(r.mask_after_again);
	KEXPECT_FALSE(r.blocked);
	KEXPECT_TRUE(r.mask_after_blocked);
	KEXPECT_FALSE(r.not_waited);
	KEXPECT_TRUE(r.last);
}

/* A grace period waits for a reader on the last CPU; the reader leaves
 * and that CPU goes offline at once: the grace period ends, whether the
 * CPU reported first or left first. */
KTEST_CPUS(lab9_hidden, cpu_offline_during_a_grace_period, 2)
{
	int cpu = last_cpu();
	struct task_struct *t;
	unsigned long s;

	rd = (typeof(rd)){0};
	t = ktest_spawn_on(cpu, reader, 0, "lab9h_reader");
	KASSERT_TRUE(ktest_poll_until(READ_ONCE(rd.in_section), WAIT_MS,
				      POLL_SLEEP));
	s = start_poll_synchronize_rcu();
	WRITE_ONCE(rd.release, 1);
	ktest_join(t);
	KEXPECT_EQ(cpu_down(cpu), 0);
	KEXPECT_TRUE(ktest_poll_ticks(poll_state_synchronize_rcu(s),
				      KTEST_GP_TICKS, POLL_SLEEP));
	KEXPECT_EQ(cpu_up(cpu), 0);
}

/* ---- no element freed under a reader ---- */

#define POOL 16

struct elem {
	struct rcu_head rcu;
	int live;                 /* 0 once "freed" */
};

static struct elem pool[POOL];
static struct elem *cur;
static struct {
	int stop;
	atomic_t readers_up, in_flight;
	atomic_long_t bad, reads;
} ts;

static void elem_free(struct rcu_head *head)
{
	struct elem *e = container_of(head, struct elem, rcu);

	WRITE_ONCE(e->live, 0);
	atomic_dec(&ts.in_flight);
}

static int torture_reader(void *arg)
{
	atomic_inc(&ts.readers_up);
	while (!READ_ONCE(ts.stop)) {
		struct elem *e;

		rcu_read_lock();
		e = rcu_dereference(cur);
		if (e) {
			udelay(20);
			if (!READ_ONCE(e->live))
				atomic_long_inc(&ts.bad);
			atomic_long_inc(&ts.reads);
		}
		rcu_read_unlock();
		cpu_relax();
	}
	return 0;
}

static int onoff(void *arg)
{
	int cpu = last_cpu();

	while (!READ_ONCE(ts.stop)) {
		if (cpu_down(cpu) == 0)
			cpu_up(cpu);
		msleep(3);
	}
	return 0;
}

/* 200 replacements, each old element "freed" by call_rcu() (its live
 * flag cleared), a free element reused only once its callback ran:
 * readers on every CPU must never hold one that is freed. */
KTEST_CPUS(lab9_hidden, no_element_freed_under_a_reader, 2)
{
	static struct task_struct *t[NR_CPUS + 1];
	int n = num_online_cpus(), next = 0, updates = 0;

	ts = (typeof(ts)){0};
	for (int i = 0; i < POOL; i++)
		pool[i].live = 0;
	RCU_INIT_POINTER(cur, 0);
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(torture_reader, 0, "lab9h_rd", -1,
				   SCHED_NORMAL, 0, true);
	t[n] = ktest_spawn_on(0, onoff, 0, "lab9h_onoff");
	ktest_poll_until(atomic_read(&ts.readers_up) == n, WAIT_MS, POLL_SLEEP);
	while (updates < 200) {
		struct elem *e = 0, *old;

		/* A free one: neither current nor waiting for its callback. */
		for (int i = 0; !e && i < POOL; i++, next = (next + 1) % POOL)
			if (!READ_ONCE(pool[next].live))
				e = &pool[next];
		if (!e) {
			if (!ktest_poll_ticks(atomic_read(&ts.in_flight) < POOL - 1,
					      KTEST_GP_TICKS, POLL_SLEEP))
				break;
			continue;
		}
		WRITE_ONCE(e->live, 1);
		old = rcu_dereference_protected(cur, 1);
		rcu_assign_pointer(cur, e);
		if (old) {
			atomic_inc(&ts.in_flight);
			call_rcu(&old->rcu, elem_free);
		}
		updates++;
		if (updates % 8 == 0)
			msleep(1);
	}
	WRITE_ONCE(ts.stop, 1);
	ktest_join_all(t, n + 1);
	KEXPECT_EQ(updates, 200);
	KEXPECT_GT(atomic_long_read(&ts.reads), 0);
	KEXPECT_EQ(atomic_long_read(&ts.bad), 0);
	KEXPECT_TRUE(ktest_poll_ticks(atomic_read(&ts.in_flight) == 0,
				      KTEST_GP_TICKS, POLL_SLEEP));
}
