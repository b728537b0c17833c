/*
 * The core's half of every interrupt, as Linux's irqentry_*(): arch's trap
 * dispatch (arch/x86_64/trap.c) decodes the vector and calls the handler;
 * these bracket it with the interrupt context the core tracks in the
 * preempt count, and decide whether the interrupted task is preempted on
 * the way out. Arch code never calls the scheduler itself.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stdbool.h>

/* Before a device or IPI handler of vector runs: in_irq() is true from
 * here. */
void irqentry_enter(unsigned int vector);

/* After the handler (and its EOI). irqs_were_on: the interrupted code ran
 * with interrupts on, so it may be preempted here if it is preemptible. */
void irqentry_exit(bool irqs_were_on);

/* Around an NMI handler: NMIs nest inside anything, so they only mark the
 * context and never schedule. */
void nmi_enter(void);
void nmi_exit(void);

#endif
