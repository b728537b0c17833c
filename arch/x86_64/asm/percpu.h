/*
 * The arch half of per-CPU access: each operation is one instruction with
 * a %gs: segment override. GS base holds this CPU's per-CPU offset (its
 * area minus the template), so "%gs:var(%rip)" addresses this CPU's copy of
 * var. One instruction cannot be split by an interrupt or a preemption, so
 * these need no protection of their own; xchg is the one with an implicit
 * lock prefix (x86 gives it one whether asked or not).
 *
 * Operand sizes 1, 2, 4 and 8 are supported; any other size is a compile
 * error (the call to __bad_percpu_size() survives only then).
 */
#ifndef _ASM_X86_PERCPU_H
#define _ASM_X86_PERCPU_H

#include "asm/processor.h"

extern void __bad_percpu_size(void)
	__attribute__((error("per-CPU operand must be 1, 2, 4 or 8 bytes")));

#define percpu_read_op(var)                                                   \
	({                                                                    \
		unsigned long pco_ret__;                                      \
		switch (sizeof(var)) {                                        \
		case 1:                                                       \
			__asm__ volatile("movzbl %%gs:%1, %k0"                \
					 : "=r"(pco_ret__) : "m"(var));       \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("movzwl %%gs:%1, %k0"                \
					 : "=r"(pco_ret__) : "m"(var));       \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("movl %%gs:%1, %k0"                  \
					 : "=r"(pco_ret__) : "m"(var));       \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("movq %%gs:%1, %0"                   \
					 : "=r"(pco_ret__) : "m"(var));       \
			break;                                                \
		default:                                                      \
			__bad_percpu_size();                                  \
			pco_ret__ = 0;                                        \
		}                                                             \
		(__typeof__(var))pco_ret__;                                   \
	})

/*
 * A read the compiler may cache (Linux's this_cpu_read_stable(), behind
 * `current`): for a value that never changes under the code reading it.
 * The asm is not volatile and names the variable only by its address, so
 * two reads in one function are one load, hoisted out of loops and past
 * barrier(). Only for 8-byte values that are set before the first reader
 * runs and change only at a context switch, which changes them together
 * with the stack of the code that reads them.
 */
#define percpu_stable_read_op(var)                                            \
	({                                                                    \
		unsigned long psr_ret__;                                      \
		_Static_assert(sizeof(var) == 8, "stable per-CPU reads are " \
			       "8 bytes");                                    \
		__asm__("movq %%gs:%P1, %0" : "=r"(psr_ret__) : "p"(&(var))); \
		(__typeof__(var))psr_ret__;                                   \
	})

/* op is an instruction mnemonic without its size suffix ("mov", "add"). */
#define percpu_to_op(op, var, val)                                            \
	do {                                                                  \
		__typeof__(var) pto_val__ = (val);                            \
		switch (sizeof(var)) {                                        \
		case 1:                                                       \
			__asm__ volatile(op "b %1, %%gs:%0"                   \
					 : "+m"(var) : "qi"(pto_val__));      \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile(op "w %1, %%gs:%0"                   \
					 : "+m"(var) : "ri"(pto_val__));      \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile(op "l %1, %%gs:%0"                   \
					 : "+m"(var) : "ri"(pto_val__));      \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile(op "q %1, %%gs:%0"                   \
					 : "+m"(var) : "re"(pto_val__));      \
			break;                                                \
		default:                                                      \
			__bad_percpu_size();                                  \
		}                                                             \
	} while (0)

/* inc/dec as their own instructions: shorter than add $1. */
#define percpu_unary_op(op, var)                                              \
	do {                                                                  \
		switch (sizeof(var)) {                                        \
		case 1:                                                       \
			__asm__ volatile(op "b %%gs:%0" : "+m"(var));         \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile(op "w %%gs:%0" : "+m"(var));         \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile(op "l %%gs:%0" : "+m"(var));         \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile(op "q %%gs:%0" : "+m"(var));         \
			break;                                                \
		default:                                                      \
			__bad_percpu_size();                                  \
		}                                                             \
	} while (0)

/* xchg and cmpxchg return the old value; cmpxchg stores nval only when the
 * old value equals oval. No lock prefix on cmpxchg: only this CPU writes
 * its copy, so atomicity against its own interrupts is all that is needed. */
#define percpu_xchg_op(var, nval)                                             \
	({                                                                    \
		__typeof__(var) pxo_ret__ = (nval);                           \
		switch (sizeof(var)) {                                        \
		case 1:                                                       \
			__asm__ volatile("xchgb %0, %%gs:%1"                  \
					 : "+q"(pxo_ret__), "+m"(var));       \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("xchgw %0, %%gs:%1"                  \
					 : "+r"(pxo_ret__), "+m"(var));       \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("xchgl %0, %%gs:%1"                  \
					 : "+r"(pxo_ret__), "+m"(var));       \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("xchgq %0, %%gs:%1"                  \
					 : "+r"(pxo_ret__), "+m"(var));       \
			break;                                                \
		default:                                                      \
			__bad_percpu_size();                                  \
		}                                                             \
		pxo_ret__;                                                    \
	})

#define percpu_cmpxchg_op(var, oval, nval)                                    \
	({                                                                    \
		__typeof__(var) pco_old__ = (oval);                           \
		__typeof__(var) pco_new__ = (nval);                           \
		switch (sizeof(var)) {                                        \
		case 1:                                                       \
			__asm__ volatile("cmpxchgb %2, %%gs:%1"               \
					 : "+a"(pco_old__), "+m"(var)         \
					 : "q"(pco_new__));                   \
			break;                                                \
		case 2:                                                       \
			__asm__ volatile("cmpxchgw %2, %%gs:%1"               \
					 : "+a"(pco_old__), "+m"(var)         \
					 : "r"(pco_new__));                   \
			break;                                                \
		case 4:                                                       \
			__asm__ volatile("cmpxchgl %2, %%gs:%1"               \
					 : "+a"(pco_old__), "+m"(var)         \
					 : "r"(pco_new__));                   \
			break;                                                \
		case 8:                                                       \
			__asm__ volatile("cmpxchgq %2, %%gs:%1"               \
					 : "+a"(pco_old__), "+m"(var)         \
					 : "r"(pco_new__));                   \
			break;                                                \
		default:                                                      \
			__bad_percpu_size();                                  \
		}                                                             \
		pco_old__;                                                    \
	})

/* Make this CPU's %gs: accesses land in its per-CPU area, off bytes from
 * the template, and leave both of its GS bases as the kernel keeps them
 * while it runs: swapgs on entry from and exit to ring 3 exchanges the
 * two (entry.asm, docs/usermode.md). */
static inline void arch_set_percpu_base(unsigned long off)
{
	/* LAB1 BEGIN */
	wrmsr(MSR_GS_BASE, off);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	/* LAB1 END */
}

static inline unsigned long arch_percpu_base(void)
{
	return rdmsr(MSR_GS_BASE);
}

#endif
