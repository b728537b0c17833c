/*
 * Timers run in the TIMER softirq (kernel/time/timer.c), hard ones in
 * the hard interrupt; del_timer() waits for a running function; a
 * function may re-arm its timer.
 */
#include <stdbool.h>

#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "sched.h"
#include "time.h"
#include "timer.h"
#include "cpumask.h"

struct ctx_timer {
	struct timer_list timer;
	int fired, cpu;
	bool serving, hardirq;
	int rearm;                  /* times to re-arm itself */
	volatile int hold;          /* spin in the function while set */
	int entered;
};

static void ctx_timer_fn(struct timer_list *t)
{
	struct ctx_timer *c = (struct ctx_timer *)t;

	c->cpu = raw_smp_processor_id();
	c->serving = in_serving_softirq();
	c->hardirq = in_hardirq();
	smp_store_release(&c->entered, 1);
	while (READ_ONCE(c->hold))
		cpu_relax();
	if (c->rearm > 0) {
		c->rearm--;
		add_timer(t, ktime_get_ns() + 100000);
	}
	smp_store_release(&c->fired, c->fired + 1);
}

KTEST(softirq, timer_runs_in_timer_softirq)
{
	static struct ctx_timer c;
	unsigned long before;
	int cpu;

	c = (struct ctx_timer){.rearm = 2};
	timer_setup(&c.timer, ctx_timer_fn);
	migrate_disable();
	cpu = raw_smp_processor_id();
	before = kstat_softirqs_cpu(TIMER_SOFTIRQ, cpu);
	add_timer(&c.timer, ktime_get_ns() + 100000);
	migrate_enable();
	/* Fired, re-armed itself twice from its own function. */
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&c.fired) == 3,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_TRUE(ktest_poll_until(READ_ONCE(c.timer.cpu) < 0,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(c.cpu, cpu);
	KEXPECT_TRUE(c.serving);
	KEXPECT_FALSE(c.hardirq);
	/* At least one run; one run may expire several. */
	KEXPECT_GE(kstat_softirqs_cpu(TIMER_SOFTIRQ, cpu) - before, 1);
	KEXPECT_FALSE(del_timer(&c.timer));
}

KTEST(softirq, hard_timer_runs_in_hardirq)
{
	static struct ctx_timer c;

	c = (struct ctx_timer){0};
	timer_setup_hard(&c.timer, ctx_timer_fn);
	add_timer(&c.timer, ktime_get_ns() + 100000);
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&c.fired) == 1,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_TRUE(c.hardirq);
	KEXPECT_FALSE(c.serving);
}

/* del_timer() of a timer whose function runs (held in it on CPU a)
 * returns only once the function has returned. Everything of the test
 * but the timer stays on CPU b: on RT=0 the held function keeps CPU a
 * from running anything else. */
static int arm_here(void *arg)
{
	struct ctx_timer *c = arg;

	add_timer(&c->timer, ktime_get_ns() + 100000);
	return raw_smp_processor_id();
}

static int del_and_look(void *arg)
{
	struct ctx_timer *c = arg;

	del_timer(&c->timer);
	/* The function must be done by now. */
	return smp_load_acquire(&c->fired);
}

KTEST_CPUS(softirq, del_timer_waits_for_running_function, 2)
{
	static struct ctx_timer c;
	cpumask_t saved = current->cpus_mask;
	struct task_struct *t;
	int a = 0, b = 1;

	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(b)), 0);
	c = (struct ctx_timer){.hold = 1};
	timer_setup(&c.timer, ctx_timer_fn);
	KEXPECT_EQ(ktest_run_on(a, arm_here, &c, "armtimer"), a);
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&c.entered),
				      KTEST_WAIT_MS, POLL_SLEEP));
	t = ktest_spawn_on(b, del_and_look, &c, "deltimer");
	/* It cannot finish while the function is held: a pause to give
	 * it the chance to get that wrong, not a measurement. */
	msleep(5);
	KEXPECT_EQ(smp_load_acquire(&c.fired), 0);
	WRITE_ONCE(c.hold, 0);
	KEXPECT_EQ(ktest_join(t), 1);
	restore_cpus_allowed(current, &saved);
}
