/*
 * What the CPU hotplug tests share (tests/hotplug/): putting every CPU
 * back online, and a random non-boot CPU.
 */
#ifndef HOTPLUG_UTIL_H
#define HOTPLUG_UTIL_H

#include "prandom.h"

/* Every possible CPU online again; a failure fails the test. The hotplug
 * suites' exit: they leave the machine as they found it. */
void hotplug_all_online(void);

/* A CPU in 1..nr_cpu_ids-1, drawn from rnd (needs two CPUs or more). */
int hotplug_random_cpu(struct rnd_state *rnd);

#endif
