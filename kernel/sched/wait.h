/*
 * Wait queues, as in Linux: a task waits for a condition by queueing
 * itself and sleeping; whoever makes the condition true wakes the queue.
 *
 * The order that makes this race-free: the waiter queues itself and sets
 * its state, *then* tests the condition; the waker sets the condition,
 * *then* wakes. Either the waiter sees the condition, or the waker sees
 * the waiter queued and makes it runnable again.
 */
#ifndef WAIT_H
#define WAIT_H

#include "list.h"
#include "sched/sched.h"
#include "locking/spinlock.h"

struct wait_queue_head {
	raw_spinlock_t lock;
	struct list_head head;
};

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry;
};

#define DECLARE_WAIT_QUEUE_HEAD(name)                                         \
	struct wait_queue_head name = {__RAW_SPIN_LOCK_UNLOCKED(name.lock),   \
				       LIST_HEAD_INIT(name.head)}

void init_waitqueue_head(struct wait_queue_head *wq);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w,
		     int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
/* Wake every waiter (each re-tests its condition). */
void wake_up(struct wait_queue_head *wq);

#define wait_event(wq, cond)                                                  \
	do {                                                                  \
		struct wait_queue_entry we__ = {.task = current};             \
		INIT_LIST_HEAD(&we__.entry);                                  \
		for (;;) {                                                    \
			prepare_to_wait(&(wq), &we__, TASK_UNINTERRUPTIBLE);  \
			if (cond)                                             \
				break;                                        \
			schedule();                                           \
		}                                                             \
		finish_wait(&(wq), &we__);                                    \
	} while (0)

/* As wait_event, for at most timeout_ns; true if cond became true. */
#define wait_event_timeout(wq, cond, timeout_ns)                              \
	({                                                                    \
		struct wait_queue_entry we__ = {.task = current};             \
		uint64_t left__ = (timeout_ns);                               \
		bool ok__;                                                    \
		INIT_LIST_HEAD(&we__.entry);                                  \
		for (;;) {                                                    \
			prepare_to_wait(&(wq), &we__, TASK_UNINTERRUPTIBLE);  \
			if ((ok__ = (cond)) || left__ == 0)                   \
				break;                                        \
			left__ = schedule_timeout(left__);                    \
		}                                                             \
		finish_wait(&(wq), &we__);                                    \
		ok__;                                                         \
	})

#endif
