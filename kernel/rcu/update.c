/*
 * Waiting for a grace period, after Linux's kernel/rcu/update.c:
 * synchronize_rcu() is call_rcu() of a callback that completes a
 * completion, and a wait for it (Linux's wait_rcu_gp()). It refuses to
 * wait where the wait could never end.
 */
#include "rcu/rcupdate.h"
#include "panic.h"
#include "printk.h"
#include "sched/completion.h"

/* The validator's rcu_read_lock (rcupdate.h): a static lock, its own
 * class, named as Linux's. */
struct lockdep_map rcu_lock_map = LOCKDEP_MAP_INIT(rcu_read_lock,
						   LD_WAIT_CONFIG);

struct rcu_synchronize {
	struct rcu_head head;
	struct completion completion;
};

static void wakeme_after_rcu(struct rcu_head *head)
{
	struct rcu_synchronize *rs = container_of(head, struct rcu_synchronize,
						  head);

	complete(&rs->completion);
}

/*
 * A caller inside a reader (rcu_read_lock(), counted in the task on RT=1
 * and, with the validator, on RT=0) would wait for a grace period that
 * waits for it: a deadlock, reported and not waited for (as the
 * rt_mutex's deadlocks are). A caller that may not sleep (preemption or
 * interrupts off, which on either RT value is also a reader) is reported
 * by might_sleep(), and does not wait either.
 */
static bool rcu_blocking_is_illegal(void)
{
	if (current->rcu_read_lock_nesting) {
		RCU_LOCKDEP_WARN(true, "Illegal synchronize_rcu() in RCU "
				 "read-side critical section");
		return true;
	}
	might_sleep();
	return !preemptible() || in_hardirq();
}

void synchronize_rcu(void)
{
	struct rcu_synchronize rs;

	if (rcu_blocking_is_illegal())
		return;
	init_completion(&rs.completion);
	call_rcu(&rs.head, wakeme_after_rcu);
	wait_for_completion(&rs.completion);
}
