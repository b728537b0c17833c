/*
 * Tests of time (kernel/time.c, arch/x86_64/tsc.c, the LAPIC timer in
 * arch/x86_64/lapic.c): the TSC clock, udelay, every CPU's tick, jiffies,
 * and that the TSC and the LAPIC timer agree on how long a second is.
 *
 * The host does not run a vCPU all the time, and its clock goes on
 * meanwhile, so every bound here is one a busy host cannot break
 * (tests/ktest_util.h): "at least" in TSC time, "at most" in ticks.
 */
#include "ktest_util.h"
#include "asm/timer.h"

#define TICK_PERIOD_NS (1000000000ul / HZ)

/* Whether every online CPU's tick count has moved past before[]. */
static bool all_cpus_ticked(const unsigned long *before)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu(cpu_ticks, cpu) == before[cpu])
			return false;
	return true;
}

/* Every online CPU's own tick counter moves: waited for, since a CPU
 * whose vCPU thread the host does not run takes no tick meanwhile. */
KTEST(time, every_cpu_ticks)
{
	static unsigned long before[NR_CPUS];
	int cpu;

	for_each_online_cpu(cpu)
		before[cpu] = per_cpu(cpu_ticks, cpu);
	ktest_poll_until(all_cpus_ticked(before), KTEST_WAIT_MS, POLL_SPIN);
	for_each_online_cpu(cpu)
		KEXPECT_GT(per_cpu(cpu_ticks, cpu), before[cpu]);
}

/* Ticks a udelay(1000) may take besides its own one: far below the
 * thousand that a unit mix-up (a second for a millisecond) would take. */
#define UDELAY_MAX_TICKS 50

/* ktime_get_ns never goes backwards, and udelay(1000) lasts at least 1 ms
 * of it and not absurdly long (counted in ticks of this CPU, with
 * interrupts on). */
KTEST(time, ktime_monotonic_and_udelay_lasts)
{
	uint64_t prev = ktime_get_ns(), t0, spent;
	unsigned long ticks;
	int backwards = 0;

	for (int i = 0; i < 100000; i++) {
		uint64_t now = ktime_get_ns();

		backwards += now < prev;
		prev = now;
	}
	KEXPECT_EQ(backwards, 0);
	KASSERT_FALSE(irqs_disabled());
	ticks = this_cpu_read(cpu_ticks);
	t0 = ktime_get_ns();
	udelay(1000);
	spent = ktime_get_ns() - t0;
	ticks = this_cpu_read(cpu_ticks) - ticks;
	KEXPECT_GE(spent, 1 * NS_PER_MS);
	KEXPECT_LE(ticks, 1 + UDELAY_MAX_TICKS);
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
 * The TSC and the LAPIC timer agree: while this CPU runs with interrupts
 * on, it takes one tick per 1/HZ s of TSC time. A busy host stops the
 * vCPU now and then, and the ticks that fall due meanwhile are merged
 * into one (kernel/time.c), so a plain count over a stretch of time says
 * little: a loaded 2-core host has been seen giving 54 ticks for 200 ms.
 * So the ticks are held to two bounds that a busy host cannot break:
 *
 *  - at most span * HZ + 2 over a span of TSC time: merging only loses
 *    ticks. A timer that fires early, or counts too fast, shows here.
 *  - at least those due while the vCPU was seen running: the loop reads
 *    the TSC without pause, and a gap of PRESENCE_GAP_NS or more between
 *    two reads is time the vCPU was away (the host, or the guest, ran
 *    something else). In a stretch without such a gap an interrupt due is
 *    taken within PRESENCE_GAP_NS, and no two ticks can merge (that needs
 *    a whole period away), so a stretch of L ns owes at least
 *    (L - PRESENCE_GAP_NS) * HZ / 1e9 ticks. A timer that fires late, or
 *    counts too slowly (a divider of 16, ms for us), shows here.
 *
 * The loop runs until the stretches owe TICKS_OWED ticks: on a quiet host
 * about that many ms, on a busy one as long as the host takes to let the
 * vCPU run that long. On a quiet host the two bounds are a few ticks
 * apart.
 */
#define PRESENCE_GAP_NS (TICK_PERIOD_NS / 2)
#define TICKS_OWED 100

struct presence {
	uint64_t span_ns;          /* TSC time from first read to last */
	uint64_t seen_ns;          /* of it, in stretches without a gap */
	unsigned long owed;        /* ticks due in those stretches */
	unsigned long ticks;       /* ticks this CPU took meanwhile */
	int stretches;
};

/* Ticks owed by a stretch of len ns without a gap. */
static unsigned long owed_by(uint64_t len)
{
	return len > PRESENCE_GAP_NS ? (len - PRESENCE_GAP_NS) / TICK_PERIOD_NS
				     : 0;
}

/* Read the TSC until the stretches owe want ticks, or KTEST_WAIT_MS has
 * gone by (the host never let the vCPU run a tick and a half at once:
 * the bounds still hold, for what was seen). */
static void watch_presence(unsigned long want, struct presence *p)
{
	/* The ticks are read inside the span, for the upper bound. */
	uint64_t start = ktime_get_ns(), from = start, prev = start, now;
	unsigned long t0 = this_cpu_read(cpu_ticks), closed = 0;

	*p = (struct presence){.stretches = 1};
	for (;;) {
		now = ktime_get_ns();
		if (now - prev >= PRESENCE_GAP_NS) { /* away: a stretch ends */
			closed += owed_by(prev - from);
			p->seen_ns += prev - from;
			p->stretches++;
			from = now;
		}
		prev = now;
		if (closed + owed_by(prev - from) >= want ||
		    prev - start >= KTEST_WAIT_MS * NS_PER_MS)
			break;
	}
	p->owed = closed + owed_by(prev - from);
	p->seen_ns += prev - from;
	p->ticks = this_cpu_read(cpu_ticks) - t0;
	p->span_ns = ktime_get_ns() - start;
}

KTEST(time, tsc_agrees_with_lapic_tick)
{
	struct presence p;

	KASSERT_FALSE(irqs_disabled());
	watch_presence(TICKS_OWED, &p);
	ktest_log("%lu ticks in %lu ms of TSC time; the vCPU was seen running "
		  "for %lu ms in %d stretch(es), in which %lu ticks fell due",
		  p.ticks, (unsigned long)(p.span_ns / NS_PER_MS),
		  (unsigned long)(p.seen_ns / NS_PER_MS), p.stretches, p.owed);
	KEXPECT_LE(p.ticks, p.span_ns / TICK_PERIOD_NS + 2);
	KEXPECT_GE(p.ticks, p.owed);
}

/* jiffies advances, and counts the boot CPU's ticks. */
KTEST(time, jiffies_advances)
{
	unsigned long j0 = jiffies, flags;

	/* Ticks are events: a busy host may hold one back for a while, so
	 * it is waited for rather than expected within a duration. */
	ktest_poll_until(jiffies != j0, KTEST_WAIT_MS, POLL_SPIN);
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
