/*
 * Per-CPU timers: a function called in hard-interrupt context on the CPU
 * that queued it, as soon as it can after its expiry time (each CPU's
 * timer interrupt is armed for its first timer, see time.c).
 */
#ifndef TIMER_H
#define TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "list.h"

struct timer_list {
	struct list_head entry;
	uint64_t expires;                    /* ktime_get_ns() value */
	void (*function)(struct timer_list *t);
	int cpu;                             /* queued there; -1: not queued */
};

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t));
/* Queue t on this CPU to fire at expires. */
void add_timer(struct timer_list *t, uint64_t expires);
/* Dequeue t; once this returns its function is not running. Returns
 * whether it was still queued. */
bool del_timer(struct timer_list *t);

void timers_init(void);
/* From the timer interrupt: run this CPU's expired timers. */
void run_local_timers(void);
/* When this CPU's first pending timer expires; ~0 if none. */
uint64_t timers_next_expiry(void);

/* Hotplug callbacks (kernel/cpu.c): a CPU starts with no timers; a dead
 * CPU's pending timers move to the calling CPU. */
int timers_prepare_cpu(unsigned int cpu);
int timers_dead_cpu(unsigned int cpu);

#endif
