/*
 * Per-CPU timers: a function called on the CPU that queued it, as soon
 * as it can after its expiry time (each CPU's timer interrupt is armed
 * for its first timer, see time.c). As Linux's timer_list, it runs in
 * the TIMER softirq (docs/softirq.md): preemptible on PREEMPT_RT. A
 * timer set up with timer_setup_hard() runs in the hard interrupt
 * itself, as Linux's hrtimers in HRTIMER_MODE_HARD: for the few that
 * must (a sleeper's wake-up, which must not wait for a softirq thread
 * that RT tasks may keep off the CPU, and rtlat's measuring timer).
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
	int cpu;                             /* queued or running there;
					      * -1: neither */
	bool hard;                           /* runs in hard-interrupt context */
};

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t));
void timer_setup_hard(struct timer_list *t, void (*fn)(struct timer_list *t));
/* Queue t on this CPU to fire at expires. */
void add_timer(struct timer_list *t, uint64_t expires);
/* Dequeue t; once this returns its function is not running (it waits
 * for a running one, as Linux's timer_delete_sync(): so not from a hard
 * interrupt, nor with t's softirq held off). From t's own function it
 * only dequeues. Returns whether it was still queued. A timer's function
 * may re-arm it with add_timer(), but for a hard one, which runs under
 * its base's lock. */
bool del_timer(struct timer_list *t);

/* The timer bases, and the TIMER softirq's handler. */
void timers_init(void);
/* From the timer interrupt: run this CPU's expired hard timers, hand
 * the others to the TIMER softirq. */
void run_local_timers(void);
/* When this CPU's first pending timer expires; ~0 if none. */
uint64_t timers_next_expiry(void);

/* Hotplug callbacks (kernel/cpu.c): a CPU starts with no timers; a dead
 * CPU's pending timers move to the calling CPU. */
int timers_prepare_cpu(unsigned int cpu);
int timers_dead_cpu(unsigned int cpu);

#endif
