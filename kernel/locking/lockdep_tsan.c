/*
 * The compiler's eyes for the per-CPU checker (docs/lockdep.md, "Seen by
 * the compiler"). With TSAN=1 (a LOCKDEP=1 build), the tests are compiled
 * with GCC's -fsanitize=thread, as Linux's KCSAN compiles the kernel:
 * each plain load and store becomes a call to __tsan_readN/__tsan_writeN
 * with its address, each __atomic builtin a call to __tsan_atomicN_*
 * that must do the operation itself. The hooks are filters: an address
 * outside every CPU's per-CPU area (nearly all of them) returns at once;
 * one inside CPU c's area at template offset var is CPU c's copy of the
 * variable at var, whatever pointer reached it, and goes to the checker
 * (lockdep_percpu_access_rw()) as a load or a store.
 *
 * Not checked: atomics (one indivisible operation each: no protection
 * is needed, as for one this_cpu_* instruction), the template itself (no
 * CPU runs on it after boot) and DEFINE_PER_CPU_STAT data (the checker
 * skips it). Volatile accesses are checked: unlike KCSAN, which looks
 * for torn accesses, the checker looks for missing protection, and a
 * volatile read-modify-write of a copy loses an update like any other.
 *
 * Re-entry: this file, the validator and the locks are not instrumented
 * (the Makefile's TSAN_EXCLUDE leaves kernel/locking/ out), so the
 * checker never calls a hook; a hook called from an interrupt that came
 * in the middle of a hook reaches the checker, which runs with interrupts
 * off, only between two of its calls; NMIs are turned away by the
 * checker.
 */
#ifdef CONFIG_LOCKDEP_TSAN

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "locking/lockdep.h"
#include "percpu.h"
#include "sched/sched.h"

/* [lo, hi): every CPU's area lies inside (0, 0 until they exist). */
static uintptr_t tsan_lo, tsan_hi;
static int tsan_nr_cpus;

/* setup_per_cpu_areas(): the areas exist; the filter opens. A CPU with
 * no offset has no area (the template is no CPU's copy): then the filter
 * stays shut. */
void lockdep_tsan_areas_ready(int nr_cpus)
{
	uintptr_t size = (uintptr_t)(__per_cpu_end - __per_cpu_start);
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		uintptr_t start = (uintptr_t)__per_cpu_start +
				  __per_cpu_offset[cpu];

		if (!__per_cpu_offset[cpu])
			return;
		lo = start < lo ? start : lo;
		hi = start + size > hi ? start + size : hi;
	}
	tsan_nr_cpus = nr_cpus;
	tsan_lo = lo;
	tsan_hi = hi;
}

/* The address is inside the span of the areas: whose, if anyone's. */
static __attribute__((noinline)) void tsan_percpu(uintptr_t a,
						  unsigned long size,
						  bool write, unsigned long ip)
{
	uintptr_t tsize = (uintptr_t)(__per_cpu_end - __per_cpu_start);

	if (!current)
		return; /* a CPU on its way in, before its first task */
	for (int cpu = 0; cpu < tsan_nr_cpus; cpu++) {
		uintptr_t var = a - __per_cpu_offset[cpu];

		if (var - (uintptr_t)__per_cpu_start < tsize) {
			lockdep_percpu_access_rw((const void *)var, size, cpu,
						 ip, write);
			return;
		}
	}
}

static __always_inline void tsan_access(const void *p, unsigned long size,
					bool write, unsigned long ip)
{
	uintptr_t a = (uintptr_t)p;

	if (unlikely(a - tsan_lo < tsan_hi - tsan_lo))
		tsan_percpu(a, size, write, ip);
}

#define TSAN_RW(n)                                                            \
	void __tsan_read##n(void *p);                                         \
	void __tsan_read##n(void *p)                                          \
	{                                                                     \
		tsan_access(p, n, false, _RET_IP_);                           \
	}                                                                     \
	void __tsan_write##n(void *p);                                        \
	void __tsan_write##n(void *p)                                         \
	{                                                                     \
		tsan_access(p, n, true, _RET_IP_);                            \
	}                                                                     \
	void __tsan_unaligned_read##n(void *p);                               \
	void __tsan_unaligned_read##n(void *p)                                \
	{                                                                     \
		tsan_access(p, n, false, _RET_IP_);                           \
	}                                                                     \
	void __tsan_unaligned_write##n(void *p);                              \
	void __tsan_unaligned_write##n(void *p)                               \
	{                                                                     \
		tsan_access(p, n, true, _RET_IP_);                            \
	}

TSAN_RW(1)
TSAN_RW(2)
TSAN_RW(4)
TSAN_RW(8)
TSAN_RW(16)

void __tsan_read_range(void *p, unsigned long size);
void __tsan_read_range(void *p, unsigned long size)
{
	tsan_access(p, size, false, _RET_IP_);
}

void __tsan_write_range(void *p, unsigned long size);
void __tsan_write_range(void *p, unsigned long size)
{
	tsan_access(p, size, true, _RET_IP_);
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
 * order was asked (stronger is always correct), and not checked.
 */
#define TSAN_ATOMIC_OP(n, T, op)                                              \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo);                \
	T __tsan_atomic##n##_##op(volatile T *p, T v, int mo)                 \
	{                                                                     \
		return __atomic_##op(p, v, __ATOMIC_SEQ_CST);                 \
	}

/* Weak or strong, the same strong compare-and-exchange: a weak one may
 * fail spuriously, so never failing spuriously is one of its outcomes. */
#define TSAN_CMPXCHG(n, T, kind)                                              \
	int __tsan_atomic##n##_compare_exchange_##kind(volatile T *p, T *old, \
						       T v, int mo, int fmo); \
	int __tsan_atomic##n##_compare_exchange_##kind(volatile T *p, T *old, \
						       T v, int mo, int fmo)  \
	{                                                                     \
		return __atomic_compare_exchange_n(p, old, v, false,          \
						   __ATOMIC_SEQ_CST,          \
						   __ATOMIC_SEQ_CST);         \
	}

#define TSAN_ATOMIC(n, T)                                                     \
	T __tsan_atomic##n##_load(const volatile T *p, int mo);               \
	T __tsan_atomic##n##_load(const volatile T *p, int mo)                \
	{                                                                     \
		return __atomic_load_n(p, __ATOMIC_SEQ_CST);                  \
	}                                                                     \
	void __tsan_atomic##n##_store(volatile T *p, T v, int mo);            \
	void __tsan_atomic##n##_store(volatile T *p, T v, int mo)             \
	{                                                                     \
		__atomic_store_n(p, v, __ATOMIC_SEQ_CST);                     \
	}                                                                     \
	TSAN_ATOMIC_OP(n, T, fetch_add)                                       \
	TSAN_ATOMIC_OP(n, T, fetch_sub)                                       \
	TSAN_ATOMIC_OP(n, T, fetch_and)                                       \
	TSAN_ATOMIC_OP(n, T, fetch_or)                                        \
	TSAN_ATOMIC_OP(n, T, fetch_xor)                                       \
	TSAN_ATOMIC_OP(n, T, fetch_nand)                                      \
	T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo);            \
	T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo)             \
	{                                                                     \
		return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);           \
	}                                                                     \
	TSAN_CMPXCHG(n, T, strong)                                            \
	TSAN_CMPXCHG(n, T, weak)                                              \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T old, T v,  \
						  int mo, int fmo);           \
	T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T old, T v,  \
						  int mo, int fmo)            \
	{                                                                     \
		__atomic_compare_exchange_n(p, &old, v, false,                \
					    __ATOMIC_SEQ_CST,                 \
					    __ATOMIC_SEQ_CST);                \
		return old;                                                   \
	}

TSAN_ATOMIC(8, uint8_t)
TSAN_ATOMIC(16, uint16_t)
TSAN_ATOMIC(32, uint32_t)
TSAN_ATOMIC(64, uint64_t)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#endif /* CONFIG_LOCKDEP_TSAN */
