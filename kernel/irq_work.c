/*
 * irq_work: each CPU's list of pending work, touched only by that CPU with
 * interrupts off (queueing) or from its own interrupt (running), so it
 * needs no lock. A CPU going offline runs what is left before it parks.
 */
#include "irq_work.h"
#include "irqflags.h"
#include "percpu.h"
#include "preempt.h"
#include "asm/smp.h"

static DEFINE_PER_CPU(struct irq_work *, irq_work_list);

bool irq_work_queue(struct irq_work *work)
{
	unsigned long flags;

	local_irq_save(flags);
	if (work->pending) {
		local_irq_restore(flags);
		return false;
	}
	work->pending = true;
	work->next = __this_cpu_read(irq_work_list);
	__this_cpu_write(irq_work_list, work);
	/* Raised before interrupts come back on, so it reaches this CPU
	 * whatever the caller does next. */
	arch_send_self_ipi(IPI_IRQ_WORK);
	local_irq_restore(flags);
	return true;
}

void irq_work_run(void)
{
	struct irq_work *work = __this_cpu_xchg(irq_work_list, 0), *next;

	for (; work; work = next) {
		next = work->next;
		work->pending = false;
		work->func(work);
	}
}

/* Hotplug (kernel/cpu.c): on the dying CPU, interrupts off, the work
 * queued here runs as its interrupt would have run it. */
int irq_work_cpu_dying(unsigned int cpu)
{
	irq_enter();
	irq_work_run();
	irq_exit();
	return 0;
}
