/*
 * The tick's rate against the TSC: the ticks this CPU takes in a second
 * of TSC time with interrupts on, per mille of those due. A test can only
 * hold the count to an upper bound (time.ticks_never_outrun_the_tsc): a
 * tick is an interrupt QEMU raises from a host thread of its own and the
 * vCPU takes when it next runs, so on a busy host ticks are merged and
 * the count falls short by any amount. On a quiet host it is 1000; a
 * kernel whose tick fires late, or a timer that counts too slowly, gives
 * fewer. So the lower bound is a figure to read here, not a check.
 */
#include "delay.h"
#include "irqflags.h"
#include "kbench.h"
#include "percpu.h"
#include "time.h"

#define TICK_RATE_NS 1000000000ull

KBENCH(tick_rate)
{
	unsigned long ticks;
	uint64_t t0, span;

	if (irqs_disabled()) {
		kbench_note("ERROR: tick_rate needs interrupts on");
		return;
	}
	t0 = ktime_get_ns();
	ticks = this_cpu_read(cpu_ticks);
	udelay(TICK_RATE_NS / 1000);
	ticks = this_cpu_read(cpu_ticks) - ticks;
	span = ktime_get_ns() - t0;
	kbench_report("tick_rate", "ticks per mille of those due", 1,
		      ticks * 100000ull * 1000000000ull / HZ / span,
		      "per mille");
}
