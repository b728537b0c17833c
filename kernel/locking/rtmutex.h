/*
 * rt_mutex: a sleeping lock with priority inheritance, as in Linux. Its
 * owner runs at the priority of its highest-priority waiter, and that
 * donation follows chains of blocked owners (see docs/locks.md). It is
 * what spinlock_t and mutex become on PREEMPT_RT.
 */
#ifndef RTMUTEX_H
#define RTMUTEX_H

#include <stdbool.h>
#include <stdint.h>
#include "errno.h"
#include "list.h"
#include "rwonce.h"
#include "locking/lockdep.h"

struct task_struct;

/*
 * owner: the owning task, with RT_MUTEX_HAS_WAITERS in bit 0 while tasks
 * wait, so that the one-instruction fast paths (cmpxchg of NULL to
 * current, and back) fail whenever the slow path has work to do.
 * The rest is under the global chain lock (rtmutex.c).
 */
struct rt_mutex {
	uintptr_t owner;
	struct list_head waiters;    /* by priority, FIFO among equals */
	struct list_head pi_node;    /* on the owner's pi_locks while waited on */
	bool no_pi;                  /* a plain FIFO sleeping lock (mutex, RT=0) */
	const char *name;
	struct lockdep_map dep_map;  /* the validator's view (lockdep.h) */
};

#define RT_MUTEX_HAS_WAITERS 1ul

/* The lists start zeroed and are set up on first contention, so that a
 * static initialiser holds no address of the lock itself: a per-CPU
 * template's copies (local_lock_t on RT) would all point at the template. */
#define __RT_MUTEX_INIT(lockname, wt)                                         \
	{.owner = 0, .name = #lockname, .dep_map = LOCKDEP_MAP_INIT(lockname, wt)}
#define __RT_MUTEX_INITIALIZER(lockname) __RT_MUTEX_INIT(lockname, LD_WAIT_SLEEP)
#define DEFINE_RT_MUTEX(name) struct rt_mutex name = __RT_MUTEX_INITIALIZER(name)

/* A class per call site (the static key), as for every lock type. */
void __rt_mutex_init(struct rt_mutex *lock, const char *name,
		     struct lock_class_key *key, int wait_type);
#define rt_mutex_init(l)                                                      \
	do {                                                                  \
		static struct lock_class_key __key;                           \
		__rt_mutex_init((l), #l, &__key, LD_WAIT_SLEEP);              \
	} while (0)

/* 0, or -EDEADLK when waiting would close a cycle of blocked owners (the
 * cycle is reported and the lock is not taken). */
int rt_mutex_lock(struct rt_mutex *lock);
int rt_mutex_lock_nested(struct rt_mutex *lock, unsigned int subclass);
bool rt_mutex_trylock(struct rt_mutex *lock);
void rt_mutex_unlock(struct rt_mutex *lock);

/* The same without telling the validator: for spinlock_t and mutex, whose
 * inline wrappers tell it themselves, with their caller's address. */
int __rt_mutex_lock(struct rt_mutex *lock);
bool __rt_mutex_trylock(struct rt_mutex *lock);
void __rt_mutex_unlock(struct rt_mutex *lock);

static inline struct task_struct *rt_mutex_owner(const struct rt_mutex *lock)
{
	return (struct task_struct *)(READ_ONCE(lock->owner) &
				      ~RT_MUTEX_HAS_WAITERS);
}

static inline bool rt_mutex_is_locked(const struct rt_mutex *lock)
{
	return rt_mutex_owner(lock) != 0;
}

/* Make owner the owner of the free lock, without owner doing anything
 * (Linux's name): RCU boosting lends a preempted reader a priority this
 * way (kernel/rcu/tree_plugin.c). The owner releases it with
 * __rt_mutex_unlock(); the validator is not told, owner never took it. */
void rt_mutex_init_proxy_locked(struct rt_mutex *lock, struct task_struct *owner);

/* The priority a task runs at: its own or its top waiter's (internal prio
 * numbers: lower is higher). */
int rt_mutex_effective_prio(struct task_struct *p);

/* p's own priority changed: re-evaluate p and the chain it is blocked in. */
void rt_mutex_adjust_pi(struct task_struct *p);

/*
 * Adaptive spinning (rtmutex_spin.c). rt_mutex_optimistic_spin(): before
 * queueing, spin while the owner runs on another CPU and take the lock
 * when it is free; true if taken. rt_mutex_spin_on_owner(): a queued top
 * waiter spins while owner still owns lock and runs elsewhere; true when
 * the owner changed (worth another try), false when it is better to sleep.
 */
bool rt_mutex_optimistic_spin(struct rt_mutex *lock);
/* Inside an RCU reader, which keeps owner readable (docs/rcu.md). */
bool rt_mutex_spin_on_owner(struct rt_mutex *lock, struct task_struct *owner);

/* Tests only: false turns priority inheritance off for every lock, to
 * show the unbounded priority inversion it prevents. */
extern bool rt_mutex_pi_enabled;

#endif
