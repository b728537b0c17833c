/* Wait queues (see wait.h). */
#include "wait.h"

void init_waitqueue_head(struct wait_queue_head *wq)
{
	wq->lock = (arch_spinlock_t)ARCH_SPIN_LOCK_UNLOCKED;
	INIT_LIST_HEAD(&wq->head);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w,
		     int state)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&wq->lock);
	if (list_empty(&w->entry))
		list_add_tail(&w->entry, &wq->head);
	set_current_state(state);
	arch_spin_unlock(&wq->lock);
	local_irq_restore(flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags;

	set_current_state(TASK_RUNNING);
	local_irq_save(flags);
	arch_spin_lock(&wq->lock);
	if (!list_empty(&w->entry))
		list_del_init(&w->entry);
	arch_spin_unlock(&wq->lock);
	local_irq_restore(flags);
}

void wake_up(struct wait_queue_head *wq)
{
	struct wait_queue_entry *w;
	unsigned long flags;

	preempt_disable(); /* preempt, if a woken task should, at the end */
	local_irq_save(flags);
	arch_spin_lock(&wq->lock);
	list_for_each_entry(w, &wq->head, entry)
		wake_up_process(w->task);
	arch_spin_unlock(&wq->lock);
	local_irq_restore(flags);
	preempt_enable();
}
