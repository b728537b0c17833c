/*
 * The compiler's eyes for the per-CPU checker (docs/lockdep.md, "Seen by
 * the compiler"). With TSAN=1 (a LOCKDEP=1 build), the core and the tests
 * are compiled with GCC's -fsanitize=thread, as Linux's KCSAN compiles
 * the kernel: each plain load and store becomes a call to
 * __tsan_readN/__tsan_writeN with its address, each __atomic builtin a
 * call to __tsan_atomicN_* that must do the operation itself.
 *
 * The assembler has already filtered the calls (arch/x86_64/tsan_call.S):
 * an address below the per-CPU region (nearly all of them) makes no
 * call, and a READ_ONCE()/WRITE_ONCE() (a volatile access, a marked one
 * in KCSAN's words: racy on purpose) none at all. What reaches the hooks
 * below is an address in the top GiB, where CPU c's area is slot c
 * (asm/page.h): the slot and the offset in it name CPU c's copy of the
 * variable at that template offset, whatever pointer reached it. A
 * settled repeat (lockdep_percpu.h) ends here; the rest goes to the
 * checker (lockdep_percpu_access_rw()) as a load or a store.
 *
 * Not checked: atomics (one indivisible operation each: no protection is
 * needed, as for one this_cpu_* instruction), marked accesses, the
 * template itself (not in the region: no CPU runs on it after boot) and
 * DEFINE_PER_CPU_STAT and _UNCHECKED data (the checker skips them).
 *
 * Re-entry: this file, the validator and the locks are not instrumented
 * (the Makefile's TSAN_EXCLUDE), so the checker never calls a hook; a
 * hook called from an interrupt that came in the middle of a hook
 * reaches the checker, which runs with interrupts off, only between two
 * of its calls; NMIs are turned away by the checker.
 */
#ifdef CONFIG_LOCKDEP_TSAN

#include <stdbool.h>
#include <stdint.h>

#include "atomic.h"
#include "compiler.h"
#include "locking/lockdep.h"
#include "locking/lockdep_percpu.h"
#include "percpu.h"

/*
 * Not a settled repeat: CPU cpu's area at byte off of the template, if
 * that CPU has an area and the byte is checked data (not the statistics
 * and unchecked data, not past the template), goes to the checker. The
 * hooks jump here (a sibling call, the Makefile's flags for this file),
 * so the return address is the instrumented access's and the hook leaves
 * no frame in a report's backtrace.
 */
static __attribute__((noinline)) void tsan_check(uintptr_t a,
						 unsigned long size,
						 bool write)
{
	uintptr_t rel = a - PERCPU_REGION;
	uintptr_t off = rel & (PERCPU_AREA_STRIDE - 1);
	uintptr_t stat = (uintptr_t)(__per_cpu_stat_start - __per_cpu_start);
	uintptr_t nr_stat = (uintptr_t)(__per_cpu_stat_end -
					__per_cpu_stat_start);
	unsigned int cpu = rel >> PERCPU_AREA_SHIFT;

	if ((cpu >= READ_ONCE(lockdep_percpu_nr_areas)) |
	    (off >= (uintptr_t)(__per_cpu_end - __per_cpu_start)) |
	    (off - stat < nr_stat))
		return;
	lockdep_percpu_access_rw(__per_cpu_start + off, size, cpu, _RET_IP_,
				 write);
}

/*
 * An address at or above PERCPU_REGION (the inline filter let it
 * through), so in CPU (a - PERCPU_REGION) / PERCPU_AREA_STRIDE's slot: a
 * settled repeat ends here, in a leaf with no frame of its own; anything
 * else is looked at closely. An address in the slot of a CPU without an
 * area is a wild pointer, which faults here, reading the shadow, rather
 * than at its own access.
 */
static __always_inline void tsan_access(void *p, unsigned long size,
					bool write)
{
	uintptr_t a = (uintptr_t)p;

	if (unlikely(!lockdep_percpu_settled(a, (a - PERCPU_REGION) >>
						  PERCPU_AREA_SHIFT, write)))
		return tsan_check(a, size, write);
}

#define TSAN_RW(n)                                                            \
	void __tsan_read##n(void *p);                                         \
	void __tsan_read##n(void *p)                                          \
	{                                                                     \
		tsan_access(p, n, false);                           \
	}                                                                     \
	void __tsan_write##n(void *p);                                        \
	void __tsan_write##n(void *p)                                         \
	{                                                                     \
		tsan_access(p, n, true);                            \
	}

TSAN_RW(1)
TSAN_RW(2)
TSAN_RW(4)
TSAN_RW(8)
TSAN_RW(16)

void __tsan_read_range(void *p, unsigned long size);
void __tsan_read_range(void *p, unsigned long size)
{
	tsan_access(p, size, false);
}

void __tsan_write_range(void *p, unsigned long size);
void __tsan_write_range(void *p, unsigned long size)
{
	tsan_access(p, size, true);
}

/* Entry and exit hooks are turned off (the Makefile's TSAN_CFLAGS);
 * these are for an object built without that parameter. */
void __tsan_func_entry(void *ret);
void __tsan_func_entry(void *ret)
{
}

void __tsan_func_exit(void);
void __tsan_func_exit(void)
{
}

/* Called by each instrumented object's constructor, which nothing runs. */
void __tsan_init(void);
void __tsan_init(void)
{
}

/*
 * The atomics: the operation itself, sequentially consistent whatever
 * order was asked (stronger is always correct; on x86 every locked
 * instruction is a full barrier, and a plain load is as strong as a
 * sequentially consistent one), and not checked. GCC still emits these
 * for an __atomic builtin left in instrumented code; the kernel's own
 * atomics are inline assembly (asm/atomic.h, asm/cmpxchg.h), which the
 * compiler does not instrument.
 */
#define TSAN_ATOMIC_XADD(n, T, op, sign)                                     \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo);                \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo)                 \
	{                                                                     \
		return arch_xadd((T *)p, (T)(sign v));                        \
	}

/* The bitwise ones are compare-and-exchange loops, as Linux's generic
 * atomic fallbacks. */
#define TSAN_ATOMIC_LOOP(n, T, op, expr)                                      \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo);                \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo)                 \
	{                                                                     \
		T old = READ_ONCE(*(T *)p);                                   \
		while (!try_cmpxchg((T *)p, &old, (T)(expr)))                 \
			;                                                     \
		return old;                                                   \
	}

/* Weak or strong, the same strong compare-and-exchange: a weak one may
 * fail spuriously, so never failing spuriously is one of its outcomes. */
#define TSAN_CMPXCHG(n, T, kind)                                              \
	int __tsan_atomic##n##_compare_exchange_##kind(volatile T *p, T *old, \
						       T v, int mo, int fmo); \
	int __tsan_atomic##n##_compare_exchange_##kind(volatile T *p, T *old, \
						       T v, int mo, int fmo)  \
	{                                                                     \
		return try_cmpxchg((T *)p, old, v);                           \
	}

#define TSAN_ATOMIC(n, T)                                                     \
	T __tsan_atomic##n##_load(const volatile T *p, int mo);               \
	T __tsan_atomic##n##_load(const volatile T *p, int mo)                \
	{                                                                     \
		return smp_load_acquire((const T *)p);                        \
	}                                                                     \
	void __tsan_atomic##n##_store(volatile T *p, T v, int mo);            \
	void __tsan_atomic##n##_store(volatile T *p, T v, int mo)             \
	{                                                                     \
		smp_store_mb(*(T *)p, v);                                     \
	}                                                                     \
	TSAN_ATOMIC_XADD(n, T, fetch_add, +)                                  \
	TSAN_ATOMIC_XADD(n, T, fetch_sub, -)                                  \
	TSAN_ATOMIC_LOOP(n, T, fetch_and, old & v)                            \
	TSAN_ATOMIC_LOOP(n, T, fetch_or, old | v)                             \
	TSAN_ATOMIC_LOOP(n, T, fetch_xor, old ^ v)                            \
	TSAN_ATOMIC_LOOP(n, T, fetch_nand, ~(old & v))                        \
	T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo);            \
	T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo)             \
	{                                                                     \
		return xchg((T *)p, v);                                       \
	}                                                                     \
	TSAN_CMPXCHG(n, T, strong)                                            \
	TSAN_CMPXCHG(n, T, weak)                                              \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T old, T v,  \
						  int mo, int fmo);           \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T old, T v,  \
						  int mo, int fmo)            \
	{                                                                     \
		return cmpxchg((T *)p, old, v);                               \
	}

TSAN_ATOMIC(8, uint8_t)
TSAN_ATOMIC(16, uint16_t)
TSAN_ATOMIC(32, uint32_t)
TSAN_ATOMIC(64, uint64_t)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	smp_mb();
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	barrier();
}

#endif /* CONFIG_LOCKDEP_TSAN */
