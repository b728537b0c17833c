/*
 * Interrupt entry and exit for the core (see entry.h): the preempt count
 * says "in hardirq" or "in NMI" while a handler runs, and a wake-up that
 * an interrupt made preempts the interrupted task on the way out, which is
 * what makes the kernel fully preemptive.
 */
#include "entry.h"
#include "preempt.h"
#include "sched.h"
#include "trace.h"

void irqentry_enter(unsigned int vector)
{
	irq_enter();
	trace_event(TRACE_IRQ_ENTRY, vector, 0, 0);
}

void irqentry_exit(bool irqs_were_on)
{
	trace_event(TRACE_IRQ_EXIT, 0, 0, 0);
	irq_exit();
	if (need_resched() && preempt_count() == 0 && irqs_were_on)
		preempt_schedule_irq();
}

void nmi_enter(void)
{
	raw_cpu_add(__preempt_count, NMI_OFFSET);
}

void nmi_exit(void)
{
	raw_cpu_sub(__preempt_count, NMI_OFFSET);
}
