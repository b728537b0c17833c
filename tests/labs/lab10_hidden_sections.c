/*
 * Lab 10's hidden checks (docs/labs/lab10.md). Without the BH lock, a
 * section over one structure must keep out only the users of that
 * structure on that CPU: an urgent task's BH section over the other
 * structure runs in the middle of a collection on its CPU, and another
 * CPU's users run while a collection is open. One lock for both
 * structures, a global lock, or preemption off instead of a lock pass
 * the visible tests and fail here. And the event log keeps its order
 * and its bound through many rounds.
 */
#include "bottom_half.h"
#include "cpumask.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab10_users.h"
#include "net/netdevice.h"
#include "sched.h"

#define LOW_PRIO 10
#define HIGH_PRIO 50
/* How long the collection looks for the urgent task: a pace, not a
 * bound on a correct kernel (the wakeup preempts the section at once). */
#define SECTION_LOOK_MS 2000

enum { EV_URGENT = 7, EV_OTHER_CPU, EV_ROUND };

static void export_nothing(int flow, unsigned long packets,
			   unsigned long bytes, void *arg)
{
}

static void drop_event(const struct lab10_event *ev, void *arg)
{
}

static int urgent_events;

static void count_urgent(const struct lab10_event *ev, void *arg)
{
	urgent_events += ev->kind == EV_URGENT;
}

/* ---- an urgent task over the other structure ---- */

static struct {
	struct task_struct *urgent;
	volatile int ran;
	int exports, ran_inside;
} ur;

static int urgent_fn(void *arg)
{
	local_bh_disable();
	lab10_event_log(EV_URGENT, 0);
	local_bh_enable();
	store_int(&ur.ran, 1);
	return 0;
}

static void export_wake_urgent(int flow, unsigned long packets,
			       unsigned long bytes, void *arg)
{
	if (ur.exports++ != 0)
		return;
	wake_up_process(ur.urgent);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		ktest_poll_until(load_int(&ur.ran), SECTION_LOOK_MS, POLL_SPIN);
	ur.ran_inside = load_int(&ur.ran);
}

/* The test task collects at SCHED_FIFO 10; a SCHED_FIFO 50 task of the
 * same CPU logs an event, woken from inside the collection. It runs
 * there on PREEMPT_RT without the BH lock only: with it, its
 * local_bh_disable() waits for the collection (the BH lock's cost);
 * without PREEMPT_RT a BH section has preemption off. */
KTEST(lab10_hidden, other_structure_does_not_wait)
{
	int cpu = last_cpu();
	bool inside = IS_ENABLED(CONFIG_PREEMPT_RT) && !softirq_needs_bh_lock();

	ur = (typeof(ur)){0};
	urgent_events = 0;
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, LOW_PRIO), 0);
	ur.urgent = ktest_spawn(urgent_fn, 0, "lab10-urgent", cpu, SCHED_FIFO,
				HIGH_PRIO, false);
	lab10_flows_collect(export_wake_urgent, 0);
	KEXPECT_TRUE(ktest_poll_int(&ur.ran, 1, KTEST_WAIT_MS));
	become_normal();
	ktest_join(ur.urgent);
	lab10_events_drain(count_urgent, 0);
	KEXPECT_EQ(urgent_events, 1);
	set_cpus_allowed(current, cpumask_of(0));
	ktest_log("the urgent task ran %s the collection",
		  ur.ran_inside ? "inside" : "after");
	KEXPECT_EQ(ur.ran_inside, inside);
}

/* ---- another CPU's users ---- */

static struct {
	struct task_struct *other;
	struct sk_buff skb;
	volatile int done;
	int exports, done_inside;
} oc;

static int other_cpu_fn(void *arg)
{
	oc.skb.data = 3 + LAB10_FLOWS * 100;
	local_bh_disable(); /* as NET_RX would run it */
	lab10_flow_receive(&oc.skb);
	lab10_event_log(EV_OTHER_CPU, 0);
	local_bh_enable();
	lab10_flows_collect(export_nothing, 0);
	lab10_events_drain(drop_event, 0);
	store_int(&oc.done, 1);
	return 0;
}

static void export_wait_other(int flow, unsigned long packets,
			      unsigned long bytes, void *arg)
{
	if (oc.exports++ != 0)
		return;
	wake_up_process(oc.other);
	oc.done_inside = ktest_poll_until(load_int(&oc.done), KTEST_WAIT_MS,
					  POLL_SPIN);
}

KTEST_CPUS(lab10_hidden, other_cpu_does_not_wait, 2)
{
	oc = (typeof(oc)){0};
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(last_cpu())), 0);
	oc.other = ktest_spawn(other_cpu_fn, 0, "lab10-other", 0, SCHED_NORMAL,
			       0, false);
	lab10_flows_collect(export_wait_other, 0);
	KEXPECT_TRUE(ktest_poll_int(&oc.done, 1, KTEST_WAIT_MS));
	ktest_join(oc.other);
	set_cpus_allowed(current, cpumask_of(0));
	KEXPECT_TRUE(oc.done_inside);
}

/* ---- the log's order and bound ---- */

#define ROUNDS 5
#define OVER 10

static struct {
	long next;     /* the data the next drained event must carry */
	int out_of_order;
} ord;

static void expect_in_order(const struct lab10_event *ev, void *arg)
{
	if (ev->kind != EV_ROUND || ev->data != ord.next)
		ord.out_of_order++;
	ord.next = ev->data + 1;
}

/* Rounds of a full log and more: the log takes LAB10_EVENTS, refuses the
 * rest, and a drain hands them on oldest first; round after round, as
 * the positions move on. */
KTEST(lab10_hidden, log_keeps_order_and_bound)
{
	long data = 0;

	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(last_cpu())), 0);
	ord = (typeof(ord)){0};
	for (int round = 0; round < ROUNDS; round++) {
		int taken = 0, refused = 0;

		local_bh_disable();
		for (int i = 0; i < LAB10_EVENTS + OVER; i++) {
			if (lab10_event_log(EV_ROUND, data + taken))
				taken++;
			else
				refused++;
		}
		local_bh_enable();
		KEXPECT_EQ(taken, LAB10_EVENTS);
		KEXPECT_EQ(refused, OVER);
		ord.next = data;
		KEXPECT_EQ(lab10_events_drain(expect_in_order, 0), LAB10_EVENTS);
		data += taken;
		/* Half a log more, so that the next round's full log wraps. */
		local_bh_disable();
		for (int i = 0; i < LAB10_EVENTS / 2; i++)
			lab10_event_log(EV_ROUND, data + i);
		local_bh_enable();
		ord.next = data;
		KEXPECT_EQ(lab10_events_drain(expect_in_order, 0),
			   LAB10_EVENTS / 2);
		data += LAB10_EVENTS / 2;
	}
	set_cpus_allowed(current, cpumask_of(0));
	KEXPECT_EQ(ord.out_of_order, 0);
}
