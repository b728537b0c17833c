/*
 * RT throttling, as Linux's rt_bandwidth (docs/scheduler.md): in every
 * period of sched_rt_period_us, the RT tasks of a CPU may run for at most
 * sched_rt_runtime_us; once they have used it, none of them is picked on
 * that CPU until the period ends, and SCHED_NORMAL tasks and the idle task
 * have the rest. Defaults 1000000 and 950000 (5% left to normal work);
 * the boot option sched_rt_runtime_us=N changes the runtime, -1 turns
 * throttling off.
 */
#ifndef RT_BANDWIDTH_H
#define RT_BANDWIDTH_H

#include <stdbool.h>

#define RUNTIME_INF (-1l)

/* The settings, in microseconds as Linux's sysctls (runtime RUNTIME_INF:
 * no throttling); changed only by sched_rt_set_bandwidth(). */
extern long sysctl_sched_rt_period;
extern long sysctl_sched_rt_runtime;

/* What writing Linux's sched_rt_runtime_us and sched_rt_period_us
 * sysctls does: every online CPU starts a new period, not throttled and
 * with nothing charged, in which its RT tasks get runtime_us (-1: no
 * limit) of every period_us. -EINVAL, and nothing changed, unless the
 * period is one tick to 10 s and the runtime -1 or one tick to the
 * period. Task context. */
int sched_rt_set_bandwidth(long runtime_us, long period_us);

/* What a CPU's tick counted since boot: ticks charged to RT tasks, ticks
 * when RT tasks were queued there but throttled, and how many times the
 * CPU's RT tasks were throttled. Kernel-counted ticks, for the tests. */
struct rt_bandwidth_stat {
	unsigned long rt_ticks;
	unsigned long throttled_ticks;
	unsigned long nr_throttled;
};

void sched_rt_stat(int cpu, struct rt_bandwidth_stat *s);

/* Whether cpu's RT tasks are throttled now (a hint, read unlocked). */
bool sched_rt_throttled(int cpu);

#endif
