/*
 * Busy-waiting, with Linux's names (linux/delay.h): the CPU spins on the
 * clock and nothing else runs on it meanwhile, so these are for short
 * waits on hardware or in tests. To wait without keeping the CPU, sleep:
 * msleep() and usleep() in sched.h.
 */
#ifndef DELAY_H
#define DELAY_H

#include "asm/timer.h"

static inline void udelay(unsigned long us)
{
	arch_udelay(us);
}

static inline void mdelay(unsigned long ms)
{
	arch_udelay(ms * 1000);
}

#endif
