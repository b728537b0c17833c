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
 * CPU hotplug state, as Linux's. Going down, that state's teardown
 * (lockup_detector_offline_cpu, Linux's name) first stops judging the
 * CPU, then parks its thread; after it the CPU may stay online a long
 * time, waiting in sched_cpu_wait_empty() for its pinned tasks, ticking
 * with a stamp that nobody renews, and a detector still judging it
 * would report an idle CPU. Coming up, lockup_detector_online_cpu()
 * forgets the old stamp before judging starts again.
 *
 * What counts is the CPU's own time, not the clock's. Under QEMU a vCPU
 * may not run at all for a while (the host runs something else); the
 * TSC goes on meanwhile, the CPU's ticks do not (a late tick is one
 * tick, time/timekeeping.c). So the detector measures a lockup in the
 * CPU's ticks: a CPU is stuck once it has itself taken the threshold's
 * worth of ticks since its watchdog last ran. When the clock says the threshold
 * has passed but the CPU took fewer than half of those ticks, it mostly
 * did not run: the host did not schedule the vCPU (or the CPU kept its
 * interrupts off, which this detector cannot see either way). That is
 * no soft lockup, and the console says so, once per threshold, without
 * a stack, as Linux ignores the time a hypervisor stole.
 */
#include "cpuhotplug.h"
#include "errno.h"
#include "percpu.h"
#include "panic.h"
#include "printk.h"
#include "rwonce.h"
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

/* One CPU's detector. enabled is written by the CPU's hotplug steps on
 * the controlling CPU and read by the CPU's own tick; the stamps by its
 * watchdog task and its tick, on the CPU, and by the online step while
 * judging is off. */
struct watchdog_cpu {
	bool enabled;                /* its tick judges it */
	uint64_t touch_ts;           /* the watchdog task's last run; 0: none yet */
	unsigned long touch_ticks;   /* the CPU's ticks then */
	uint64_t noted_ts;           /* the last host stall noted since */
};
static DEFINE_PER_CPU_STAT(struct watchdog_cpu, watchdog_cpu);
static DEFINE_PER_CPU_STAT(unsigned long, soft_lockups);
static DEFINE_PER_CPU_STAT(unsigned long, host_stalls);

static unsigned long thresh_ticks(void)
{
	return (unsigned long)READ_ONCE(thresh_ms) * HZ / 1000;
}

/* Where the CPU's own time starts again: now, at its tick count now.
 * Interrupts off: the tick must see both stamps of one touch. */
static void watchdog_touch(struct watchdog_cpu *w, uint64_t now)
{
	WRITE_ONCE(w->touch_ticks, this_cpu_read(cpu_ticks));
	WRITE_ONCE(w->touch_ts, now);
	w->noted_ts = now;
}

static int watchdog_fn(void *arg)
{
	while (!smp_load_acquire(&stopping)) {
		unsigned long flags;

		if (kthread_should_park())
			kthread_parkme();
		local_irq_save(flags);
		watchdog_touch(raw_cpu_ptr(&watchdog_cpu), ktime_get_ns());
		local_irq_restore(flags);
		/* Five stamps per threshold: a late one is not a lockup. The
		 * sleep ends early to park or to stop (msleep() would hold
		 * cpu_down() and softlockup_stop() for the rest of it, 2 s of
		 * a 10 s threshold); the state is set before the test, so a
		 * wake-up between the two is not lost. */
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!kthread_should_park() && !smp_load_acquire(&stopping))
			schedule_timeout((uint64_t)READ_ONCE(thresh_ms) / 5 *
					 1000000);
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static void report_soft_lockup(unsigned long ticks)
{
	unsigned long ms = ticks * 1000 / HZ;

	this_cpu_inc(soft_lockups);
	printk("watchdog: BUG: soft lockup - CPU#%d stuck for %lu.%03lus! "
	       "[%s:%d]\n", raw_smp_processor_id(), ms / 1000, ms % 1000,
	       current->comm, current->pid);
	dump_stack();
}

static void report_host_stall(uint64_t ns, unsigned long ticks)
{
	unsigned long ms = (unsigned long)(ns / 1000000);

	this_cpu_inc(host_stalls);
	printk("watchdog: CPU#%d not scheduled by the host: %lu tick(s) in "
	       "%lu.%03lus (or its interrupts were off); not a lockup by its "
	       "own time\n", raw_smp_processor_id(), ticks, ms / 1000,
	       ms % 1000);
}

void softlockup_tick(uint64_t now)
{
	struct watchdog_cpu *w = raw_cpu_ptr(&watchdog_cpu);
	unsigned long limit = thresh_ticks(), ran;
	uint64_t touched;

	if (!limit || !smp_load_acquire(&w->enabled))
		return;
	touched = READ_ONCE(w->touch_ts);
	if (!touched)
		return; /* its watchdog has not run since judging began */
	ran = this_cpu_read(cpu_ticks) - READ_ONCE(w->touch_ticks);
	if (ran >= limit) {
		report_soft_lockup(ran);
		/* Once per threshold, not on every tick of the same one. */
		watchdog_touch(w, now);
	} else if (ran < limit / 2 &&
		   now - w->noted_ts >= (uint64_t)READ_ONCE(thresh_ms) * 1000000ull) {
		/* Noted once per threshold of the clock; the ticks go on
		 * counting towards a lockup of the CPU's own time. */
		report_host_stall(now - touched, ran);
		w->noted_ts = now;
	}
}

/* Hotplug startup (Linux's lockup_detector_online_cpu): cpu's watchdog
 * starts, or comes back from parking; the old stamp is forgotten before
 * judging starts, so that the tick waits for a fresh one. */
static int lockup_detector_online_cpu(unsigned int cpu)
{
	struct watchdog_cpu *w = per_cpu_ptr(&watchdog_cpu, cpu);
	struct task_struct *t = watchdog_task[cpu];

	WRITE_ONCE(w->touch_ts, 0);
	smp_store_release(&w->enabled, true);
	if (t) {
		kthread_unpark(t);
		return 0;
	}
	t = kthread_create_on_cpu(watchdog_fn, 0, cpu, "watchdog");
	if (!t) {
		smp_store_release(&w->enabled, false);
		return -ENOMEM;
	}
	sched_setscheduler(t, SCHED_FIFO, 99);
	watchdog_task[cpu] = t;
	wake_up_process(t);
	return 0;
}

/* Hotplug teardown (Linux's lockup_detector_offline_cpu): cpu is
 * leaving. Judging stops in this step, before the thread parks: from
 * here until the CPU parks, its stamp is not renewed. A tick already
 * past the check may still report once; none after it. */
static int lockup_detector_offline_cpu(unsigned int cpu)
{
	smp_store_release(&per_cpu_ptr(&watchdog_cpu, cpu)->enabled, false);
	kthread_park(watchdog_task[cpu]);
	return 0;
}

int softlockup_start(unsigned int thresh)
{
	WRITE_ONCE(stopping, false);
	smp_store_release(&thresh_ms, thresh);
	watchdog_state = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN,
					   "watchdog:online",
					   lockup_detector_online_cpu,
					   lockup_detector_offline_cpu);
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

		smp_store_release(&per_cpu_ptr(&watchdog_cpu, cpu)->enabled,
				  false);
		if (!t)
			continue;
		if (READ_ONCE(t->parked))
			kthread_unpark(t);
		else
			wake_up_process(t); /* out of its sleep, to see stopping */
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

unsigned long softlockup_host_stalls(int cpu)
{
	return per_cpu(host_stalls, cpu);
}
