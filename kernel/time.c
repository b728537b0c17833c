/*
 * The clock and the tick. The TSC is the clock: constant-rate on every CPU
 * QEMU models, and readable in one instruction. The tick is each CPU's
 * LAPIC timer in periodic mode.
 */
#include "time.h"
#include "apic.h"
#include "cpu.h"
#include "printk.h"
#include "sched.h"
#include "timer.h"

volatile unsigned long jiffies;
DEFINE_PER_CPU(unsigned long, cpu_ticks);

static uint64_t tsc_at_boot;
/* ns = cycles * ns_mult >> 32: a multiply instead of a 128-bit divide. */
static uint64_t ns_mult;

uint64_t cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_mult) >> 32);
}

uint64_t ktime_get_ns(void)
{
	return cycles_to_ns(rdtsc() - tsc_at_boot);
}

void time_init(void)
{
	const char *how = tsc_calibrate();

	ns_mult = (1000000ul << 32) / tsc_khz;
	tsc_at_boot = rdtsc();
	printk("TSC: %lu.%03lu MHz (calibrated by %s)\n", tsc_khz / 1000,
	       tsc_khz % 1000, how);
	lapic_timer_calibrate();
	printk("LAPIC timer: %lu Hz input, tick at %d Hz\n", lapic_timer_hz(),
	       HZ);
}

void timer_interrupt(void)
{
	this_cpu_inc(cpu_ticks);
	if (raw_smp_processor_id() == 0)
		jiffies++;
	run_local_timers();
	scheduler_tick();
}
