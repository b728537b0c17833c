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
#include "locking/lockdep_fast.h"
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

/*
 * The validator's view (LOCKDEP=1, docs/rcu.md section 6): the outermost
 * reader is a held lock of class rcu_read_lock, acquired at its site. A
 * spinlock_t-like lock (LD_WAIT_CONFIG) that waits for nobody
 * (LOCK_NO_DEPS) and keeps nobody out (LOCK_SHARED); on RT=0 the
 * acquisition says it turned preemption off, so that a spinlock_t taken
 * inside is not a sleep with preemption off.
 * The nesting is counted in the task on RT=0 too, for the validator.
 */
extern struct lockdep_map rcu_lock_map;

#ifdef CONFIG_LOCKDEP
#define RCU_LOCK_FLAGS                                                        \
	(LOCK_NO_DEPS | LOCK_SHARED |                                         \
	 (IS_ENABLED(CONFIG_PREEMPT_RT) ? 0 : LOCK_PREEMPT_OFF))

static __always_inline void rcu_lock_acquire(void)
{
	struct task_struct *t = current;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		t->rcu_read_lock_nesting++;
	if (t->rcu_read_lock_nesting == 1)
		lock_acquire(&rcu_lock_map, 0, RCU_LOCK_FLAGS, 0);
}

static __always_inline void rcu_lock_release(void)
{
	struct task_struct *t = current;

	if (t->rcu_read_lock_nesting == 1)
		lock_release(&rcu_lock_map, 0);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		t->rcu_read_lock_nesting--;
}
#else
static __always_inline void rcu_lock_acquire(void)
{
}

static __always_inline void rcu_lock_release(void)
{
}
#endif

static __always_inline void rcu_read_lock(void)
{
	__rcu_read_lock();
	rcu_lock_acquire();
}

static __always_inline void rcu_read_unlock(void)
{
	rcu_lock_release();
	__rcu_read_unlock();
}

/* Whether the caller is inside a reader: its rcu_read_lock() nesting,
 * counted on RT=1 and, for the validator, on RT=0 with LOCKDEP=1; RT=0
 * without the validator counts any section with preemption off, which
 * is one too. */
static inline bool rcu_read_lock_held(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) || IS_ENABLED(CONFIG_LOCKDEP))
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

/* A suspicious-RCU-usage report when c holds (LOCKDEP=1), once per site
 * until lockdep_reset(); otherwise c is not even evaluated. */
#ifdef CONFIG_LOCKDEP
#define RCU_LOCKDEP_WARN(c, s)                                                \
	do {                                                                  \
		static unsigned int __rcu_warned;                             \
		if (unlikely(c))                                              \
			lockdep_rcu_suspicious(&__rcu_warned, __FILE__,       \
					       __LINE__, (s));                \
	} while (0)
#else
#define RCU_LOCKDEP_WARN(c, s) do { } while (0 && (c))
#endif

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
