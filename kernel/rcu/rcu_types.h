/*
 * The RCU types other structures embed (Linux's include/linux/types.h
 * and sched.h parts): struct rcu_head, which every object freed by
 * call_rcu() carries, and union rcu_special, what a task's outermost
 * rcu_read_unlock() must do besides the decrement (docs/rcu.md). Apart
 * from rcupdate.h so that sched.h can put both in struct task_struct
 * without the reader's inline functions, which need struct task_struct.
 */
#ifndef RCU_TYPES_H
#define RCU_TYPES_H

#include <stdint.h>

struct rcu_head;
typedef void (*rcu_callback_t)(struct rcu_head *head);

/* Linux's callback_head: a link in a CPU's callback list, and what to
 * call once a grace period has passed. */
struct rcu_head {
	struct rcu_head *next;
	rcu_callback_t func;
};

/* Set in the task by its own preemption inside a reader (RT=1): the
 * outermost rcu_read_unlock() tests s, one load, and only then looks at
 * the bits. Written by the task itself, with interrupts off. */
union rcu_special {
	struct {
		uint8_t blocked;   /* on rcu_state.blkd_tasks */
	} b;
	uint8_t s;
};

#endif
