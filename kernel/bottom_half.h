/*
 * Bottom halves off and on, as Linux's include/linux/bottom_half.h
 * (docs/softirq.md). local_bh_disable() keeps this CPU's softirqs from
 * running until the matching local_bh_enable(); the outermost enable
 * runs what was raised meanwhile. They nest.
 *
 *   RT=0          the softirq count in the preempt count: preemption is
 *                 off too.
 *   PREEMPT_RT    preemptible: migration off, the count is the task's,
 *                 and, unless the boot option softirq.bh_lock=0 dropped
 *                 it, this CPU's BH lock (softirq_ctrl), which makes every
 *                 BH section of a CPU wait for the one in progress.
 */
#ifndef BOTTOM_HALF_H
#define BOTTOM_HALF_H

#include <stdbool.h>

void local_bh_disable(void);
void local_bh_enable(void);

/* PREEMPT_RT: whether local_bh_disable() takes the per-CPU BH lock
 * (Linux's CONFIG_PREEMPT_RT_NEEDS_BH_LOCK); false on RT=0, which has
 * none. Fixed at boot, before any BH section. */
bool softirq_needs_bh_lock(void);

#endif
