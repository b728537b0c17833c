/*
 * ktest_in_softirq(): fn(arg) in softirq context on the calling CPU. A
 * tasklet scheduled inside a BH-disabled section, so that the section's
 * local_bh_enable() runs it here and now, in both worlds (RT=0 from the
 * preempt count, PREEMPT_RT in this task).
 */
#include "debug/ktest.h"
#include "interrupt.h"
#include "sched/sched.h"

struct softirq_call {
	struct tasklet_struct t;
	void (*fn)(void *);
	void *arg;
};

static void softirq_call_func(struct tasklet_struct *t)
{
	struct softirq_call *c = (struct softirq_call *)t;

	c->fn(c->arg);
}

/* Until the tasklet is neither queued nor running, its memory (our
 * stack) is the softirq's. Normally it already ran in local_bh_enable();
 * on PREEMPT_RT without the BH lock a preempted ksoftirqd may have taken
 * the pending bit first, and is let run. */
static void tasklet_wait_done(struct tasklet_struct *t)
{
	while (atomic_long_read(&t->state)) {
		if (preemptible())
			usleep(20);
		else
			cpu_relax();
	}
}

void ktest_in_softirq(void (*fn)(void *), void *arg)
{
	struct softirq_call c = {.fn = fn, .arg = arg};

	if (irqs_disabled() || in_hardirq() || in_softirq() ||
	    (IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible())) {
		ktest_fail_msg(__FILE__, __LINE__,
			       "ktest_in_softirq() needs interrupts and BHs on%s",
			       IS_ENABLED(CONFIG_PREEMPT_RT)
				       ? " and, on PREEMPT_RT, a preemptible caller"
				       : "");
		return;
	}
	tasklet_setup(&c.t, softirq_call_func);
	local_bh_disable(); /* this CPU until the enable */
	tasklet_schedule(&c.t);
	local_bh_enable();
	tasklet_wait_done(&c.t);
}
