/*
 * Reference counts that cannot wrap, as Linux's include/linux/refcount.h.
 *
 * An atomic_t used as a reference count turns a bug into a use after
 * free: one get too many wraps it past INT_MAX to negative, one put too
 * many takes it below zero, and a get on a count already at zero revives
 * an object that is being freed. refcount_t checks each of those, warns
 * (once per kind, with the stack, "refcount_t: ..."; every one counted,
 * refcount_warnings()) and saturates: the count is set to
 * REFCOUNT_SATURATED, far from both zero and the wrap, where it stays. A
 * saturated object is leaked, never freed twice or used after free.
 *
 * Ordering, as Linux's: a get (inc, add, inc_not_zero) orders nothing, a
 * put (dec_and_test, sub_and_test) is a release, and the put that returns
 * true is also an acquire, so the one who frees sees every other holder's
 * accesses. On x86 each is a locked instruction: the comments are the
 * contract a weaker CPU would need.
 */
#ifndef REFCOUNT_H
#define REFCOUNT_H

#include <stdbool.h>
#include "atomic.h"

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n) {.refs = ATOMIC_INIT(n)}
#define REFCOUNT_MAX __INT_MAX__
#define REFCOUNT_SATURATED ((-__INT_MAX__ - 1) / 2)

/* What refcount_warn_saturate() is told went wrong (Linux's names). */
enum refcount_saturation_type {
	REFCOUNT_ADD_NOT_ZERO_OVF, /* inc_not_zero/add_not_zero overflowed */
	REFCOUNT_ADD_OVF,          /* inc/add overflowed */
	REFCOUNT_ADD_UAF,          /* inc/add on 0: a use after free */
	REFCOUNT_SUB_UAF,          /* a put below 0: a use after free */
	REFCOUNT_DEC_LEAK,         /* refcount_dec() hit 0: nobody frees it */
	REFCOUNT_NR_SATURATION_TYPES
};

/* old + i without C's undefined signed overflow: the wrap is what is
 * being checked for. */
static inline int refcount_wrap_add(int old, int i)
{
	return (int)((unsigned int)old + (unsigned int)i);
}

/* Saturate r and warn (refcount.c). */
void refcount_warn_saturate(refcount_t *r, enum refcount_saturation_type t);
/* How many warnings of kind t since boot (for tests). */
unsigned long refcount_warnings(enum refcount_saturation_type t);

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

/* Add i unless the count is 0; false (nothing added) when it was. */
static inline bool refcount_add_not_zero(int i, refcount_t *r)
{
	int old = atomic_read(&r->refs);

	do {
		if (!old)
			break;
	} while (!atomic_try_cmpxchg(&r->refs, &old, old + i));
	if (unlikely(old < 0 || refcount_wrap_add(old, i) < 0))
		refcount_warn_saturate(r, REFCOUNT_ADD_NOT_ZERO_OVF);
	return old;
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	return refcount_add_not_zero(1, r);
}

/* A new reference, where the caller already holds one (so never 0). */
static inline void refcount_add(int i, refcount_t *r)
{
	int old = atomic_fetch_add(i, &r->refs);

	if (unlikely(!old))
		refcount_warn_saturate(r, REFCOUNT_ADD_UAF);
	else if (unlikely(old < 0 || refcount_wrap_add(old, i) < 0))
		refcount_warn_saturate(r, REFCOUNT_ADD_OVF);
}

static inline void refcount_inc(refcount_t *r)
{
	refcount_add(1, r);
}

/* Drop i references; true when they were the last: free the object. */
static inline bool refcount_sub_and_test(int i, refcount_t *r)
{
	int old = atomic_fetch_sub(i, &r->refs);

	if (old == i) {
		smp_acquire__after_ctrl_dep();
		return true;
	}
	if (unlikely(old < 0 || refcount_wrap_add(old, -i) < 0))
		refcount_warn_saturate(r, REFCOUNT_SUB_UAF);
	return false;
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	return refcount_sub_and_test(1, r);
}

/* Drop a reference that is known not to be the last. */
static inline void refcount_dec(refcount_t *r)
{
	if (unlikely(atomic_fetch_sub(1, &r->refs) <= 1))
		refcount_warn_saturate(r, REFCOUNT_DEC_LEAK);
}

#endif
