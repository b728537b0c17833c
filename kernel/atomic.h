/*
 * Atomic variables, as Linux's include/linux/atomic.h: atomic_t (an int)
 * and atomic_long_t (a long), and the operations Linux's code is written
 * with. The instructions are the arch's (asm/atomic.h, asm/cmpxchg.h);
 * this file gives them their generic names and builds the compound ones
 * (inc_not_zero, add_unless, the fetch_ forms of and/andnot/or/xor) as
 * try_cmpxchg() loops, as Linux's generic fallbacks do, and the
 * _relaxed/_acquire/_release forms of add_return, fetch_add, xchg,
 * cmpxchg and try_cmpxchg.
 *
 * Ordering, as in Linux: atomic_read() and atomic_set() are READ_ONCE()
 * and WRITE_ONCE() and order nothing; every operation that returns a
 * value (add_return, fetch_*, xchg, cmpxchg, dec_and_test, ...) is fully
 * ordered; the void ones (atomic_inc(), atomic_add(), ...) are unordered
 * in Linux's model, and need smp_mb__before_atomic()/__after_atomic()
 * around them where order matters. On x86 every one of them is a locked
 * instruction, so a full barrier: the code still says which order it
 * relies on, as Linux's must.
 *
 * The same as one declaration for both types: ATOMIC_OPS(atomic, atomic_t,
 * int) and ATOMIC_OPS(atomic_long, atomic_long_t, long) expand to the
 * static inline functions atomic_<op>() and atomic_long_<op>().
 */
#ifndef ATOMIC_H
#define ATOMIC_H

#include <stdbool.h>
#include "compiler.h"
#include "rwonce.h"
#include "asm/atomic.h"
#include "asm/barrier.h"
#include "asm/cmpxchg.h"

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(i) {(i)}
#define ATOMIC_LONG_INIT(i) {(i)}

/* The generic names of the arch's exchange instructions, any scalar. */
#define xchg(ptr, v) arch_xchg(ptr, v)
#define cmpxchg(ptr, old, new) arch_cmpxchg(ptr, old, new)
#define try_cmpxchg(ptr, pold, new) arch_try_cmpxchg(ptr, pold, new)

/*
 * Linux's ordering variants of a value-returning operation: _relaxed
 * (atomic, orders nothing), _acquire (later accesses stay after it) and
 * _release (earlier ones stay before it). Code says the weakest order it
 * needs, for the reader and for weaker CPUs; on x86 each is the fully
 * ordered locked instruction.
 */
#define ATOMIC_ORDERED(pfx, atype, T, op, R, params, args)                    \
	static __always_inline R pfx##_##op##_relaxed params                  \
	{                                                                     \
		return pfx##_##op args;                                       \
	}                                                                     \
	static __always_inline R pfx##_##op##_acquire params                  \
	{                                                                     \
		return pfx##_##op args;                                       \
	}                                                                     \
	static __always_inline R pfx##_##op##_release params                  \
	{                                                                     \
		return pfx##_##op args;                                       \
	}

#define ATOMIC_OPS(pfx, atype, T)                                             \
	static __always_inline T pfx##_read(const atype *v)                   \
	{                                                                     \
		return READ_ONCE(v->counter);                                 \
	}                                                                     \
	static __always_inline void pfx##_set(atype *v, T i)                  \
	{                                                                     \
		WRITE_ONCE(v->counter, i);                                    \
	}                                                                     \
	static __always_inline T pfx##_read_acquire(const atype *v)           \
	{                                                                     \
		return smp_load_acquire(&v->counter);                         \
	}                                                                     \
	static __always_inline void pfx##_set_release(atype *v, T i)          \
	{                                                                     \
		smp_store_release(&v->counter, i);                            \
	}                                                                     \
	static __always_inline void pfx##_add(T i, atype *v)                  \
	{                                                                     \
		arch_atomic_rmw("add", &v->counter, i);                       \
	}                                                                     \
	static __always_inline void pfx##_sub(T i, atype *v)                  \
	{                                                                     \
		arch_atomic_rmw("sub", &v->counter, i);                       \
	}                                                                     \
	static __always_inline void pfx##_inc(atype *v)                       \
	{                                                                     \
		arch_atomic_rmw("add", &v->counter, 1);                       \
	}                                                                     \
	static __always_inline void pfx##_dec(atype *v)                       \
	{                                                                     \
		arch_atomic_rmw("sub", &v->counter, 1);                       \
	}                                                                     \
	static __always_inline void pfx##_and(T i, atype *v)                  \
	{                                                                     \
		arch_atomic_rmw("and", &v->counter, i);                       \
	}                                                                     \
	static __always_inline void pfx##_or(T i, atype *v)                   \
	{                                                                     \
		arch_atomic_rmw("or", &v->counter, i);                        \
	}                                                                     \
	static __always_inline void pfx##_xor(T i, atype *v)                  \
	{                                                                     \
		arch_atomic_rmw("xor", &v->counter, i);                       \
	}                                                                     \
	static __always_inline T pfx##_fetch_add(T i, atype *v)               \
	{                                                                     \
		return arch_xadd(&v->counter, i);                             \
	}                                                                     \
	static __always_inline T pfx##_fetch_sub(T i, atype *v)               \
	{                                                                     \
		return arch_xadd(&v->counter, -i);                            \
	}                                                                     \
	static __always_inline T pfx##_add_return(T i, atype *v)              \
	{                                                                     \
		return arch_xadd(&v->counter, i) + i;                         \
	}                                                                     \
	static __always_inline T pfx##_sub_return(T i, atype *v)              \
	{                                                                     \
		return arch_xadd(&v->counter, -i) - i;                        \
	}                                                                     \
	static __always_inline T pfx##_inc_return(atype *v)                  \
	{                                                                     \
		return pfx##_add_return(1, v);                                \
	}                                                                     \
	static __always_inline T pfx##_dec_return(atype *v)                   \
	{                                                                     \
		return pfx##_sub_return(1, v);                                \
	}                                                                     \
	static __always_inline T pfx##_xchg(atype *v, T i)                    \
	{                                                                     \
		return arch_xchg(&v->counter, i);                             \
	}                                                                     \
	static __always_inline T pfx##_cmpxchg(atype *v, T old, T new)        \
	{                                                                     \
		return arch_cmpxchg(&v->counter, old, new);                   \
	}                                                                     \
	static __always_inline bool pfx##_try_cmpxchg(atype *v, T *old, T new) \
	{                                                                     \
		return arch_try_cmpxchg(&v->counter, old, new);               \
	}                                                                     \
	static __always_inline T pfx##_fetch_and(T i, atype *v)               \
	{                                                                     \
		T old = pfx##_read(v);                                        \
		while (!pfx##_try_cmpxchg(v, &old, old & i))                  \
			;                                                     \
		return old;                                                   \
	}                                                                     \
	static __always_inline T pfx##_fetch_or(T i, atype *v)                \
	{                                                                     \
		T old = pfx##_read(v);                                        \
		while (!pfx##_try_cmpxchg(v, &old, old | i))                  \
			;                                                     \
		return old;                                                   \
	}                                                                     \
	static __always_inline T pfx##_fetch_xor(T i, atype *v)               \
	{                                                                     \
		T old = pfx##_read(v);                                        \
		while (!pfx##_try_cmpxchg(v, &old, old ^ i))                  \
			;                                                     \
		return old;                                                   \
	}                                                                     \
	static __always_inline T pfx##_fetch_inc(atype *v)                    \
	{                                                                     \
		return arch_xadd(&v->counter, 1);                             \
	}                                                                     \
	static __always_inline T pfx##_fetch_dec(atype *v)                    \
	{                                                                     \
		return arch_xadd(&v->counter, -1);                            \
	}                                                                     \
	static __always_inline void pfx##_andnot(T i, atype *v)               \
	{                                                                     \
		arch_atomic_rmw("and", &v->counter, ~i);                      \
	}                                                                     \
	static __always_inline T pfx##_fetch_andnot(T i, atype *v)            \
	{                                                                     \
		return pfx##_fetch_and(~i, v);                                \
	}                                                                     \
	ATOMIC_ORDERED(pfx, atype, T, add_return, T, (T i, atype *v), (i, v)) \
	ATOMIC_ORDERED(pfx, atype, T, fetch_add, T, (T i, atype *v), (i, v))  \
	ATOMIC_ORDERED(pfx, atype, T, xchg, T, (atype *v, T i), (v, i))       \
	ATOMIC_ORDERED(pfx, atype, T, cmpxchg, T, (atype *v, T o, T n),       \
		       (v, o, n))                                             \
	ATOMIC_ORDERED(pfx, atype, T, try_cmpxchg, bool,                      \
		       (atype *v, T *o, T n), (v, o, n))                      \
	static __always_inline bool pfx##_sub_and_test(T i, atype *v)         \
	{                                                                     \
		return pfx##_sub_return(i, v) == 0;                           \
	}                                                                     \
	static __always_inline bool pfx##_dec_and_test(atype *v)              \
	{                                                                     \
		return pfx##_dec_return(v) == 0;                              \
	}                                                                     \
	static __always_inline bool pfx##_inc_and_test(atype *v)              \
	{                                                                     \
		return pfx##_inc_return(v) == 0;                              \
	}                                                                     \
	static __always_inline bool pfx##_add_negative(T i, atype *v)         \
	{                                                                     \
		return pfx##_add_return(i, v) < 0;                            \
	}                                                                     \
	/* Add a unless the value is u; the value before either way. */      \
	static __always_inline T pfx##_fetch_add_unless(atype *v, T a, T u)   \
	{                                                                     \
		T c = pfx##_read(v);                                          \
		do {                                                          \
			if (unlikely(c == u))                                 \
				break;                                        \
		} while (!pfx##_try_cmpxchg(v, &c, c + a));                   \
		return c;                                                     \
	}                                                                     \
	static __always_inline bool pfx##_add_unless(atype *v, T a, T u)      \
	{                                                                     \
		return pfx##_fetch_add_unless(v, a, u) != u;                  \
	}                                                                     \
	/* The take-a-reference-if-alive primitive: false when it was 0. */  \
	static __always_inline bool pfx##_inc_not_zero(atype *v)              \
	{                                                                     \
		return pfx##_add_unless(v, 1, 0);                             \
	}                                                                     \
	/* Decrement unless that would go below 0; the new value, or the     \
	 * negative one it would have had when it did not. */                \
	static __always_inline T pfx##_dec_if_positive(atype *v)              \
	{                                                                     \
		T c = pfx##_read(v);                                          \
		do {                                                          \
			if (unlikely(c - 1 < 0))                              \
				return c - 1;                                 \
		} while (!pfx##_try_cmpxchg(v, &c, c - 1));                   \
		return c - 1;                                                 \
	}

ATOMIC_OPS(atomic, atomic_t, int)
ATOMIC_OPS(atomic_long, atomic_long_t, long)

#undef ATOMIC_OPS
#undef ATOMIC_ORDERED

#endif
