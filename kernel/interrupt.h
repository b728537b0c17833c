/*
 * Softirqs and tasklets, with Linux's names (include/linux/interrupt.h;
 * docs/softirq.md): deferred work an interrupt raises on its own CPU and
 * that runs there soon after, with interrupts on. Each CPU has a word of
 * pending bits; a handler runs on the CPU that raised it, and on one CPU
 * one softirq at a time (PREEMPT_RT without the BH lock: one per task).
 */
#ifndef INTERRUPT_H
#define INTERRUPT_H

#include <stdbool.h>
#include "atomic.h"
#include "bottom_half.h"
#include "percpu.h"
#include "preempt.h"
#include "sched/sched.h"

/* Linux's numbers, in its order: a lower number runs first. Those this
 * kernel uses: TIMER (the timer lists, time/timer.c), NET_RX (the
 * per-CPU backlog, net/dev.c) and TASKLET (tasklets below). The others
 * are free for a test's open_softirq(). RCU's callbacks run in the rcuc
 * threads, as Linux's with rcutree.use_softirq=0 (the RT default). */
enum {
	HI_SOFTIRQ = 0,
	TIMER_SOFTIRQ,
	NET_TX_SOFTIRQ,
	NET_RX_SOFTIRQ,
	BLOCK_SOFTIRQ,
	IRQ_POLL_SOFTIRQ,
	TASKLET_SOFTIRQ,
	SCHED_SOFTIRQ,
	HRTIMER_SOFTIRQ,
	RCU_SOFTIRQ,
	NR_SOFTIRQS
};

extern const char *const softirq_to_name[NR_SOFTIRQS];

struct softirq_action {
	void (*action)(void);
};

/* Set nr's handler (at initialisation, before it is raised). */
void open_softirq(int nr, void (*action)(void));
/* Mark nr pending on this CPU. The _irqoff forms want interrupts off;
 * raised outside interrupt and BH-disabled context, the CPU's ksoftirqd
 * is woken to run it. __raise_softirq_irqoff() only sets the bit: for
 * hard-interrupt handlers, whose exit runs (or hands on) the softirqs. */
void __raise_softirq_irqoff(unsigned int nr);
void raise_softirq_irqoff(unsigned int nr);
void raise_softirq(unsigned int nr);

DECLARE_PER_CPU(unsigned int, __softirq_pending);

/* This CPU's pending bits; interrupts off. */
static inline unsigned int local_softirq_pending(void)
{
	return __this_cpu_read(__softirq_pending);
}

/* How many times nr's handler has run on cpu (Linux's /proc/softirqs). */
unsigned long kstat_softirqs_cpu(unsigned int nr, int cpu);
/* How many times cpu handed its softirqs to ksoftirqd because the budget
 * (MAX_SOFTIRQ_TIME, MAX_SOFTIRQ_RESTART) ran out. */
unsigned long softirq_budget_exhausted(int cpu);

/* The CPU's softirq thread, created when it comes online. */
DECLARE_PER_CPU(struct task_struct *, ksoftirqd);

/* Interrupt exit (entry.c), hardirq count dropped, interrupts off: run
 * the pending softirqs (RT=0), or hand them to ksoftirqd. */
void invoke_softirq(void);

/* Init: the handlers this kernel opens, and ksoftirqd on each CPU. */
void softirq_init(void);

/*
 * Tasklets (kernel/tasklet.c), Linux's: a function scheduled from any
 * context to run once in TASKLET_SOFTIRQ on the CPU that scheduled it; a
 * tasklet scheduled again before it ran runs once, and never runs on two
 * CPUs at once.
 */
struct tasklet_struct {
	struct tasklet_struct *next;
	atomic_long_t state;          /* 1 << TASKLET_STATE_* bits */
	void (*callback)(struct tasklet_struct *t);
};

enum { TASKLET_STATE_SCHED, TASKLET_STATE_RUN };

void tasklet_setup(struct tasklet_struct *t,
		   void (*callback)(struct tasklet_struct *t));
void tasklet_schedule(struct tasklet_struct *t);
void tasklet_init_softirq(void);
/* Hotplug's DEAD step for softirqs (CPUHP_SOFTIRQ_DEAD): a dead CPU's
 * scheduled tasklets move to the calling CPU and run there. Always 0. */
int takeover_tasklets(unsigned int cpu);

#endif
