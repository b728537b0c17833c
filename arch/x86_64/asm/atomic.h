/*
 * The locked read-modify-write instructions under the atomic operations
 * (Linux's arch/x86 asm/atomic.h), on a scalar of 1, 2, 4 or 8 bytes:
 * kernel/atomic.h builds atomic_t and atomic_long_t on them. Each is one
 * lock-prefixed instruction, so indivisible on every CPU and a full
 * barrier (asm/barrier.h). Inline assembly, so that the compiler neither
 * weakens nor moves them and the per-CPU checker's compiler hooks do not
 * see them.
 */
#ifndef _ASM_X86_ATOMIC_H
#define _ASM_X86_ATOMIC_H

#include <stdbool.h>
#include "asm/cmpxchg.h"

extern void __bad_atomic_size(void)
	__attribute__((error("atomic operand must be 1, 2, 4 or 8 bytes")));

/* One locked instruction "op" with the value as its source operand
 * (add, sub, and, or, xor): *ptr op= v, nothing returned. */
#define arch_atomic_rmw(op, ptr, v)                                           \
	do {                                                                  \
		__typeof__(*(ptr)) __rmw_v = (v);                             \
		switch (sizeof(*(ptr))) {                                     \
		case 1:                                                       \
			__asm__ volatile("lock " op "b %1, %0"                \
					 : "+m"(*(ptr)) : "qi"(__rmw_v)       \
					 : "memory", "cc");                   \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("lock " op "w %1, %0"                \
					 : "+m"(*(ptr)) : "ri"(__rmw_v)       \
					 : "memory", "cc");                   \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("lock " op "l %1, %0"                \
					 : "+m"(*(ptr)) : "ri"(__rmw_v)       \
					 : "memory", "cc");                   \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("lock " op "q %1, %0"                \
					 : "+m"(*(ptr)) : "re"(__rmw_v)       \
					 : "memory", "cc");                   \
			break;                                                \
		default:                                                      \
			__bad_atomic_size();                                  \
		}                                                             \
	} while (0)

/* lock xadd: *ptr += v, and the value before (Linux's xadd()). */
#define arch_xadd(ptr, v)                                                     \
	({                                                                    \
		__typeof__(*(ptr)) __xadd_v = (v);                            \
		switch (sizeof(*(ptr))) {                                     \
		case 1:                                                       \
			__asm__ volatile("lock xaddb %b0, %1"                 \
					 : "+q"(__xadd_v), "+m"(*(ptr))       \
					 : : "memory", "cc");                 \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("lock xaddw %w0, %1"                 \
					 : "+r"(__xadd_v), "+m"(*(ptr))       \
					 : : "memory", "cc");                 \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("lock xaddl %k0, %1"                 \
					 : "+r"(__xadd_v), "+m"(*(ptr))       \
					 : : "memory", "cc");                 \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("lock xaddq %q0, %1"                 \
					 : "+r"(__xadd_v), "+m"(*(ptr))       \
					 : : "memory", "cc");                 \
			break;                                                \
		default:                                                      \
			__bad_atomic_size();                                  \
		}                                                             \
		__xadd_v;                                                     \
	})

#endif
