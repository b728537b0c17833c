/*
 * The lock types behind one interface, the only place that tells them
 * apart: a table of operations and facts indexed by kind, a reference to
 * one lock of any kind, a pool of locks of every kind, and a helper task
 * that holds such a lock until told to let go. Adding a lock type is
 * adding a row here and in lock_kind.c.
 *
 * Each operation is the lock's own call made through a pointer, so a
 * lockdep report names the wrapper in lock_kind.c as the acquisition
 * site. The benchmarks time pairs(), a loop that calls the lock directly:
 * an indirect call per acquisition would be part of what they time.
 */
#ifndef LOCK_KIND_H
#define LOCK_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include "ktest.h"
#include "lockdep.h"
#include "rtmutex.h"

enum lock_kind {
	LOCK_RAW,     /* raw_spinlock_t */
	LOCK_SPIN,    /* spinlock_t */
	LOCK_LOCAL,   /* local_lock_t, a per-CPU lock */
	LOCK_MUTEX,   /* struct mutex */
	LOCK_RTMUTEX, /* struct rt_mutex */
	NR_LOCK_KINDS
};

/* How a lock is taken: the spinning locks have _irq and _irqsave forms;
 * local_lock_t has no _irq form (LOCK_IRQ takes the _irqsave one); the
 * sleeping locks have one form, which every form takes. */
enum lock_form { LOCK_PLAIN, LOCK_IRQ, LOCK_IRQSAVE, NR_LOCK_FORMS };

/* What holding a lock adds to its holder's context. */
struct lock_ctx {
	int preempt;   /* to preempt_count() */
	int migrate;   /* to current->migration_disabled */
	bool irqs_off; /* IRQs are off inside, whatever they were */
};

/* The running task's context, in those terms (irqs_off: they are off). */
struct lock_ctx lock_ctx_now(void);

/* now is base with what holding adds (held: a struct lock_ctx *). */
#define KEXPECT_HELD_CTX(now, base, held)                                     \
	do {                                                                  \
		KEXPECT_EQ((now).preempt, (base).preempt + (held)->preempt);  \
		KEXPECT_EQ((now).migrate, (base).migrate + (held)->migrate);  \
		KEXPECT_EQ((now).irqs_off,                                    \
			   (base).irqs_off || (held)->irqs_off);              \
	} while (0)

struct lock_kind_ops {
	const char *name;                /* the C type */
	bool sleeps;                     /* the holder stays preemptible */
	bool rt_sleeps;                  /* sleeps on PREEMPT_RT, the rule the
					  * validator checks in both builds */
	bool percpu;                     /* one lock per CPU */
	struct lock_ctx held[NR_LOCK_FORMS];
	/* The lock's own result: rt_mutex_lock()'s, else 0. A subclass
	 * other than 0 takes the plain form's *_nested() call. */
	int (*lock)(void *l, enum lock_form form, unsigned int subclass,
		    unsigned long *flags);
	void (*unlock)(void *l, enum lock_form form, unsigned long flags);
	bool (*trylock)(void *l);        /* NULL: local_lock_t has none */
	bool (*is_locked)(void *l);      /* NULL: RT=0 local_lock_t */
	struct rt_mutex *(*rtmutex)(void *l); /* the one underneath, or NULL */
	/* Initialises l again (a per-CPU lock: every CPU's copy where it
	 * has state) with the class of key, or of this kind's pool if NULL. */
	void (*init)(void *l, struct lock_class_key *key);
	/* n plain acquire+release pairs, each incrementing *count inside;
	 * pair i takes the lock stride bytes after pair i-1's. */
	void (*pairs)(void *l, size_t stride, int n, long *count);
	void *pool;                      /* LOCK_POOL_SIZE locks */
	size_t size;                     /* one lock's size */
};

extern const struct lock_kind_ops lock_kinds[NR_LOCK_KINDS];

/*
 * The pool: LOCK_POOL_SIZE locks of each kind for the suites and
 * benchmarks that run over every kind (a per-CPU kind's by their per-CPU
 * template address). Each user initialises a pool lock before it uses it;
 * until then it may hold whatever the last user left.
 */
#define LOCK_POOL_SIZE 129

static inline void *lock_pool(enum lock_kind k, int i)
{
	return (char *)lock_kinds[k].pool + i * lock_kinds[k].size;
}

/* n pairs over pool locks first, first + step, first + 2 * step, ... */
static inline void lock_pool_pairs(enum lock_kind k, int first, int step,
				   int n, long *count)
{
	lock_kinds[k].pairs(lock_pool(k, first), step * lock_kinds[k].size, n,
			    count);
}

/* One lock of any kind (a local_lock_t by its per-CPU template address;
 * the other operations act on this CPU's copy), the form it is taken in,
 * its lockdep subclass and, once held in the _irqsave form, the flags to
 * restore. */
struct any_lock {
	enum lock_kind kind;
	void *lock;
	enum lock_form form;
	unsigned int subclass;
	unsigned long flags;
};

#define ANY_LOCK_FORM(kind_, l, form_)                                        \
	((struct any_lock){.kind = (kind_), .lock = (l), .form = (form_)})
#define ANY_LOCK(kind_, l) ANY_LOCK_FORM(kind_, l, LOCK_PLAIN)

static inline const struct lock_kind_ops *any_lock_ops(const struct any_lock *a)
{
	return &lock_kinds[a->kind];
}

/* What holding a takes in its form adds to the holder's context. */
static inline const struct lock_ctx *any_lock_held_ctx(const struct any_lock *a)
{
	return &any_lock_ops(a)->held[a->form];
}

static inline int any_lock_acquire(struct any_lock *a)
{
	return any_lock_ops(a)->lock(a->lock, a->form, a->subclass, &a->flags);
}

static inline void any_lock_release(struct any_lock *a)
{
	any_lock_ops(a)->unlock(a->lock, a->form, a->flags);
}

static inline bool any_lock_trylock(struct any_lock *a)
{
	return any_lock_ops(a)->trylock(a->lock);
}

static inline bool any_lock_is_locked(struct any_lock *a)
{
	return any_lock_ops(a)->is_locked(a->lock);
}

static inline struct rt_mutex *any_lock_rtmutex(struct any_lock *a)
{
	return any_lock_ops(a)->rtmutex ? any_lock_ops(a)->rtmutex(a->lock) : 0;
}

/*
 * A helper task (lock_holder_fn) that takes lock (of any kind but
 * local_lock_t, which has no state to check on RT=0), sets held, keeps it
 * until release is set (sleeping for a lock that sleeps, spinning for one
 * that spins; or until its test has ended), notes whether it still held
 * it (owned it, for a lock with an rt_mutex underneath), lets go and sets
 * done.
 */
struct lock_holder {
	struct any_lock lock;
	volatile int held, release, done;
	bool held_at_release;
};

int lock_holder_fn(void *arg);

#endif
