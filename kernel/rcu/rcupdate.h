/*
 * RCU, read-copy update, with Linux's names (include/linux/rcupdate.h;
 * docs/rcu.md): readers mark their sections with rcu_read_lock() and
 * rcu_read_unlock() and take nothing shared; a writer publishes a new
 * version with rcu_assign_pointer() and frees the old one only after a
 * grace period, by which time every reader that could have seen it has
 * left its section: synchronize_rcu() waits for one, call_rcu() and
 * kfree_rcu() have the free done after one.
 *
 * RT=0: a reader is a section with preemption off (Linux's
 * non-preemptible Tree RCU), and every section with preemption or
 * interrupts off is one. RT=1 (PREEMPT_RT, Linux's preemptible RCU): a
 * reader stays preemptible, its nesting is counted in the task, and a
 * reader preempted inside its section holds up grace periods until it
 * leaves it.
 */
#ifndef RCUPDATE_H
#define RCUPDATE_H

#include <stdbool.h>
#include <stddef.h>
#include "compiler.h"
#include "preempt.h"
#include "rwonce.h"
#include "asm/barrier.h"
#include "rcu/rcu_types.h"
#include "sched/sched.h"

/* ---- readers ---- */

/* RT=1: the slow part of the outermost unlock, when the section was
 * preempted (tree_plugin.c). */
void rcu_read_unlock_special(struct task_struct *t);

static __always_inline void __rcu_read_lock(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		current->rcu_read_lock_nesting++;
		barrier(); /* the section's accesses after the count */
	} else {
		preempt_disable();
	}
}

static __always_inline void __rcu_read_unlock(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		struct task_struct *t = current;

		barrier(); /* the section's accesses before the count */
		if (--t->rcu_read_lock_nesting == 0) {
			/* The flag after the count: a preemption between
			 * the two finds the section over and sets nothing. */
			barrier();
			if (unlikely(READ_ONCE(t->rcu_read_unlock_special.s)))
				rcu_read_unlock_special(t);
		}
	} else {
		preempt_enable();
	}
}

static __always_inline void rcu_read_lock(void)
{
	__rcu_read_lock();
}

static __always_inline void rcu_read_unlock(void)
{
	__rcu_read_unlock();
}

/* Whether the caller is inside a reader. RT=0 counts any section with
 * preemption off, which is one. */
static inline bool rcu_read_lock_held(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return current->rcu_read_lock_nesting > 0;
	return !preemptible();
}

/* The depth of the task's readers (RT=1; 0 on RT=0, where a reader is
 * the preempt count), as Linux's rcu_preempt_depth(). */
static inline int rcu_preempt_depth(void)
{
	return IS_ENABLED(CONFIG_PREEMPT_RT) ? current->rcu_read_lock_nesting
					     : 0;
}

/* ---- pointers ---- */

#define RCU_LOCKDEP_WARN(c, s) do { } while (0 && (c))

/*
 * rcu_dereference(p): p's value, loaded once (READ_ONCE), for a reader:
 * the loads made through it see at least what the writer's
 * rcu_assign_pointer() published (x86 orders dependent loads).
 * _check(p, c): also legal where c holds (a writer holding the lock that
 * orders the updates); _protected(p, c): where only c makes it legal,
 * the writer's side, a plain load.
 */
#define rcu_dereference_check(p, c)                                           \
	({                                                                    \
		__typeof__(*(p)) *__rcu_p = READ_ONCE(p);                     \
		RCU_LOCKDEP_WARN(!((c) || rcu_read_lock_held()),              \
				 "suspicious rcu_dereference_check() usage"); \
		__rcu_p;                                                      \
	})
#define rcu_dereference(p) rcu_dereference_check(p, 0)
#define rcu_dereference_protected(p, c)                                       \
	({                                                                    \
		RCU_LOCKDEP_WARN(!(c), "suspicious "                          \
				 "rcu_dereference_protected() usage");        \
		(p);                                                          \
	})
/* The value only, not to be dereferenced (a test against NULL). */
#define rcu_access_pointer(p) READ_ONCE(p)

/* Publish v: the stores that initialised *v are visible before p is. */
#define rcu_assign_pointer(p, v) smp_store_release(&(p), (__typeof__(p))(v))
/* No ordering: for NULL, or before any reader can see p. */
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, (__typeof__(p))(v))

/* ---- writers ---- */

/* Wait until every reader that began before the call has ended. Sleeps. */
void synchronize_rcu(void);
/* func(head) after a grace period, on this CPU, in its rcuc thread. Any
 * context. func must not sleep on anything but the locks a reader may
 * take (docs/rcu.md). */
void call_rcu(struct rcu_head *head, rcu_callback_t func);
/* Wait until every callback queued before the call has run. Sleeps. */
void rcu_barrier(void);

/*
 * kfree_rcu(ptr, field): kfree(ptr) after a grace period, field being
 * ptr's struct rcu_head. As Linux's classic __kfree_rcu(): the callback
 * is the field's offset, which no function address is (below 4096), and
 * the invoker frees head - offset.
 */
#define __is_kfree_rcu_offset(offset) ((offset) < 4096)
#define kfree_rcu(ptr, field)                                                 \
	do {                                                                  \
		_Static_assert(__is_kfree_rcu_offset(                         \
				       offsetof(__typeof__(*(ptr)), field)),  \
			       "kfree_rcu: rcu_head too far into the object"); \
		call_rcu(&(ptr)->field,                                       \
			 (rcu_callback_t)offsetof(__typeof__(*(ptr)), field)); \
	} while (0)

/*
 * Polled grace periods (Linux's): a cookie names the end of the first
 * grace period that starts after the call; poll says whether it is over;
 * start_poll also asks for it; cond_synchronize_rcu() waits only if it
 * is not.
 */
unsigned long get_state_synchronize_rcu(void);
unsigned long start_poll_synchronize_rcu(void);
bool poll_state_synchronize_rcu(unsigned long oldstate);
void cond_synchronize_rcu(unsigned long oldstate);

#endif
