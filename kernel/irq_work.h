/*
 * irq_work, as in Linux: run a function in hard-interrupt context on this
 * CPU, soon, by queueing it and raising a self-IPI.
 */
#ifndef IRQ_WORK_H
#define IRQ_WORK_H

#include <stdbool.h>

/* pending is read and written only on the CPU the work is queued on,
 * with interrupts off or from its interrupt: a plain bool. */
struct irq_work {
	struct irq_work *next;
	void (*func)(struct irq_work *work);
	bool pending;  /* queued and not yet run */
};

/* Queue work on this CPU; false if it is already pending. */
bool irq_work_queue(struct irq_work *work);

/* Run this CPU's queued work (from the IRQ_WORK IPI). */
void irq_work_run(void);

/* Hotplug callback: the dying CPU runs what is queued (kernel/cpu.c). */
int irq_work_cpu_dying(unsigned int cpu);

#endif
