/*
 * Timer hardware: the clock (the TSC) and each CPU's event timer (the
 * local APIC timer, one-shot). kernel/time/timekeeping.c decides when to
 * tick; this is how.
 */
#ifndef _ASM_X86_TIMER_H
#define _ASM_X86_TIMER_H

#include <stdint.h>
#include "asm/processor.h"

/* Clock cycles: the TSC, constant-rate on every CPU QEMU models. */
static inline uint64_t get_cycles(void)
{
	return rdtsc();
}

/* Clock cycles per millisecond; set once by clock_calibrate(). */
extern uint64_t tsc_khz;

/* From CPUID's frequency leaves when they say, else against the PIT.
 * Returns how it was measured ("cpuid" or "pit"). */
const char *clock_calibrate(void);

/* Busy-wait us microseconds on the clock: needs clock_calibrate(). The
 * core's name for it is udelay() (delay.h). */
void arch_udelay(unsigned long us);

/* Measure the event timer against the clock (boot CPU, once) and route
 * its interrupt to handler, which then runs in hard-interrupt context on
 * the CPU whose timer fired. */
void arch_timer_init(void (*handler)(void));

/* The event timer's input frequency, measured by arch_timer_init(). */
uint64_t arch_timer_hz(void);

/* What is left of this CPU's one-shot, in counts of arch_timer_hz(): 0
 * once it has fired, or when stopped. The timer computes it from its own
 * clock when read, so read beside the TSC it tells the rate the timer
 * really runs at, however late its interrupt is delivered. */
uint32_t arch_timer_count(void);

/* Arm this CPU's event timer to fire once, ns from now (interrupts off). */
void arch_timer_oneshot(uint64_t ns);

/* Stop this CPU's event timer: no interrupt until the next oneshot (a CPU
 * that parks, interrupts off). */
void arch_timer_stop(void);

#endif
