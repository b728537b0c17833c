/* Wait queues (see wait.h). */
#include "sched/wait.h"

void init_waitqueue_head(struct wait_queue_head *wq)
{
	raw_spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w,
		     int state)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&wq->lock, flags);
	if (list_empty(&w->entry))
		list_add_tail(&w->entry, &wq->head);
	set_current_state(state);
	raw_spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags;

	set_current_state(TASK_RUNNING);
	raw_spin_lock_irqsave(&wq->lock, flags);
	if (!list_empty(&w->entry))
		list_del_init(&w->entry);
	raw_spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up(struct wait_queue_head *wq)
{
	struct wait_queue_entry *w;
	unsigned long flags;

	preempt_disable(); /* preempt, if a woken task should, at the end */
	raw_spin_lock_irqsave(&wq->lock, flags);
	list_for_each_entry(w, &wq->head, entry)
		wake_up_process(w->task);
	raw_spin_unlock_irqrestore(&wq->lock, flags);
	preempt_enable();
}
