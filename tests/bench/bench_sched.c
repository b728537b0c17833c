/*
 * Scheduler costs: preempt_disable/enable against migrate_disable/enable
 * (PREEMPT_RT replaces the first by the second around per-CPU data, so it
 * had better be as cheap), a context switch on one CPU, the latency of a
 * wakeup sent to another CPU, and how late a short sleep ends.
 */
#include "completion.h"
#include "kbench.h"
#include "sched.h"
#include "smp.h"
#include "time.h"

#define PAIR_ITERS 1000000
#define SWITCHES 20000
#define WAKEUPS 2000

/* Cycles x 100 per iteration of a disable/enable pair. */
static uint64_t pair_cost(bool migrate)
{
	uint64_t t0 = rdtsc();

	for (int i = 0; i < PAIR_ITERS; i++) {
		if (migrate) {
			migrate_disable();
			migrate_enable();
		} else {
			preempt_disable();
			preempt_enable();
		}
	}
	return (rdtsc() - t0) * 100 / PAIR_ITERS;
}

KBENCH(sched_disable_pairs)
{
	uint64_t p = pair_cost(false), m = pair_cost(true);

	kbench_report("sched_disable_pairs", "preempt_disable+enable", 1, p,
		      "cycles");
	kbench_report("sched_disable_pairs", "migrate_disable+enable", 1, m,
		      "cycles");
	kbench_report("sched_disable_pairs", "ratio migrate/preempt", 1,
		      m * 100 / (p ? p : 1), "x");
}

/* Two FIFO tasks of one priority on one CPU, yielding to each other:
 * every yield is a switch. */
static volatile bool yield_stop;

static int yielder(void *arg)
{
	while (!yield_stop)
		yield();
	return 0;
}

KBENCH(sched_context_switch)
{
	struct task_struct *a = kthread_create(yielder, 0, "yield-a");
	struct task_struct *b = kthread_create(yielder, 0, "yield-b");
	int cpu = num_online_cpus() - 1;
	unsigned long s0;
	uint64_t t0, t1;

	yield_stop = false;
	/* Above the yielders, so that our msleep() polling gets the CPU back
	 * even on a single-CPU machine. */
	sched_setscheduler(current, SCHED_FIFO, 20);
	kthread_bind(a, cpu);
	kthread_bind(b, cpu);
	sched_setscheduler(a, SCHED_FIFO, 10);
	sched_setscheduler(b, SCHED_FIFO, 10);
	s0 = per_cpu(nr_switches, cpu);
	t0 = rdtsc();
	wake_up_process(a);
	wake_up_process(b);
	while (per_cpu(nr_switches, cpu) - s0 < SWITCHES)
		msleep(1);
	t1 = rdtsc();
	yield_stop = true;
	kthread_join(a);
	kthread_join(b);
	sched_setscheduler(current, SCHED_NORMAL, 0);
	kbench_report("sched_context_switch", "yield between 2 FIFO tasks", 1,
		      cycles_to_ns((t1 - t0) * 100 /
				   (per_cpu(nr_switches, cpu) - s0)),
		      "ns/switch");
}

/* Ping-pong across CPUs: the waker stamps the time, the wakee measures. */
static struct {
	struct completion ping, pong;
	volatile uint64_t sent;
	uint64_t total_ns;
} pp;

static int ponger(void *arg)
{
	for (int i = 0; i < WAKEUPS; i++) {
		wait_for_completion(&pp.ping);
		pp.total_ns += cycles_to_ns(rdtsc() - pp.sent);
		complete(&pp.pong);
	}
	return 0;
}

KBENCH(sched_cross_cpu_wakeup)
{
	struct task_struct *t;

	if (num_online_cpus() < 2) {
		kbench_note("sched_cross_cpu_wakeup needs 2 CPUs");
		return;
	}
	init_completion(&pp.ping);
	init_completion(&pp.pong);
	pp.total_ns = 0;
	t = kthread_create(ponger, 0, "ponger");
	kthread_bind(t, 1);
	wake_up_process(t);
	for (int i = 0; i < WAKEUPS; i++) {
		pp.sent = rdtsc();
		complete(&pp.ping);
		wait_for_completion(&pp.pong);
	}
	kthread_join(t);
	kbench_report("sched_cross_cpu_wakeup", "CPU 0 wakes a task on CPU 1",
		      2, pp.total_ns * 100 / WAKEUPS, "ns");
}

/* How late a short sleep ends: each CPU's timer is armed for the first
 * pending timer, so this should be well under a tick (1 ms). */
KBENCH(sched_sleep_latency)
{
	const unsigned long us = 100;
	uint64_t late = 0;
	int n = 200;

	for (int i = 0; i < n; i++) {
		uint64_t t0 = ktime_get_ns();

		usleep(us);
		late += ktime_get_ns() - t0 - us * 1000;
	}
	kbench_report("sched_sleep_latency", "usleep(100) overshoot", 1,
		      late * 100 / n, "ns");
}
