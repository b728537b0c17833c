/*
 * RT throttling, Linux's rt_bandwidth (see rt_bandwidth.h and
 * docs/scheduler.md): a CPU's RT tasks may use sched_rt_runtime_us of
 * every sched_rt_period_us; then the CPU's RT tasks are throttled (not
 * picked) until the period ends, so that its SCHED_NORMAL tasks, and the
 * idle task's housekeeping, always get the rest. Without it any FIFO task
 * that spins, a buggy test or a ring-3 program given an RT priority, owns
 * its CPU for ever.
 *
 * Accounting is by the tick, in whole ticks: each tick charges itself to
 * the RT task it interrupts (Linux measures the nanoseconds run; sampling
 * is cheaper and, for a task that runs whole ticks, the same). Each CPU
 * counts its own period in ticks, so nothing is shared: the tick path is
 * a few additions under the run queue lock it already holds. At the end
 * of a period the runtime is paid back as Linux's do_sched_rt_period_timer()
 * does: rt_time -= min(rt_time, runtime), so an overrun (an RT task that
 * ran on with preemption off after the budget ran out) is carried over.
 *
 * All RT tasks of a throttled CPU wait, the kernel's own included (the
 * test runner, the watchdog), as in Linux; what waits on a throttled CPU
 * may still be pulled to another CPU that is not (balance.c).
 */
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "cmdline.h"
#include "errno.h"
#include "printk.h"
#include "time/time.h"

#define TICK_US (1000000l / HZ)

long sysctl_sched_rt_period = 1000000;
long sysctl_sched_rt_runtime = 950000;

/* The same in ticks, the unit the tick counts in; runtime RUNTIME_INF:
 * no throttling. Linux's def_rt_bandwidth. */
static struct rt_bandwidth {
	long rt_period;
	long rt_runtime;
} def_rt_bandwidth;

/* Whether runtime_us of every period_us is a setting: a period of one
 * tick to 10 s, and a runtime of -1 (no limit, as in Linux) or from one
 * tick to the period. Linux also takes 0, "RT tasks never run"; here the
 * test runner is an RT task, so 0 would hang every test boot. */
static bool rt_bandwidth_valid(long runtime_us, long period_us)
{
	if (period_us < TICK_US || period_us > 10000000)
		return false;
	return runtime_us == RUNTIME_INF ||
	       (runtime_us >= TICK_US && runtime_us <= period_us);
}

/* Publish the settings in ticks. The tick reads them unlocked, each a
 * word: a tick between the two stores sees one old and one new, which
 * at worst ends one period early or late. */
static void rt_bandwidth_apply(void)
{
	WRITE_ONCE(def_rt_bandwidth.rt_period,
		   sysctl_sched_rt_period / TICK_US);
	WRITE_ONCE(def_rt_bandwidth.rt_runtime,
		   sysctl_sched_rt_runtime < 0
			   ? RUNTIME_INF
			   : sysctl_sched_rt_runtime / TICK_US);
}

/* The boot option sched_rt_runtime_us=N (the period stays 1 s). */
void sched_rt_init(void)
{
	long v = sysctl_sched_rt_runtime;

	if (cmdline_get_long("sched_rt_runtime_us", &v, -1,
			     sysctl_sched_rt_period) > 0) {
		if (!rt_bandwidth_valid(v, sysctl_sched_rt_period))
			cmdline_refuse("sched_rt_runtime_us", v,
				       "-1, or 1000 to 1000000",
				       sysctl_sched_rt_runtime);
		else
			sysctl_sched_rt_runtime = v;
	}
	rt_bandwidth_apply();
	if (sysctl_sched_rt_runtime < 0)
		printk("sched: RT throttling off (sched_rt_runtime_us=-1)\n");
	else
		printk("sched: RT tasks get %ld of every %ld us on each CPU\n",
		       sysctl_sched_rt_runtime, sysctl_sched_rt_period);
}

int sched_rt_set_bandwidth(long runtime_us, long period_us)
{
	unsigned long flags;
	int cpu;

	if (!rt_bandwidth_valid(runtime_us, period_us))
		return -EINVAL;
	sysctl_sched_rt_period = period_us;
	sysctl_sched_rt_runtime = runtime_us;
	rt_bandwidth_apply();
	/* Every CPU starts a period under the new settings: what was
	 * charged under the old ones (or a throttling they imposed) must
	 * not carry over into a period of another length, or outlive a
	 * switch to no limit. */
	for_each_online_cpu(cpu) {
		struct rq *rq = cpu_rq(cpu);

		local_irq_save(flags);
		arch_spin_lock(&rq->lock);
		sched_rt_rq_reset(rq);
		arch_spin_unlock(&rq->lock);
		local_irq_restore(flags);
	}
	return 0;
}

/* Start rq's period afresh: nothing charged, not throttled (waking its
 * RT tasks if they were). For new settings, and for a CPU going offline
 * (it comes back with a fresh period). rq locked. */
void sched_rt_rq_reset(struct rq *rq)
{
	rq->rt_time = 0;
	rq->rt_period_pos = 0;
	if (rq->rt_throttled) {
		WRITE_ONCE(rq->rt_throttled, false);
		if (rq->nr_rt)
			resched_curr(rq);
	}
}

/* From scheduler_tick(), rq (this CPU's) locked. */
void sched_rt_tick(struct rq *rq)
{
	long period = READ_ONCE(def_rt_bandwidth.rt_period);
	long runtime = READ_ONCE(def_rt_bandwidth.rt_runtime);
	struct task_struct *curr = rq->curr;
	bool rt = curr->prio < MAX_RT_PRIO && curr != rq->idle;

	if (rt)
		rq->rt_stat.rt_ticks++;
	else if (rq->rt_throttled && rq->nr_rt)
		rq->rt_stat.throttled_ticks++;
	/* No limit: nothing is charged (as Linux's update_curr_rt()), so a
	 * limit set later starts with no debt. */
	if (runtime == RUNTIME_INF)
		return;
	if (rt)
		rq->rt_time++;
	if (++rq->rt_period_pos >= period) {
		/* The period ends: pay the runtime back. */
		rq->rt_period_pos = 0;
		rq->rt_time -= rq->rt_time < runtime ? rq->rt_time : runtime;
		if (rq->rt_throttled && rq->rt_time < runtime) {
			WRITE_ONCE(rq->rt_throttled, false);
			if (rq->nr_rt)
				resched_curr(rq);
		}
	}
	if (!rq->rt_throttled && rq->rt_time >= runtime) {
		WRITE_ONCE(rq->rt_throttled, true);
		rq->rt_stat.nr_throttled++;
		if (rt)
			resched_curr(rq);
	}
}

void sched_rt_stat(int cpu, struct rt_bandwidth_stat *s)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&rq->lock);
	*s = rq->rt_stat;
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
}

bool sched_rt_throttled(int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->rt_throttled);
}
