/* The time stamp counter as the kernel's clock. */
#ifndef _ASM_X86_TIMER_H
#define _ASM_X86_TIMER_H

#include <stdint.h>

/* TSC ticks per millisecond; set once by tsc_calibrate(). */
extern uint64_t tsc_khz;

/* From CPUID's frequency leaves when they say, else against the PIT.
 * Returns how it was measured ("cpuid" or "pit"). */
const char *tsc_calibrate(void);

void udelay(unsigned long us);

#endif
