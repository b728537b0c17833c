/*
 * The clock and the tick: policy only (the hardware is behind
 * asm/timer.h). The clock counts cycles at a constant rate on every CPU.
 * Each CPU's event timer runs one-shot, armed for the earlier of its next
 * tick and its first pending timer, so a sleep can end between ticks
 * instead of at the next one.
 */
#include "time/time.h"
#include "watchdog.h"
#include "asm/timer.h"
#include "printk.h"
#include "rcu/rcutree.h"
#include "sched/sched.h"
#include "time/timer.h"
#include "smp.h"

#define TICK_NS (1000000000ul / HZ)
#define MIN_EVENT_NS 2000 /* sooner than this: not worth an interrupt */

volatile unsigned long jiffies; /* volatile: polled in loops (time.h) */
DEFINE_PER_CPU_STAT(unsigned long, cpu_ticks);
static DEFINE_PER_CPU(uint64_t, next_tick);  /* when this CPU ticks next */
static DEFINE_PER_CPU(uint64_t, next_event); /* when its timer is armed for */

static uint64_t tsc_at_boot;
/* ns = cycles * ns_mult >> 32: a multiply instead of a 128-bit divide. */
static uint64_t ns_mult;

uint64_t cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_mult) >> 32);
}

uint64_t ktime_get_ns(void)
{
	return cycles_to_ns(get_cycles() - tsc_at_boot);
}

void time_init(void)
{
	const char *how = clock_calibrate();

	ns_mult = (1000000ul << 32) / tsc_khz;
	tsc_at_boot = get_cycles();
	printk("TSC: %lu.%03lu MHz (calibrated by %s)\n", tsc_khz / 1000,
	       tsc_khz % 1000, how);
	arch_timer_init(timer_interrupt);
	printk("LAPIC timer: %lu Hz input, tick at %d Hz\n", arch_timer_hz(),
	       HZ);
}

static void program_event(uint64_t when, uint64_t now)
{
	uint64_t delta = when > now + MIN_EVENT_NS ? when - now : MIN_EVENT_NS;

	this_cpu_write(next_event, now + delta);
	arch_timer_oneshot(delta);
}

void tick_setup_cpu(void)
{
	uint64_t now = ktime_get_ns();

	this_cpu_write(next_tick, now + TICK_NS);
	program_event(now + TICK_NS, now);
}

void tick_event_before(uint64_t when)
{
	if (when < this_cpu_read(next_event))
		program_event(when, ktime_get_ns());
}

void tick_watch_start(struct tick_watch *w)
{
	int cpu;

	for_each_possible_cpu(cpu)
		w->start[cpu] = per_cpu(cpu_ticks, cpu);
}

bool tick_watch_passed(const struct tick_watch *w, unsigned long n)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu(cpu_ticks, cpu) - w->start[cpu] < n)
			return false;
	return true;
}

/* A tick that comes late (the vCPU was not running) is one tick, not a
 * burst of the ones missed: ticks are events, the TSC tells the time. */
static void tick(uint64_t now)
{
	uint64_t next = this_cpu_read(next_tick) + TICK_NS;

	this_cpu_write(next_tick, next > now ? next : now + TICK_NS);
	this_cpu_inc(cpu_ticks);
	if (raw_smp_processor_id() == 0)
		jiffies++;
	scheduler_tick();
	rcu_sched_clock_irq();
	softlockup_tick(now);
	nmi_report_deferred();
}

void timer_interrupt(void)
{
	uint64_t now = ktime_get_ns(), next, timer;

	if (now >= this_cpu_read(next_tick))
		tick(now);
	run_local_timers();
	/* Read once: another CPU's del_timer() may empty the base between
	 * two reads, and a second read of ~0 would arm the event timer for
	 * its longest count (2^32 counts, 69 s at 62.5 MHz) instead of
	 * the next tick. */
	next = this_cpu_read(next_tick);
	timer = timers_next_expiry();
	if (timer < next)
		next = timer;
	program_event(next, ktime_get_ns());
}
