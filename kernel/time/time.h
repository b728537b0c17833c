/* Time: the nanosecond clock, the periodic tick and delays. */
#ifndef TIME_H
#define TIME_H

#include <stdint.h>
#include "percpu.h"
#include "asm/timer.h"

#ifndef HZ
#define HZ 1000
#endif

/* Ticks seen by the boot CPU since the timer started. volatile, as in
 * Linux (include/linux/jiffies.h): code polls it in loops
 * (`while (jiffies == j0)`) and each read must reach memory; only the
 * boot CPU's tick writes it. */
extern volatile unsigned long jiffies;
/* Ticks seen by each CPU: every CPU's timer counts its own. */
DECLARE_PER_CPU_STAT(unsigned long, cpu_ticks);

/* Every CPU's tick count at a start, to bound a wait in the kernel's own
 * time instead of the host's: a CPU's ticks advance only while its vCPU
 * runs (a tick due while it does not is merged with the next), so a busy
 * host stretches such a bound instead of cutting a correct wait short.
 * NR_CPUS counts: keep one in static storage, not on a stack. */
struct tick_watch {
	unsigned long start[NR_CPUS];
};

void tick_watch_start(struct tick_watch *w);
/* Whether every CPU online now has taken at least n ticks since. */
bool tick_watch_passed(const struct tick_watch *w, unsigned long n);

/* Nanoseconds since time_init(), from the TSC. */
uint64_t ktime_get_ns(void);
uint64_t cycles_to_ns(uint64_t cycles);

/* Calibrate the clock and the tick (boot CPU, before the APs start). */
void time_init(void);

/* Start this CPU's tick (after time_init). */
void tick_setup_cpu(void);

/* Make sure this CPU's timer interrupt comes no later than when (ns):
 * a timer due before the next tick asks for its own interrupt. Interrupts
 * off. */
void tick_event_before(uint64_t when);

/* The local timer interrupt: the tick (HZ times a second) and timers. */
void timer_interrupt(void);

#endif
