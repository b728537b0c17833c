/*
 * Per-CPU variables, the definitions and accessors (Linux's
 * percpu-defs.h); percpu.h adds what needs the scheduler's context and is
 * the header to include (see docs/percpu.md).
 *
 * DEFINE_PER_CPU(type, name) puts `name` in the .percpu template section.
 * At boot every possible CPU gets its own copy of the template, and its GS
 * base is set to the distance from the template to its copy,
 * __per_cpu_offset[cpu]. Then:
 *
 *   this_cpu_inc(name)      one instruction, "incl %gs:name": this CPU's copy
 *   this_cpu_ptr(&name)     &name + this CPU's offset (a plain pointer)
 *   per_cpu(name, cpu)      any CPU's copy, by its offset
 *
 * The raw_cpu_* operations here are the unchecked tier; percpu.h builds
 * this_cpu_* and __this_cpu_* on them. Anything longer than one
 * instruction (this_cpu_ptr, get_cpu_var) needs the caller to stay on the
 * CPU for as long as it uses the result.
 */
#ifndef PERCPU_DEFS_H
#define PERCPU_DEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "debug/explore.h"
#include "locking/lockdep.h"
#include "asm/percpu.h"

/* The most CPUs the kernel numbers: every cpumask has this many bits,
 * but per-CPU areas, stacks and tables exist only for the CPUs found at
 * boot. 512 covers QEMU's q35 with x2APIC (-smp 288 and more). */
#define NR_CPUS 512

#define PER_CPU_SECTION __attribute__((section(".percpu")))

#define DEFINE_PER_CPU(type, name) PER_CPU_SECTION __typeof__(type) name
#define DECLARE_PER_CPU(type, name) extern PER_CPU_SECTION __typeof__(type) name
/* Debug statistics where a rare lost update does not matter: the per-CPU
 * access checker (lockdep) skips these. They live in their own part of
 * the template, __per_cpu_stat_start..__per_cpu_stat_end. */
#define DEFINE_PER_CPU_STAT(type, name)                                       \
	__attribute__((section(".percpu.stat"))) __typeof__(type) name
#define DECLARE_PER_CPU_STAT(type, name)                                      \
	extern __attribute__((section(".percpu.stat"))) __typeof__(type) name
/* The kernel's own per-CPU data whose protection the checker cannot see:
 * run queues, timer bases and call queues, each under a lock inside it
 * that is handed over at a context switch or taken for another CPU's
 * copy on purpose, and read without it where a stale value is
 * harmless. Reached only with raw_cpu_ptr()/raw_per_cpu_ptr(); the
 * compiler's hooks (lockdep_percpu_tsan.c) skip them like the statistics. */
#define DEFINE_PER_CPU_UNCHECKED(type, name)                                  \
	__attribute__((section(".percpu.unchecked"))) __typeof__(type) name
#define DECLARE_PER_CPU_UNCHECKED(type, name)                                 \
	extern __attribute__((section(".percpu.unchecked"))) __typeof__(type) name

/* Each CPU's area minus the template: add it to a template address to get
 * that CPU's copy. Written once per CPU at boot, read-only after. */
extern unsigned long __per_cpu_offset[NR_CPUS];
extern char __per_cpu_start[], __per_cpu_end[];
extern char __per_cpu_stat_start[], __per_cpu_stat_end[];

/* The first per-CPU variable: this CPU's own offset (== its GS base), so
 * that this_cpu_ptr() needs one %gs: load and no MSR read. */
extern __attribute__((section(".percpu.first"))) unsigned long this_cpu_off;
/* This CPU's number, 0..nr_cpu_ids-1; the boot CPU is 0. */
DECLARE_PER_CPU(int, cpu_number);

#define raw_cpu_read(v)          percpu_read_op(v)
#define this_cpu_read_stable(v)  percpu_stable_read_op(v)
#define raw_cpu_write(v, x)      percpu_to_op("mov", v, x)
#define raw_cpu_add(v, x)        percpu_to_op("add", v, x)
#define raw_cpu_sub(v, x)        percpu_to_op("sub", v, x)
#define raw_cpu_inc(v)           percpu_unary_op("inc", v)
#define raw_cpu_dec(v)           percpu_unary_op("dec", v)
#define raw_cpu_xchg(v, x)       percpu_xchg_op(v, x)
#define raw_cpu_cmpxchg(v, o, n) percpu_cmpxchg_op(v, o, n)

#define SHIFT_PERCPU_PTR(ptr, off)                                            \
	((__typeof__(ptr))((uintptr_t)(ptr) + (off)))

static inline int raw_smp_processor_id(void)
{
	return raw_cpu_read(cpu_number);
}

/* Unchecked: for code whose protection the checker cannot see (the
 * scheduler's run queues under their arch locks, boot before the other
 * CPUs run, a structure reached to take the lock inside it). */
#define raw_per_cpu_ptr(ptr, cpu) SHIFT_PERCPU_PTR(ptr, __per_cpu_offset[cpu])
#define raw_cpu_ptr(ptr) SHIFT_PERCPU_PTR(ptr, raw_cpu_read(this_cpu_off))

/*
 * Checked (LOCKDEP=1): per_cpu() names a CPU's copy to use it, and
 * this_cpu_ptr() forms this CPU's pointer to use it now; each is an access
 * the per-CPU checker validates (lockdep_percpu.c). per_cpu_ptr() only
 * forms an address (to compare, to pass on, to reach a lock inside): not
 * an access. Forming a pointer to a lock is never one: the lock
 * operations validate themselves.
 */
struct raw_spinlock;
struct spinlock;
struct local_lock;
struct mutex;
struct rt_mutex;
#define __percpu_is_lock(ptr)                                                 \
	_Generic((ptr), struct raw_spinlock *: 1, struct spinlock *: 1,      \
		 struct local_lock *: 1, struct mutex *: 1,                    \
		 struct rt_mutex *: 1, default: 0)

#ifdef CONFIG_LOCKDEP
#define __percpu_check(ptr, cpu)                                              \
	do {                                                                  \
		if (!__percpu_is_lock(ptr))                                   \
			lockdep_percpu_access((ptr), sizeof(*(ptr)), (cpu),   \
					      0);                             \
	} while (0)
#else
#define __percpu_check(ptr, cpu) ((void)0)
#endif

#define per_cpu_ptr(ptr, cpu) raw_per_cpu_ptr(ptr, cpu)
#define per_cpu(var, cpu)                                                     \
	(*({                                                                  \
		int __cpu = (cpu);                                            \
		__percpu_check(&(var), __cpu);                                \
		raw_per_cpu_ptr(&(var), __cpu);                               \
	}))
#define this_cpu_ptr(ptr)                                                     \
	({                                                                    \
		__typeof__(ptr) __this_cpu_p;                                 \
		__percpu_check(ptr, raw_smp_processor_id());                  \
		__this_cpu_p = raw_cpu_ptr(ptr);                              \
		explore_point(EXPLORE_THIS_CPU_PTR);                          \
		__this_cpu_p;                                                 \
	})

/* The CPU whose area holds addr, or -1 (also for the template). */
int percpu_addr_cpu(const void *addr);

/* Copy the template for every possible CPU and move the boot CPU onto its
 * copy. Before this, the boot CPU runs on the template itself (GS base 0). */
void setup_per_cpu_areas(int nr_cpus);

/* Point this CPU's GS base at its area (APs, on the way in). */
void percpu_enter(int cpu);

/* Map fresh pages (not zeroed) at va .. va + size inside CPU cpu's slot
 * of the per-CPU region (asm/page.h); what names them if that fails. */
void *percpu_map_pages(uintptr_t va, size_t size, const char *what, int cpu);

#endif
