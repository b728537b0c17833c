/*
 * Memory barriers on x86-64, with Linux's names (arch/x86's asm/barrier.h
 * and the generic layer above it, in one file: there is one arch).
 *
 * x86 is TSO: a CPU's loads are not reordered with its other loads, nor
 * its stores with its other stores, nor a store with an earlier load. The
 * one reordering the hardware makes is a store followed by a load of
 * another location: the load may complete first, while the store waits in
 * the store buffer. So:
 *   smp_rmb(), smp_wmb()       only stop the compiler (barrier());
 *   smp_load_acquire()         a plain load, then barrier();
 *   smp_store_release()        barrier(), then a plain store;
 *   smp_mb()                   a locked instruction (a full fence: it
 *                              drains the store buffer), Linux's
 *                              "lock; addl $0,-4(%rsp)", cheaper than
 *                              mfence and just as strong for ordinary
 *                              memory;
 *   mb(), rmb(), wmb()         the fence instructions, for ordering
 *                              against devices (MMIO), not other CPUs.
 * Every atomic read-modify-write (asm/atomic.h, asm/cmpxchg.h) is a
 * locked instruction, hence a full barrier already: the
 * smp_mb__before_atomic()/__after_atomic() pair is barrier() here.
 */
#ifndef _ASM_X86_BARRIER_H
#define _ASM_X86_BARRIER_H

#include "compiler.h"
#include "rwonce.h"

#define mb() __asm__ volatile("mfence" ::: "memory")
#define rmb() __asm__ volatile("lfence" ::: "memory")
#define wmb() __asm__ volatile("sfence" ::: "memory")

/* -4(%rsp) is below the stack pointer, but this kernel has no red zone
 * (-mno-red-zone), so no live data is there; the add changes nothing. */
#define smp_mb() __asm__ volatile("lock addl $0, -4(%%rsp)" ::: "memory", "cc")
#define smp_rmb() barrier()
#define smp_wmb() barrier()

#define smp_mb__before_atomic() barrier()
#define smp_mb__after_atomic() barrier()

/* A store, then a full barrier: for "set my state, then look at yours"
 * (set_current_state() before testing the wake-up condition). xchg is
 * locked on x86 whether asked or not, so it is the store and the fence. */
#define smp_store_mb(var, value)                                              \
	do {                                                                  \
		__typeof__(var) __smb_v = (value);                            \
		__asm__ volatile("xchg %0, %1"                                \
				 : "+r"(__smb_v), "+m"(var)                   \
				 :                                            \
				 : "memory");                                 \
	} while (0)

/* Acquire: no later access moves before the load. Release: no earlier
 * access moves after the store. TSO gives both for plain moves; only the
 * compiler must be held back. */
#define smp_load_acquire(p)                                                   \
	({                                                                    \
		__unqual_scalar_typeof(*(p)) __sla_v = READ_ONCE(*(p));       \
		barrier();                                                    \
		__sla_v;                                                      \
	})

#define smp_store_release(p, v)                                               \
	do {                                                                  \
		barrier();                                                    \
		WRITE_ONCE(*(p), (v));                                        \
	} while (0)

/* After a load whose value a branch tested, later stores cannot pass the
 * load (no CPU speculates stores); making later loads wait too takes a
 * barrier against the load/load reordering TSO does not make anyway. */
#define smp_acquire__after_ctrl_dep() barrier()

/* Wait until cond_expr (which may use VAL, the loaded value) holds, with
 * acquire ordering on the load that saw it hold: Linux's
 * smp_cond_load_acquire(), spinning with pause. */
#define smp_cond_load_acquire(p, cond_expr)                                   \
	({                                                                    \
		__unqual_scalar_typeof(*(p)) VAL;                             \
		for (;;) {                                                    \
			VAL = READ_ONCE(*(p));                                \
			if (cond_expr)                                        \
				break;                                        \
			__asm__ volatile("pause" ::: "memory");               \
		}                                                             \
		barrier();                                                    \
		VAL;                                                          \
	})

#endif
