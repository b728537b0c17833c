/*
 * The allocators' statistics counters: objects in use per size class,
 * shared-lock acquisitions. Each is an array of per-CPU counters that a
 * CPU bumps with one %gs: instruction (safe in any context, hardirq
 * included) and a reader sums over the CPUs. A sum taken while CPUs are
 * counting is a snapshot, exact once they stop.
 *
 * Every use goes through these four macros, so that turning the counters
 * into percpu_counters (batched, with an exact _sum()) changes this file
 * only.
 */
#ifndef MM_STAT_H
#define MM_STAT_H

#include "percpu.h"
#include "locking/spinlock.h"

/* n counters named name[0..n); per-CPU statistics, which the per-CPU
 * checker skips: a bump is one instruction and needs no lock. */
#define MM_STAT_DEFINE(name, n) static DEFINE_PER_CPU_STAT(long, name[n])

#define mm_stat_add(name, i, v) this_cpu_add(name[i], (long)(v))
#define mm_stat_inc(name, i) this_cpu_inc(name[i])

/* One CPU's share of counter i; the sum over CPUs is what counts. */
#define mm_stat_cpu(name, i, cpu) (*raw_per_cpu_ptr(&(name)[i], (cpu)))

#define mm_stat_sum(name, i)                                                  \
	({                                                                    \
		long mm_sum_ = 0;                                             \
		int mm_cpu_;                                                  \
		for_each_possible_cpu(mm_cpu_)                                \
			mm_sum_ += __atomic_load_n(                           \
				&mm_stat_cpu(name, i, mm_cpu_),               \
				__ATOMIC_RELAXED);                            \
		mm_sum_;                                                      \
	})

/* raw_spin_lock_irqsave() of a shared allocator lock, counted in
 * name[0]: the acquisitions the per-CPU caches exist to save. Evaluates
 * to the saved flags. */
#define mm_lock_irqsave_counted(lock, name)                                   \
	({                                                                    \
		unsigned long mm_flags_;                                      \
		raw_spin_lock_irqsave(lock, mm_flags_);                       \
		mm_stat_inc(name, 0);                                         \
		mm_flags_;                                                    \
	})

#endif
