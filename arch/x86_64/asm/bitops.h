/*
 * Bit operations on a bitmap of unsigned longs, as Linux's arch/x86
 * asm/bitops.h: bit nr is bit nr % BITS_PER_LONG of word nr /
 * BITS_PER_LONG.
 *
 * set_bit() and clear_bit() are atomic: one locked instruction on the
 * bit's word, so two CPUs changing different bits of one word never lose
 * each other's change (a plain `|=` would: load, or, store). As in
 * Linux they return nothing and, in its memory model, order nothing:
 * a caller that needs order says so with smp_mb__before_atomic() or
 * smp_mb__after_atomic() (asm/barrier.h); on x86 the lock prefix is a
 * full barrier and those are only compiler barriers. test_bit() is one
 * READ_ONCE() of the word: the bit as it was at some instant.
 */
#ifndef _ASM_X86_BITOPS_H
#define _ASM_X86_BITOPS_H

#include <stdbool.h>
#include "compiler.h"
#include "rwonce.h"
#include "asm/atomic.h"

#define BITS_PER_LONG 64
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1ul << ((nr) % BITS_PER_LONG))

static __always_inline void set_bit(long nr, unsigned long *addr)
{
	arch_atomic_rmw("or", &addr[BIT_WORD(nr)], BIT_MASK(nr));
}

static __always_inline void clear_bit(long nr, unsigned long *addr)
{
	arch_atomic_rmw("and", &addr[BIT_WORD(nr)], ~BIT_MASK(nr));
}

static __always_inline bool test_bit(long nr, const unsigned long *addr)
{
	return READ_ONCE(addr[BIT_WORD(nr)]) & BIT_MASK(nr);
}

#endif
