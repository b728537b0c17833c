/*
 * The table of hotplug states (cpuhotplug.h): a subsystem's startup and
 * teardown run in the ladder's order going up and in the reverse order
 * going down, each where its section says (PREPARE/DEAD and ONLINE on
 * the controlling CPU in task context, STARTING/DYING on the CPU itself
 * with interrupts off), and with the online and active masks as the
 * section promises. A failing step sends the CPU back where it was.
 * Registration runs startup on the CPUs already up, removal teardown.
 */
#include "cpuhotplug.h"
#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "sched.h"
#include "smp.h"
#include "hotplug/hotplug_util.h"

KTEST_SUITE(hotplug_states, .exit = hotplug_all_online);

#define MAX_EVENTS 64

enum ev_tag { EV_PREPARE = 'P', EV_STARTING = 'S', EV_ONLINE = 'O' };

struct ev {
	char tag;
	bool up;
	int cpu;      /* the callback's argument */
	int ran_on;
	bool irqs_off, online, active;
};

static struct ev events[MAX_EVENTS];
static volatile int nr_events;
/* Fail the fail_nth-th callback (1: the next) tagged fail_tag in the
 * direction fail_up: a startup with -ENOMEM, a teardown with -EBUSY. */
static volatile int fail_tag, fail_up, fail_nth;

static int log_ev(char tag, bool up, unsigned int cpu)
{
	int i = __atomic_fetch_add(&nr_events, 1, __ATOMIC_ACQ_REL);

	if (i < MAX_EVENTS)
		events[i] = (struct ev){tag, up, (int)cpu,
					raw_smp_processor_id(), irqs_disabled(),
					cpu_online(cpu), cpu_active(cpu)};
	if (tag != fail_tag || up != fail_up ||
	    __atomic_sub_fetch(&fail_nth, 1, __ATOMIC_ACQ_REL) != 0)
		return 0;
	fail_tag = 0;
	return up ? -ENOMEM : -EBUSY;
}

static int prepare_up(unsigned int cpu) { return log_ev(EV_PREPARE, true, cpu); }
static int prepare_down(unsigned int cpu) { return log_ev(EV_PREPARE, false, cpu); }
static int starting_up(unsigned int cpu) { return log_ev(EV_STARTING, true, cpu); }
static int starting_down(unsigned int cpu) { return log_ev(EV_STARTING, false, cpu); }
static int online_up(unsigned int cpu) { return log_ev(EV_ONLINE, true, cpu); }
static int online_down(unsigned int cpu) { return log_ev(EV_ONLINE, false, cpu); }

static void reset_events(void)
{
	store_int(&fail_tag, 0);
	store_int(&nr_events, 0);
}

static void fail_next(char tag, bool up, int nth)
{
	fail_up = up;
	fail_nth = nth;
	store_int(&fail_tag, tag);
}

/* Event i: the callback tag/up for cpu c, run on CPU on (-1: c itself)
 * with interrupts off or not, c online/active as given. */
static void expect_ev(int i, char tag, bool up, int c, int on, bool irqs_off,
		      bool online, bool active)
{
	const struct ev *e = &events[i];

	KEXPECT_EQ(e->tag, tag);
	KEXPECT_EQ(e->up, up);
	KEXPECT_EQ(e->cpu, c);
	KEXPECT_EQ(e->ran_on, on < 0 ? c : on);
	KEXPECT_EQ(e->irqs_off, irqs_off);
	KEXPECT_EQ(e->online, online);
	KEXPECT_EQ(e->active, active);
}

struct test_states {
	int prepare, starting, online;
};

static void setup_states(struct test_states *s, bool calls)
{
	int (*setup)(enum cpuhp_state, const char *, int (*)(unsigned int),
		     int (*)(unsigned int)) =
		calls ? cpuhp_setup_state : cpuhp_setup_state_nocalls;

	s->prepare = setup(CPUHP_BP_PREPARE_DYN, "test:prepare", prepare_up,
			   prepare_down);
	s->starting = setup(CPUHP_AP_STARTING_DYN, "test:starting",
			    starting_up, starting_down);
	s->online = setup(CPUHP_AP_ONLINE_DYN, "test:online", online_up,
			  online_down);
	KEXPECT_GE(s->prepare, CPUHP_BP_PREPARE_DYN);
	KEXPECT_LE(s->prepare, CPUHP_BP_PREPARE_DYN_END);
	KEXPECT_GE(s->starting, CPUHP_AP_STARTING_DYN);
	KEXPECT_LE(s->starting, CPUHP_AP_STARTING_DYN_END);
	KEXPECT_GE(s->online, CPUHP_AP_ONLINE_DYN);
	KEXPECT_LE(s->online, CPUHP_AP_ONLINE_DYN_END);
}

static void remove_states(struct test_states *s, bool calls)
{
	void (*remove)(enum cpuhp_state) =
		calls ? cpuhp_remove_state : cpuhp_remove_state_nocalls;

	if (s->online > 0)
		remove(s->online);
	if (s->starting > 0)
		remove(s->starting);
	if (s->prepare > 0)
		remove(s->prepare);
}

/*
 * Registration runs each startup once per online CPU; a CPU going down
 * runs the teardowns newest state first, and coming up the startups
 * oldest first, each where its section says.
 */
KTEST_CPUS(hotplug_states, callbacks_in_order_where_promised, 2)
{
	struct test_states s;
	int c = last_cpu(), me = raw_smp_processor_id();
	int n = num_online_cpus(), i;

	reset_events();
	setup_states(&s, true);
	KEXPECT_EQ(nr_events, 3 * n);
	for (i = 0; i < nr_events && i < MAX_EVENTS; i++) {
		const struct ev *e = &events[i];
		bool on_cpu = e->tag == EV_STARTING;

		KEXPECT_TRUE(e->up);
		KEXPECT_EQ(e->ran_on, on_cpu ? e->cpu : me);
		KEXPECT_EQ(e->irqs_off, on_cpu);
	}

	reset_events();
	KASSERT_EQ(cpu_down(c), 0);
	KEXPECT_EQ(nr_events, 3);
	expect_ev(0, EV_ONLINE, false, c, me, false, true, false);
	expect_ev(1, EV_STARTING, false, c, -1, true, false, false);
	expect_ev(2, EV_PREPARE, false, c, me, false, false, false);

	reset_events();
	KASSERT_EQ(cpu_up(c), 0);
	KEXPECT_EQ(nr_events, 3);
	expect_ev(0, EV_PREPARE, true, c, me, false, false, false);
	expect_ev(1, EV_STARTING, true, c, -1, true, false, false);
	expect_ev(2, EV_ONLINE, true, c, me, false, true, false);

	reset_events();
	remove_states(&s, true);
	KEXPECT_EQ(nr_events, 3 * n);
	for (i = 0; i < nr_events && i < MAX_EVENTS; i++)
		KEXPECT_FALSE(events[i].up);
}

/* A failing step sends the CPU back to where the operation began,
 * through the opposite callbacks of the steps already taken; the next
 * attempt succeeds. */
KTEST_CPUS(hotplug_states, failed_step_rolls_back, 2)
{
	struct test_states s;
	int c = last_cpu(), me = raw_smp_processor_id();

	reset_events();
	setup_states(&s, false);
	KEXPECT_EQ(nr_events, 0);
	KASSERT_EQ(cpu_down(c), 0);

	/* The first step up fails: nothing to undo. */
	reset_events();
	fail_next(EV_PREPARE, true, 1);
	KEXPECT_EQ(cpu_up(c), -ENOMEM);
	KEXPECT_FALSE(cpu_online(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_OFFLINE);
	KEXPECT_EQ(nr_events, 1);
	expect_ev(0, EV_PREPARE, true, c, me, false, false, false);

	/* An ONLINE step fails: the CPU, started, goes down again. */
	reset_events();
	fail_next(EV_ONLINE, true, 1);
	KEXPECT_EQ(cpu_up(c), -ENOMEM);
	KEXPECT_FALSE(cpu_online(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_OFFLINE);
	KEXPECT_EQ(nr_events, 5);
	expect_ev(0, EV_PREPARE, true, c, me, false, false, false);
	expect_ev(1, EV_STARTING, true, c, -1, true, false, false);
	expect_ev(2, EV_ONLINE, true, c, me, false, true, false);
	expect_ev(3, EV_STARTING, false, c, -1, true, false, false);
	expect_ev(4, EV_PREPARE, false, c, me, false, false, false);

	reset_events();
	KEXPECT_EQ(cpu_up(c), 0);
	KEXPECT_EQ(nr_events, 3);

	/* A teardown refuses on the way down: the CPU stays, active. */
	reset_events();
	fail_next(EV_ONLINE, false, 1);
	KEXPECT_EQ(cpu_down(c), -EBUSY);
	KEXPECT_TRUE(cpu_online(c));
	KEXPECT_TRUE(cpu_active(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_ONLINE);
	KEXPECT_EQ(nr_events, 1);
	remove_states(&s, false);
}

/* What the table refuses: markers and states that are not states, a
 * state that is taken, a full dynamic range. */
KTEST(hotplug_states, registration_refusals)
{
	int got[CPUHP_AP_ONLINE_DYN_END - CPUHP_AP_ONLINE_DYN + 1];
	int n = 0, ret;

	KEXPECT_EQ(cpuhp_setup_state(CPUHP_OFFLINE, "x", 0, 0), -EINVAL);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_BRINGUP_CPU, "x", 0, 0), -EINVAL);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_AP_ONLINE, "x", 0, 0), -EINVAL);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_ONLINE, "x", 0, 0), -EINVAL);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_ONLINE + 1, "x", 0, 0), -EINVAL);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_TIMERS_PREPARE, "x", 0, 0), -EBUSY);
	KEXPECT_EQ(cpuhp_setup_state(CPUHP_AP_ACTIVE, "x", 0, 0), -EBUSY);
	while ((ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "fill",
						0, 0)) > 0 &&
	       n < (int)(sizeof(got) / sizeof(got[0])))
		got[n++] = ret;
	KEXPECT_EQ(ret, -ENOSPC);
	KEXPECT_GE(n, 1);
	while (n > 0)
		cpuhp_remove_state_nocalls(got[--n]);
}

/* A startup that fails on one CPU at registration is undone on those it
 * ran on, and the state is left free. */
KTEST_CPUS(hotplug_states, failed_registration_undone, 2)
{
	int first, again;

	reset_events();
	fail_next(EV_ONLINE, true, 2); /* the second CPU's startup */
	first = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "test:online",
				  online_up, online_down);
	KEXPECT_EQ(first, -ENOMEM);
	KEXPECT_EQ(nr_events, 3);
	KEXPECT_TRUE(events[0].up);
	KEXPECT_TRUE(events[1].up);
	KEXPECT_FALSE(events[2].up);
	KEXPECT_EQ(events[2].cpu, events[0].cpu);
	reset_events();
	again = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "test:online",
					  online_up, online_down);
	KEXPECT_GT(again, 0);
	if (again > 0)
		cpuhp_remove_state_nocalls(again);
	KEXPECT_EQ(nr_events, 0);
}
