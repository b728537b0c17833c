/*
 * Sleeping mutexes, on rt_mutex. With PREEMPT_RT they inherit priority
 * (waiters by priority, the owner boosted), as RT Linux's do; without it
 * they are plain FIFO sleeping locks like mainline Linux's mutex: the same
 * code with priority inheritance switched off for the lock (no_pi).
 */
#ifndef MUTEX_H
#define MUTEX_H

#include "rtmutex.h"

struct mutex {
	struct rt_mutex rtmutex;
};

#ifdef CONFIG_PREEMPT_RT
#define MUTEX_NO_PI false
#else
#define MUTEX_NO_PI true
#endif

#define __MUTEX_INITIALIZER(lockname)                                         \
	{.rtmutex = {.owner = 0, .no_pi = MUTEX_NO_PI, .name = #lockname}}
#define DEFINE_MUTEX(name) struct mutex name = __MUTEX_INITIALIZER(name)

static inline void mutex_init(struct mutex *m)
{
	rt_mutex_init(&m->rtmutex);
	m->rtmutex.no_pi = MUTEX_NO_PI;
}

static inline void mutex_lock(struct mutex *m)
{
	rt_mutex_lock(&m->rtmutex);
}

static inline bool mutex_trylock(struct mutex *m)
{
	return rt_mutex_trylock(&m->rtmutex);
}

static inline void mutex_unlock(struct mutex *m)
{
	rt_mutex_unlock(&m->rtmutex);
}

static inline bool mutex_is_locked(struct mutex *m)
{
	return rt_mutex_is_locked(&m->rtmutex);
}

#endif
