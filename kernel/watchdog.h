/*
 * The soft-lockup watchdog, as in Linux: a CPU that does not schedule for
 * a threshold of time is reported with its stack, so that a hang (in a
 * torture run, say) is a report, not a silent stop. Off until started.
 */
#ifndef WATCHDOG_H
#define WATCHDOG_H

#include <stdint.h>

/* Start one watchdog task per online CPU and check every tick: a CPU
 * that does not schedule for thresh_ms is reported. */
int softlockup_start(unsigned int thresh_ms);
/* Stop checking and join the watchdog tasks. */
void softlockup_stop(void);
/* Called by the tick on every CPU (time/timekeeping.c). */
void softlockup_tick(uint64_t now);
/* Reports made for cpu since boot. */
unsigned long softlockup_reports(int cpu);
/* Times the clock said cpu was stuck but its own ticks said it mostly
 * did not run (the host did not schedule it): noted, not reported. */
unsigned long softlockup_host_stalls(int cpu);
/* cpu's watchdog task while detection is on, else NULL (for tests). */
struct task_struct *softlockup_task(int cpu);

#endif
