/*
 * Tests of time (kernel/time/timekeeping.c, arch/x86_64/tsc.c, the LAPIC
 * timer in arch/x86_64/lapic.c): the TSC clock, udelay, every CPU's tick,
 * jiffies, and that the TSC and the LAPIC timer agree on how long a
 * second is.
 */
#include "ktest_util.h"
#include "asm/timer.h"

/* Whether every online CPU's tick count has moved past before[]. */
static bool all_cpus_ticked(const unsigned long *before)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu(cpu_ticks, cpu) == before[cpu])
			return false;
	return true;
}

/* Every online CPU's own tick counter moves over 20 ms (a CPU whose vCPU
 * thread the host did not run gets up to 1 s more before it fails). */
KTEST(time, every_cpu_ticks)
{
	static unsigned long before[NR_CPUS];
	int cpu;

	for_each_online_cpu(cpu)
		before[cpu] = per_cpu(cpu_ticks, cpu);
	udelay(20000);
	ktest_poll_until(all_cpus_ticked(before), 1000, POLL_SPIN);
	for_each_online_cpu(cpu)
		KEXPECT_GT(per_cpu(cpu_ticks, cpu), before[cpu]);
}

/* ktime_get_ns never goes backwards, and udelay(1000) lasts at least 1 ms
 * of it (and not absurdly long: a unit mix-up would give 1 s). */
KTEST(time, ktime_monotonic_and_udelay_lasts)
{
	uint64_t prev = ktime_get_ns(), t0, spent;
	int backwards = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t now = ktime_get_ns();

		backwards += now < prev;
		prev = now;
	}
	KEXPECT_EQ(backwards, 0);
	t0 = ktime_get_ns();
	udelay(1000);
	spent = ktime_get_ns() - t0;
	KEXPECT_GE(spent, 1 * NS_PER_MS);
	KEXPECT_LT(spent, 500 * NS_PER_MS);
}

static void read_ktime(void *arg)
{
	*(uint64_t *)arg = ktime_get_ns();
}

/* The clock is one clock: a reading taken on another CPU falls between
 * two readings on this one that bracket it. */
KTEST_CPUS(time, ktime_consistent_across_cpus, 2)
{
	int cpu, self = raw_smp_processor_id();

	for_each_other_online_cpu(cpu, self) {
		uint64_t there = 0, t0, t1;

		t0 = ktime_get_ns();
		KASSERT_EQ(smp_call_function_single(cpu, read_ktime, &there,
						    true), 0);
		t1 = ktime_get_ns();
		KEXPECT_GE(there, t0);
		KEXPECT_LE(there, t1);
	}
}

/*
 * The TSC and the LAPIC timer agree: over 200 ms of udelay (TSC time) this
 * CPU takes 200 ticks at HZ=1000. Only the upper bound (+40%) can be held
 * to on a shared host: under TCG a vCPU thread can be descheduled, a tick
 * is an event that QEMU delivers when the vCPU next runs (ticks that come
 * due meanwhile merge into one pending interrupt), so load only ever
 * loses ticks; on a loaded 2-core host the best of eight windows has been
 * seen at 45%. The lower bound is therefore 10%, the best window of up to
 * TICK_WINDOWS: it still catches the unit errors (ms for us, a divider of
 * 16) that put every window far below it, and a count above the band is
 * never explained by load. How close the two clocks agree on a quiet host
 * is for `make bench`, not for a test.
 */
#define TICK_WINDOWS 8
#define TICK_WINDOW_MS 200

KTEST(time, tsc_agrees_with_lapic_tick)
{
	const unsigned long want = TICK_WINDOW_MS * HZ / 1000;
	const unsigned long lo = want * 10 / 100, hi = want * 140 / 100;
	unsigned long ticks[TICK_WINDOWS];
	int n = 0;
	bool in_band = false;

	KASSERT_FALSE(irqs_disabled());
	while (n < TICK_WINDOWS && !in_band) {
		unsigned long t0 = this_cpu_read(cpu_ticks);

		udelay(TICK_WINDOW_MS * 1000);
		ticks[n] = this_cpu_read(cpu_ticks) - t0;
		KEXPECT_LE(ticks[n], hi);
		in_band = ticks[n] >= lo && ticks[n] <= hi;
		n++;
	}
	for (int i = 0; i < n; i++)
		ktest_log("window %d: %lu ticks in %d ms of TSC time (want %lu "
			  "-90%%/+40%%)", i, ticks[i], TICK_WINDOW_MS, want);
	KEXPECT_TRUE(in_band);
}

/* jiffies advances, and counts the boot CPU's ticks. */
KTEST(time, jiffies_advances)
{
	unsigned long j0 = jiffies, flags;

	/* Ticks are events: a busy host may hold one back for a while, so
	 * give it up to a second rather than asserting a duration. */
	for (int i = 0; i < 100 && jiffies == j0; i++)
		udelay(10000);
	KEXPECT_GT(jiffies, j0);
	/* With interrupts off no tick can fall between the two reads. */
	local_irq_save(flags);
	KEXPECT_EQ(jiffies, per_cpu(cpu_ticks, 0));
	local_irq_restore(flags);
}

/* ktest_in_hardirq runs its function in hard-IRQ context with interrupts
 * off on the calling CPU, and returns only after it ran. */
KTEST(time, ktest_in_hardirq_context)
{
	struct call_record r = {.cpu = -1};

	KASSERT_FALSE(irqs_disabled());
	KASSERT_FALSE(in_irq());
	ktest_in_hardirq(record_context, &r);
	expect_hardirq_record(&r, raw_smp_processor_id());
	KEXPECT_FALSE(in_irq());
	KEXPECT_FALSE(irqs_disabled());
}

/*
 * The calibrated rates are plausible (QEMU's LAPIC timer: 1 GHz / 16 =
 * 62.5 MHz; anything from 1 MHz to 10 GHz is accepted), and one TSC
 * second converts to one second of ns. The band holds under load because
 * calibration knows its own error: the host stopping a vCPU thread once
 * gave a 41 GHz TSC from one 50 ms window that waited for the PIT to run
 * out; now each end of a PIT window is a count read between two TSC reads
 * (a stop only widens that bracket, and the narrowest of several reads is
 * kept), and the LAPIC window's TSC reads lie inside its counter reads.
 */
KTEST(time, calibrated_rates_plausible)
{
	uint64_t one_s;

	ktest_log("LAPIC timer %lu Hz, TSC %lu kHz",
		  (unsigned long)arch_timer_hz(), (unsigned long)tsc_khz);
	KEXPECT_GE(arch_timer_hz(), 1000000ul);
	KEXPECT_LE(arch_timer_hz(), 10000000000ul);
	KEXPECT_GE(tsc_khz, 1000ul);
	KEXPECT_LE(tsc_khz, 10000000ul);
	one_s = cycles_to_ns(tsc_khz * 1000);
	KEXPECT_GE(one_s, 999000000ul);
	KEXPECT_LE(one_s, 1001000000ul);
}
