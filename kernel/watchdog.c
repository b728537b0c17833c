/*
 * Soft-lockup detection. Each CPU runs a watchdog task at the highest RT
 * priority, bound to it, that stamps the time and sleeps. Every tick
 * checks this CPU's stamp: if the watchdog task has not run for the
 * threshold, the CPU has not scheduled for that long, so it runs code that
 * cannot be preempted (preemption off, or a spinning FIFO 99 task). With
 * interrupts off there is no tick either: that is a hard lockup, not
 * detected here. The report names the CPU and the task it runs, with the
 * stack from the tick, whose walk goes on into the interrupted code. It
 * is made once per threshold while the CPU stays stuck.
 *
 * The watchdog tasks are per-CPU threads, set up and parked through a
 * CPU hotplug state, as Linux's: a CPU that goes offline parks its
 * watchdog first, and one that comes back unparks it.
 *
 * Under QEMU a vCPU may not run at all for a while (the host runs
 * something else); its clock goes on, and the first tick after the gap
 * would see a stale stamp. A stuck CPU still ticks every millisecond, so
 * a gap of many ticks means the vCPU was away: the count starts again.
 */
#include "cpuhotplug.h"
#include "errno.h"
#include "percpu.h"
#include "panic.h"
#include "printk.h"
#include "sched/sched.h"
#include "time/time.h"
#include "asm/barrier.h"
#include "watchdog.h"

/* Set by softlockup_start()/_stop(), read by every CPU's tick and
 * watchdog thread: released and acquired, or READ_ONCE() where only the
 * value matters. */
static unsigned int thresh_ms;             /* 0: off */
static bool stopping;
static struct task_struct *watchdog_task[NR_CPUS];
static int watchdog_state;                 /* its hotplug state, when on */
static DEFINE_PER_CPU_STAT(uint64_t, watchdog_touch_ts);
static DEFINE_PER_CPU_STAT(unsigned long, soft_lockups);
static DEFINE_PER_CPU_STAT(uint64_t, watchdog_last_tick);

#define HOST_GAP_NS (100 * 1000000ull)   /* 100 ticks missed: vCPU away */

static int watchdog_fn(void *arg)
{
	while (!smp_load_acquire(&stopping)) {
		if (kthread_should_park())
			kthread_parkme();
		this_cpu_write(watchdog_touch_ts, ktime_get_ns());
		/* Five stamps per threshold: a late one is not a lockup. */
		msleep(READ_ONCE(thresh_ms) / 5);
	}
	return 0;
}

void softlockup_tick(uint64_t now)
{
	uint64_t last = this_cpu_read(watchdog_last_tick), touched;
	unsigned int thresh = smp_load_acquire(&thresh_ms);

	this_cpu_write(watchdog_last_tick, now);
	if (!thresh)
		return;
	touched = this_cpu_read(watchdog_touch_ts);
	if (touched && now - last > HOST_GAP_NS) {
		this_cpu_write(watchdog_touch_ts, now);
		return;
	}
	if (!touched || now - touched < (uint64_t)thresh * 1000000ull)
		return;
	this_cpu_inc(soft_lockups);
	/* Once per threshold, not on every tick of the same lockup. */
	this_cpu_write(watchdog_touch_ts, now);
	printk("watchdog: BUG: soft lockup - CPU#%d stuck for %u.%03us! [%s:%d]\n",
	       raw_smp_processor_id(), thresh / 1000, thresh % 1000,
	       current->comm, current->pid);
	dump_stack();
}

/* Hotplug startup: cpu's watchdog starts, or comes back from parking.
 * Until it stamps, the tick does not judge (a stamp of 0). */
static int watchdog_cpu_online(unsigned int cpu)
{
	struct task_struct *t = watchdog_task[cpu];

	per_cpu(watchdog_touch_ts, cpu) = 0;
	if (t) {
		kthread_unpark(t);
		return 0;
	}
	t = kthread_create_on_cpu(watchdog_fn, 0, cpu, "watchdog");
	if (!t)
		return -ENOMEM;
	sched_setscheduler(t, SCHED_FIFO, 99);
	watchdog_task[cpu] = t;
	wake_up_process(t);
	return 0;
}

/* Hotplug teardown: cpu is leaving; its watchdog parks there. */
static int watchdog_cpu_offline(unsigned int cpu)
{
	kthread_park(watchdog_task[cpu]);
	return 0;
}

int softlockup_start(unsigned int thresh)
{
	WRITE_ONCE(stopping, false);
	smp_store_release(&thresh_ms, thresh);
	watchdog_state = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN,
					   "watchdog:online",
					   watchdog_cpu_online,
					   watchdog_cpu_offline);
	if (watchdog_state < 0) {
		smp_store_release(&thresh_ms, 0);
		return -1;
	}
	printk("watchdog: soft-lockup detection on, threshold %u ms\n", thresh);
	return 0;
}

/* The tasks of offline CPUs are parked: unparked, they run elsewhere, see
 * stopping and end. */
void softlockup_stop(void)
{
	int cpu;

	smp_store_release(&stopping, true);
	smp_store_release(&thresh_ms, 0);
	cpuhp_remove_state_nocalls(watchdog_state);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		struct task_struct *t = watchdog_task[cpu];

		if (!t)
			continue;
		if (READ_ONCE(t->parked))
			kthread_unpark(t);
		kthread_join(t);
		watchdog_task[cpu] = 0;
	}
	cpus_read_unlock();
}

struct task_struct *softlockup_task(int cpu)
{
	return watchdog_task[cpu];
}

unsigned long softlockup_reports(int cpu)
{
	return per_cpu(soft_lockups, cpu);
}
