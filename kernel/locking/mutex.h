/*
 * Sleeping mutexes, on rt_mutex. With PREEMPT_RT they inherit priority
 * (waiters by priority, the owner boosted), as RT Linux's do; without it
 * they are plain FIFO sleeping locks like mainline Linux's mutex: the same
 * code with priority inheritance switched off for the lock (no_pi).
 */
#ifndef MUTEX_H
#define MUTEX_H

#include "compiler.h"
#include <stddef.h>
#include "debug/explore.h"
#include "locking/lockdep_fast.h"
#include "locking/rtmutex.h"

/* dep_map aliases the rt_mutex's (see spinlock_t). */
struct mutex {
	union {
		struct rt_mutex rtmutex;
		struct {
			char __pad[offsetof(struct rt_mutex, dep_map)];
			struct lockdep_map dep_map;
		};
	};
};

#ifdef CONFIG_PREEMPT_RT
#define MUTEX_NO_PI false
#else
#define MUTEX_NO_PI true
#endif

#define __MUTEX_INITIALIZER(lockname)                                         \
	{.rtmutex = {.owner = 0, .no_pi = MUTEX_NO_PI, .name = #lockname,     \
		     .dep_map = LOCKDEP_MAP_INIT(lockname, LD_WAIT_SLEEP)}}
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)

static inline void __mutex_init(struct mutex *m, const char *name,
				struct lock_class_key *key)
{
	__rt_mutex_init(&m->rtmutex, name, key, LD_WAIT_SLEEP); /* checks */
	m->rtmutex.no_pi = MUTEX_NO_PI;
}

#define mutex_init(m)                                                         \
	do {                                                                  \
		static struct lock_class_key __key;                           \
		__mutex_init((m), #m, &__key);                                \
	} while (0)

static __always_inline void mutex_lock_nested(struct mutex *m,
					      unsigned int subclass)
{
	explore_point(EXPLORE_MUTEX_LOCK);
	lock_acquire(&m->dep_map, subclass, 0, 0);
	if (__rt_mutex_lock(&m->rtmutex))
		lock_release(&m->dep_map, 0); /* a deadlock: not taken */
}

static __always_inline void mutex_lock(struct mutex *m)
{
	mutex_lock_nested(m, 0);
}

static __always_inline bool mutex_trylock(struct mutex *m)
{
	lockdep_trylock(&m->dep_map);
	if (!__rt_mutex_trylock(&m->rtmutex))
		return false;
	lock_acquire(&m->dep_map, 0, LOCK_TRYLOCK, 0);
	return true;
}

static __always_inline void mutex_unlock(struct mutex *m)
{
	if (lock_release(&m->dep_map, 0))
		__rt_mutex_unlock(&m->rtmutex);
	explore_point(EXPLORE_MUTEX_UNLOCK);
}

static inline bool mutex_is_locked(struct mutex *m)
{
	return rt_mutex_is_locked(&m->rtmutex);
}

#endif
