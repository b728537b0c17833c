/*
 * The soft-lockup watchdog (kernel/watchdog.c): a CPU that does not
 * schedule for the threshold is reported, and one that does is not.
 * The stuck side spins until the report comes (an event, bounded only by
 * a generous cap), since a host that keeps the vCPU away restarts the
 * watchdog's count; the busy side spins for 2.5 thresholds (of 300 ms).
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
