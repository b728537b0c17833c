/*
 * What the percpu_counter tests share (tests/percpu/): reading one CPU's
 * delta, and leaving a delta on a CPU.
 */
#ifndef PERCPU_COUNTER_UTIL_H
#define PERCPU_COUNTER_UTIL_H

#include <stdint.h>
#include "percpu_counter.h"

/* cpu's delta of c as it is now (a plain load: exact for a quiet CPU). */
int32_t pcc_delta_of(struct percpu_counter *c, int cpu);

/* Leave a delta of amount on cpu: an add made by a task bound there,
 * joined before this returns. */
void pcc_leave_delta_on(int cpu, struct percpu_counter *c, int64_t amount);

#endif
