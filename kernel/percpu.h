/*
 * Per-CPU variables, with Linux's names (see docs/percpu.md): the header
 * to include. percpu_defs.h has the definitions, the raw_cpu_* operations
 * and the checked per_cpu()/this_cpu_ptr(); this file adds what needs to
 * know about preemption: the checked tiers of operations, the CPU number,
 * get_cpu_var(), and the CPU masks (cpumask.h).
 *
 * Three tiers of operations, as in Linux:
 *   this_cpu_*    one %gs: instruction, safe anywhere: an instruction
 *                 cannot be split by an interrupt or a preemption. Two of
 *                 them are not one: with LOCKDEP=1 a this_cpu_read() and
 *                 a later this_cpu_write() or this_cpu_xchg() of the same
 *                 variable by the same task, with a preemption possible
 *                 between them and no lock held across both, is reported
 *                 as a lost update (lockdep_percpu.c).
 *   __this_cpu_*  the same instruction, for callers that already keep the
 *                 CPU: with LOCKDEP=1 a call made preemptible and
 *                 migratable is reported, as smp_processor_id() is.
 *   raw_cpu_*     the same, never checked (percpu_defs.h).
 */
#ifndef PERCPU_H
#define PERCPU_H

#include "compiler.h"
#include "cpumask.h"
#include "locking/lockdep.h"
#include "percpu_defs.h"
#include "preempt.h"
#include "rwonce.h"

/*
 * smp_processor_id(): the CPU number, checked. The answer is only stable
 * while the caller cannot migrate: preemption or interrupts off, migration
 * disabled, or an affinity of one CPU. debug_smp_processor_id() (sched.c)
 * reports the other cases.
 */
void debug_smp_processor_id(void);
static inline int smp_processor_id(void)
{
	if (unlikely(preemptible()))
		debug_smp_processor_id();
	return raw_smp_processor_id();
}

/* get_cpu()/put_cpu(), get_cpu_var()/put_cpu_var(): the classic way to use
 * this CPU's data, by disabling preemption (on RT kernels too). */
static inline int get_cpu(void)
{
	preempt_disable();
	return raw_smp_processor_id();
}

static inline void put_cpu(void)
{
	preempt_enable();
}

#define get_cpu_var(var) (*({ preempt_disable(); this_cpu_ptr(&(var)); }))
#define put_cpu_var(var) preempt_enable()

#ifdef CONFIG_LOCKDEP
/* __this_cpu_op used preemptible: reported unless the task cannot migrate
 * (sched.c, the same check as smp_processor_id()). */
void __this_cpu_preempt_check(const char *op);

/* Inlined, so that the calls below name the operation's site. */
static __always_inline void this_cpu_read_hook(const void *var)
{
	if (!in_hardirq())
		lockdep_this_cpu_read(var);
}

static __always_inline void this_cpu_write_hook(const void *var)
{
	if (atomic_read(&lockdep_this_cpu_reads))
		lockdep_this_cpu_write(var);
}

#define __this_cpu_check(op)                                                  \
	do {                                                                  \
		if (preemptible())                                            \
			__this_cpu_preempt_check(op);                         \
	} while (0)

#define this_cpu_read(v)                                                      \
	({                                                                    \
		__typeof__(v) __r = raw_cpu_read(v);                          \
		this_cpu_read_hook(&(v));                          \
		__r;                                                          \
	})
#define __this_cpu_write_op(v, op)                                            \
	({                                                                    \
		__typeof__(op) __r = (op);                                    \
		this_cpu_write_hook(&(v));                         \
		__r;                                                          \
	})
#define __this_cpu_write_stmt(v, op)                                          \
	do {                                                                  \
		op;                                                           \
		this_cpu_write_hook(&(v));                         \
	} while (0)
/* Only a store can lose another task's update: add, sub, inc and dec
 * change the value in place, and cmpxchg fails when it changed. */
#define this_cpu_write(v, x)      __this_cpu_write_stmt(v, raw_cpu_write(v, x))
#define this_cpu_xchg(v, x)       __this_cpu_write_op(v, raw_cpu_xchg(v, x))
#define this_cpu_add(v, x)        raw_cpu_add(v, x)
#define this_cpu_sub(v, x)        raw_cpu_sub(v, x)
#define this_cpu_inc(v)           raw_cpu_inc(v)
#define this_cpu_dec(v)           raw_cpu_dec(v)
#define this_cpu_cmpxchg(v, o, n) raw_cpu_cmpxchg(v, o, n)

#define __this_cpu_read(v)                                                    \
	({                                                                    \
		__this_cpu_check("__this_cpu_read");                          \
		this_cpu_read(v);                                             \
	})
#define __this_cpu_checked(name, op)                                          \
	({                                                                    \
		__this_cpu_check(name);                                       \
		op;                                                           \
	})
#define __this_cpu_write(v, x) \
	__this_cpu_checked("__this_cpu_write", this_cpu_write(v, x))
#define __this_cpu_add(v, x) \
	__this_cpu_checked("__this_cpu_add", raw_cpu_add(v, x))
#define __this_cpu_sub(v, x) \
	__this_cpu_checked("__this_cpu_sub", raw_cpu_sub(v, x))
#define __this_cpu_inc(v) \
	__this_cpu_checked("__this_cpu_inc", raw_cpu_inc(v))
#define __this_cpu_dec(v) \
	__this_cpu_checked("__this_cpu_dec", raw_cpu_dec(v))
#define __this_cpu_xchg(v, x) \
	__this_cpu_checked("__this_cpu_xchg", this_cpu_xchg(v, x))
#define __this_cpu_cmpxchg(v, o, n) \
	__this_cpu_checked("__this_cpu_cmpxchg", raw_cpu_cmpxchg(v, o, n))

#else /* !CONFIG_LOCKDEP: each is its one instruction */

#define this_cpu_read(v)          raw_cpu_read(v)
#define this_cpu_write(v, x)      raw_cpu_write(v, x)
#define this_cpu_add(v, x)        raw_cpu_add(v, x)
#define this_cpu_sub(v, x)        raw_cpu_sub(v, x)
#define this_cpu_inc(v)           raw_cpu_inc(v)
#define this_cpu_dec(v)           raw_cpu_dec(v)
#define this_cpu_xchg(v, x)       raw_cpu_xchg(v, x)
#define this_cpu_cmpxchg(v, o, n) raw_cpu_cmpxchg(v, o, n)

#define __this_cpu_read(v)          raw_cpu_read(v)
#define __this_cpu_write(v, x)      raw_cpu_write(v, x)
#define __this_cpu_add(v, x)        raw_cpu_add(v, x)
#define __this_cpu_sub(v, x)        raw_cpu_sub(v, x)
#define __this_cpu_inc(v)           raw_cpu_inc(v)
#define __this_cpu_dec(v)           raw_cpu_dec(v)
#define __this_cpu_xchg(v, x)       raw_cpu_xchg(v, x)
#define __this_cpu_cmpxchg(v, o, n) raw_cpu_cmpxchg(v, o, n)

#endif /* CONFIG_LOCKDEP */

#endif
