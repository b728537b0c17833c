/*
 * Exchange and compare-and-exchange of any 1, 2, 4 or 8 byte scalar, as
 * the locked x86 instructions (Linux's asm/cmpxchg.h). Each is one
 * instruction and a full barrier: xchg has an implicit lock prefix, and
 * cmpxchg is given one. kernel/atomic.h gives them their generic names
 * (xchg(), cmpxchg(), try_cmpxchg()).
 *
 * They are inline assembly, not the compiler's __atomic builtins, as in
 * Linux: the compiler cannot weaken or move them, and the per-CPU
 * checker's compiler hooks do not see them (an atomic needs no lock).
 *
 * A size other than 1, 2, 4 or 8 is a compile error (the call to
 * __bad_cmpxchg_size() survives only then).
 */
#ifndef _ASM_X86_CMPXCHG_H
#define _ASM_X86_CMPXCHG_H

#include <stdbool.h>

extern void __bad_cmpxchg_size(void)
	__attribute__((error("xchg/cmpxchg operand must be 1, 2, 4 or 8 bytes")));

/* Stores v into *ptr and returns what was there. */
#define arch_xchg(ptr, v)                                                     \
	({                                                                    \
		__typeof__(*(ptr)) __xchg_v = (v);                            \
		switch (sizeof(*(ptr))) {                                     \
		case 1:                                                       \
			__asm__ volatile("xchgb %b0, %1"                      \
					 : "+q"(__xchg_v), "+m"(*(ptr))       \
					 : : "memory");                       \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("xchgw %w0, %1"                      \
					 : "+r"(__xchg_v), "+m"(*(ptr))       \
					 : : "memory");                       \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("xchgl %k0, %1"                      \
					 : "+r"(__xchg_v), "+m"(*(ptr))       \
					 : : "memory");                       \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("xchgq %q0, %1"                      \
					 : "+r"(__xchg_v), "+m"(*(ptr))       \
					 : : "memory");                       \
			break;                                                \
		default:                                                      \
			__bad_cmpxchg_size();                                 \
		}                                                             \
		__xchg_v;                                                     \
	})

/* The locked cmpxchg of size suffix sfx and register modifier mod:
 * *ptr == *old ? (*ptr = new, ZF set) : (*old = *ptr, ZF clear). */
#define __raw_try_cmpxchg(ptr, old, new, sfx, mod, ok)                        \
	__asm__ volatile("lock cmpxchg" sfx " %" mod "[n], %[p]"              \
			 : "=@ccz"(ok), [p] "+m"(*(ptr)), "+a"(*(old))        \
			 : [n] "q"(new)                                       \
			 : "memory")

/*
 * If *ptr equals *old, store new and return true; else put the value
 * found in *old and return false. The form a retry loop wants: the
 * failed attempt already read the current value (Linux's try_cmpxchg()).
 */
#define arch_try_cmpxchg(ptr, old, new)                                       \
	({                                                                    \
		__typeof__(*(ptr)) __tc_new = (new);                          \
		__typeof__(*(ptr)) *__tc_old = (old);                         \
		bool __tc_ok;                                                 \
		switch (sizeof(*(ptr))) {                                     \
		case 1:                                                       \
			__raw_try_cmpxchg(ptr, __tc_old, __tc_new, "b", "b",  \
					  __tc_ok);                           \
			break;                                                \
		case 2:                                                       \
			__raw_try_cmpxchg(ptr, __tc_old, __tc_new, "w", "w",  \
					  __tc_ok);                           \
			break;                                                \
		case 4:                                                       \
			__raw_try_cmpxchg(ptr, __tc_old, __tc_new, "l", "k",  \
					  __tc_ok);                           \
			break;                                                \
		case 8:                                                       \
			__raw_try_cmpxchg(ptr, __tc_old, __tc_new, "q", "q",  \
					  __tc_ok);                           \
			break;                                                \
		default:                                                      \
			__bad_cmpxchg_size();                                 \
			__tc_ok = false;                                      \
		}                                                             \
		__tc_ok;                                                      \
	})

/* If *ptr equals old, store new; return what *ptr held (old on success). */
#define arch_cmpxchg(ptr, old, new)                                           \
	({                                                                    \
		__typeof__(*(ptr)) __c_old = (old);                           \
		arch_try_cmpxchg(ptr, &__c_old, new);                         \
		__c_old;                                                      \
	})

#endif
