/*
 * The lock types behind one interface, for the suites that run one
 * scenario over each of them (locks, locks_rt, lockdep): a table of
 * operations indexed by kind, a reference to one lock of any kind, and a
 * helper task that holds such a lock until told to let go.
 *
 * Each operation is the lock's own call made through a pointer, so a
 * lockdep report names the wrapper in lock_kind.c as the acquisition
 * site. The benchmarks call the locks directly: an indirect call would
 * be part of what they time.
 */
#ifndef LOCK_KIND_H
#define LOCK_KIND_H

#include <stdbool.h>
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

struct lock_kind_ops {
	const char *name;                /* the C type */
	bool sleeps;                     /* the holder stays preemptible */
	bool irq_forms_disable_irqs;     /* _irq/_irqsave turn IRQs off */
	void (*lock)(void *l, enum lock_form form, unsigned long *flags);
	void (*unlock)(void *l, enum lock_form form, unsigned long flags);
	bool (*trylock)(void *l);        /* NULL: local_lock_t has none */
	bool (*is_locked)(void *l);      /* NULL: RT=0 local_lock_t */
	struct rt_mutex *(*rtmutex)(void *l); /* the one underneath, or NULL */
};

extern const struct lock_kind_ops lock_kinds[NR_LOCK_KINDS];

/* One lock of any kind (a local_lock_t by its per-CPU template address;
 * the other operations act on this CPU's copy), the form it is taken in
 * and, once held in the _irqsave form, the flags to restore. */
struct any_lock {
	enum lock_kind kind;
	void *lock;
	enum lock_form form;
	unsigned long flags;
};

#define ANY_LOCK_FORM(kind_, l, form_)                                        \
	((struct any_lock){.kind = (kind_), .lock = (l), .form = (form_)})
#define ANY_LOCK(kind_, l) ANY_LOCK_FORM(kind_, l, LOCK_PLAIN)

static inline const struct lock_kind_ops *any_lock_ops(const struct any_lock *a)
{
	return &lock_kinds[a->kind];
}

static inline void any_lock_acquire(struct any_lock *a)
{
	any_lock_ops(a)->lock(a->lock, a->form, &a->flags);
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
 * that spins; at most HOLDER_MAX_MS), notes whether it still held it
 * (owned it, for a lock with an rt_mutex underneath), lets go and sets
 * done.
 */
#define HOLDER_MAX_MS 10000

struct lock_holder {
	struct any_lock lock;
	volatile int held, release, done;
	bool held_at_release;
};

int lock_holder_fn(void *arg);

#endif
