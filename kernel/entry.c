/*
 * Interrupt entry and exit for the core (see entry.h): the preempt count
 * says "in hardirq" or "in NMI" while a handler runs, and a wake-up that
 * an interrupt made preempts the interrupted task on the way out, which is
 * what makes the kernel fully preemptive. The softirqs the handler raised
 * run on the way out, or are handed to ksoftirqd (softirq.c). On the way back to ring 3 the
 * same holds for user code, and the rseq fix-up runs (rseq.h).
 */
#include "entry.h"
#include "interrupt.h"
#include "panic.h"
#include "preempt.h"
#include "user/process.h"
#include "user/rseq.h"
#include "sched/sched.h"
#include "mm/stack.h"
#include "rcu/rcutree.h"
#include "trace/trace.h"

void irqentry_enter(unsigned int vector)
{
	rcu_irq_enter();
	irq_enter();
	trace_event(TRACE_IRQ_ENTRY, vector, 0, 0);
}

/* An interrupt that came from the idle loop does not preempt: the CPU
 * is back in RCU's idle state by then, and the idle loop schedules as
 * soon as the halt returns (as Linux's irqentry_exit() leaves it to). */
void irqentry_exit(bool irqs_were_on)
{
	bool from_idle;

	trace_event(TRACE_IRQ_EXIT, 0, 0, 0);
	irq_exit();
	invoke_softirq(); /* while RCU still watches this CPU */
	from_idle = rcu_irq_exit();
	if (need_resched() && preempt_count() == 0 && irqs_were_on &&
	    !from_idle)
		preempt_schedule_irq();
}

void nmi_enter(void)
{
	raw_cpu_add(__preempt_count, NMI_OFFSET + HARDIRQ_OFFSET);
}

void nmi_exit(void)
{
	raw_cpu_sub(__preempt_count, NMI_OFFSET + HARDIRQ_OFFSET);
}

/* The exit work runs on the stack below f, and may schedule: a frame
 * anywhere but on the task's own kernel stack would have those calls
 * written over whatever lies under it, silently. */
static void check_user_frame(const struct trap_frame *f)
{
	const struct task_struct *t = current;

	if (unlikely((uintptr_t)f - (uintptr_t)t->stack >
		     KSTACK_SIZE - sizeof(*f)))
		panic("exit_to_user_mode: %s/%d returns to ring 3 through a "
		      "frame at %p, off its kernel stack [%p, +%#x)",
		      t->comm, t->pid, f, t->stack, KSTACK_SIZE);
}

void exit_to_user_mode(struct trap_frame *f)
{
	check_user_frame(f);
	for (;;) {
		struct process *p = current_process();

		if (need_resched()) {
			local_irq_enable();
			schedule();
		} else if (rseq_pending(p)) {
			local_irq_enable();
			rseq_handle_notify_resume(p, f);
		} else {
			rcu_user_qs(); /* no reader goes to ring 3 */
			return;
		}
		local_irq_disable();
	}
}
