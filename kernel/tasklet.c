/*
 * Tasklets, after Linux's kernel/softirq.c: each CPU's list of scheduled
 * tasklets, run by TASKLET_SOFTIRQ. TASKLET_STATE_SCHED says "on a list"
 * (scheduling twice queues once); TASKLET_STATE_RUN says "running
 * somewhere": a tasklet scheduled again while it runs on another CPU is
 * put back on this CPU's list rather than run twice at once.
 */
#include "interrupt.h"
#include "locking/lockdep.h"

#define SCHED_BIT (1ul << TASKLET_STATE_SCHED)
#define RUN_BIT (1ul << TASKLET_STATE_RUN)

/* Written with this CPU's interrupts off only: tasklet_schedule() may
 * come from a hard interrupt. */
struct tasklet_head {
	struct tasklet_struct *head, **tail;
};
static DEFINE_PER_CPU(struct tasklet_head, tasklet_vec);

void tasklet_setup(struct tasklet_struct *t,
		   void (*callback)(struct tasklet_struct *t))
{
	t->next = 0;
	atomic_long_set(&t->state, 0);
	t->callback = callback;
}

/* Interrupts off. */
static void tasklet_enqueue(struct tasklet_struct *t)
{
	struct tasklet_head *h = this_cpu_ptr(&tasklet_vec);

	t->next = 0;
	if (!h->tail)
		h->tail = &h->head;
	*h->tail = t;
	h->tail = &t->next;
	raise_softirq_irqoff(TASKLET_SOFTIRQ);
}

void tasklet_schedule(struct tasklet_struct *t)
{
	unsigned long flags;

	if (atomic_long_fetch_or(SCHED_BIT, &t->state) & SCHED_BIT)
		return; /* already on a list */
	local_irq_save(flags);
	tasklet_enqueue(t);
	local_irq_restore(flags);
}

static void tasklet_action(void)
{
	struct tasklet_head *h;
	struct tasklet_struct *list;

	local_irq_disable();
	h = this_cpu_ptr(&tasklet_vec);
	list = h->head;
	h->head = 0;
	h->tail = &h->head;
	local_irq_enable();

	while (list) {
		struct tasklet_struct *t = list;

		list = list->next;
		if (atomic_long_fetch_or(RUN_BIT, &t->state) & RUN_BIT) {
			local_irq_disable(); /* running elsewhere: later */
			tasklet_enqueue(t);
			local_irq_enable();
			continue;
		}
		/* SCHED cleared before the call: a schedule from inside the
		 * callback queues it again. */
		atomic_long_fetch_and(~SCHED_BIT, &t->state);
		t->callback(t);
		atomic_long_fetch_and(~RUN_BIT, &t->state);
	}
}

/* Hotplug (CPUHP_SOFTIRQ_DEAD), Linux's takeover_tasklets(): the
 * tasklets scheduled on a CPU that went down before they ran join the end
 * of this CPU's list, in order, and run here. Nothing runs on cpu any
 * more, so its list is ours without its interrupts off: the checker
 * cannot see that (hence raw), and forgets the list's history, as
 * dev_cpu_dead() does. */
int takeover_tasklets(unsigned int cpu)
{
	struct tasklet_head *dead = raw_per_cpu_ptr(&tasklet_vec, cpu), *h;

	if (dead->head) {
		local_irq_disable();
		h = this_cpu_ptr(&tasklet_vec);
		if (!h->tail)
			h->tail = &h->head;
		*h->tail = dead->head;
		h->tail = dead->tail;
		dead->head = 0;
		dead->tail = &dead->head;
		raise_softirq_irqoff(TASKLET_SOFTIRQ);
		local_irq_enable();
	}
	lockdep_percpu_forget(&tasklet_vec, sizeof(tasklet_vec));
	return 0;
}

void tasklet_init_softirq(void)
{
	open_softirq(TASKLET_SOFTIRQ, tasklet_action);
}
