/*
 * The soft-lockup watchdog (kernel/watchdog.c): a CPU that does not
 * schedule for the threshold is reported, and one that does is not.
 * The stuck side spins until the report comes (an event, bounded only by
 * a generous cap), since the detector counts the CPU's own ticks and a
 * host that keeps the vCPU away delays them; the busy side spins for 2.5
 * thresholds (of 300 ms). A CPU that took no ticks for a threshold is a
 * host stall, noted, never a lockup.
 */
#include "ktest_util.h"
#include "watchdog.h"

#define THRESH_MS 300
#define STUCK_CAP_MS 20000

/* Spin for ms with preemption off (or on): the CPU cannot (or can)
 * schedule meanwhile. Interrupts stay on, so the tick runs. With
 * until_report, stop as soon as cpu has been reported. */
static void spin_ms(uint64_t ms, bool preempt_off, int cpu,
		    unsigned long until_report)
{
	uint64_t t0 = ktime_get_ns();

	if (preempt_off)
		preempt_disable();
	while (ns_since(t0) < ms * NS_PER_MS &&
	       !(until_report && softlockup_reports(cpu) >= until_report))
		cpu_relax();
	if (preempt_off)
		preempt_enable();
}

KTEST(watchdog, soft_lockup_reported)
{
	int cpu = raw_smp_processor_id(); /* the test task is bound to CPU 0 */
	unsigned long before = softlockup_reports(cpu);

	KASSERT_EQ(softlockup_start(THRESH_MS), 0);
	msleep(50);                        /* every watchdog task has stamped */
	spin_ms(STUCK_CAP_MS, true, cpu, before + 1);
	softlockup_stop();
	ktest_log("%lu report(s) for CPU %d", softlockup_reports(cpu) - before, cpu);
	KEXPECT_GE(softlockup_reports(cpu) - before, 1);
}

KTEST(watchdog, busy_but_preemptible_not_reported)
{
	int cpu = raw_smp_processor_id();
	unsigned long before = softlockup_reports(cpu);

	KASSERT_EQ(softlockup_start(THRESH_MS), 0);
	msleep(50);
	spin_ms(THRESH_MS * 5 / 2, false, cpu, 0);
	softlockup_stop();
	KEXPECT_EQ(softlockup_reports(cpu) - before, 0);
}

/* Three thresholds without a tick, then ticking again: the clock says the
 * CPU was stuck, its own ticks say it did not run. Interrupts off is the
 * one way a test can stop a CPU's ticks; to the detector it looks as the
 * host not running the vCPU does (docs/debugging.md). */
KTEST(watchdog, no_ticks_is_a_host_stall_not_a_lockup)
{
	int cpu = raw_smp_processor_id();
	unsigned long before = softlockup_reports(cpu);
	unsigned long stalls = softlockup_host_stalls(cpu);
	unsigned long flags;
	uint64_t t0;

	KASSERT_EQ(softlockup_start(THRESH_MS), 0);
	msleep(50);
	local_irq_save(flags);
	t0 = ktime_get_ns();
	while (ns_since(t0) < 3 * THRESH_MS * NS_PER_MS)
		cpu_relax();
	local_irq_restore(flags);
	/* The first tick after it judges (the bound ends a broken test). */
	ktest_poll_until(softlockup_host_stalls(cpu) != stalls, 5000,
			 POLL_SLEEP);
	softlockup_stop();
	ktest_log("%lu host stall(s) noted for CPU %d",
		  softlockup_host_stalls(cpu) - stalls, cpu);
	KEXPECT_EQ(softlockup_reports(cpu) - before, 0);
	KEXPECT_GE(softlockup_host_stalls(cpu) - stalls, 1);
}
