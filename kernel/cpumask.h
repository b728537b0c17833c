/*
 * Sets of CPUs, as in Linux: a bitmap of NR_CPUS bits, passed by pointer.
 * Setting and clearing one CPU is atomic (set_bit(), clear_bit()), so CPUs
 * that change the shared masks (online, active) at once lose nothing; the
 * word-wise readers read each word once (READ_ONCE()), so a mask that is
 * changing reads as some mix of its states, never as torn words.
 */
#ifndef CPUMASK_H
#define CPUMASK_H

#include <stdbool.h>
#include "percpu_defs.h"
#include "rwonce.h"
#include "asm/bitops.h"

#define CPUMASK_WORDS (NR_CPUS / 64)

typedef struct cpumask {
	unsigned long bits[CPUMASK_WORDS];
} cpumask_t;

static inline void cpumask_clear(cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

static inline void cpumask_set_cpu(int cpu, cpumask_t *m)
{
	set_bit(cpu, m->bits);
}

static inline void cpumask_clear_cpu(int cpu, cpumask_t *m)
{
	clear_bit(cpu, m->bits);
}

static inline bool cpumask_test_cpu(int cpu, const cpumask_t *m)
{
	return test_bit(cpu, m->bits);
}

static inline int cpumask_weight(const cpumask_t *m)
{
	int n = 0;

	/* By hand: __builtin_popcountl would call libgcc without -mpopcnt. */
	for (int i = 0; i < CPUMASK_WORDS; i++)
		for (unsigned long w = READ_ONCE(m->bits[i]); w; w &= w - 1)
			n++;
	return n;
}

/* The first set CPU at or after cpu; NR_CPUS if none. A word at a time,
 * as Linux's find_next_bit(): a scan of the whole mask is eight loads,
 * not NR_CPUS tests (a wake-up that looks for an idle CPU scans one, and
 * bit by bit that cost 6000 instructions, most of a preempting
 * wake-up). */
static inline int cpumask_next(int cpu, const cpumask_t *m)
{
	while (cpu < NR_CPUS) {
		unsigned long w = READ_ONCE(m->bits[cpu / 64]) >> (cpu % 64);

		if (w)
			return cpu + __builtin_ctzl(w);
		cpu = (cpu / 64 + 1) * 64;
	}
	return NR_CPUS;
}

static inline void cpumask_copy(cpumask_t *dst, const cpumask_t *src)
{
	*dst = *src;
}

#define for_each_cpu(cpu, mask)                                               \
	for ((cpu) = cpumask_next(0, mask); (cpu) < NR_CPUS;                  \
	     (cpu) = cpumask_next((cpu) + 1, mask))

/* A mask holding only cpu (a constant table: never written). */
const cpumask_t *cpumask_of(int cpu);

/*
 * possible: found at boot, numbered 0..nr_cpu_ids-1, never changes.
 * online:   running the kernel and taking IPIs; a CPU leaves it before it
 *           is torn down and joins it once set up (cpuhotplug.h).
 * active:   online and taking tasks: the scheduler places tasks only on
 *           active CPUs. A CPU on its way out is online but not active.
 */
extern cpumask_t __cpu_online_mask, __cpu_possible_mask, __cpu_active_mask;
#define cpu_online_mask ((const cpumask_t *)&__cpu_online_mask)
#define cpu_possible_mask ((const cpumask_t *)&__cpu_possible_mask)
#define cpu_active_mask ((const cpumask_t *)&__cpu_active_mask)

/* CPUs found in the MADT: numbered 0..nr_cpu_ids-1. */
extern int nr_cpu_ids;

/* How many CPUs are online: the weight of cpu_online_mask, counted from
 * the mask itself, so the two never disagree (cpuhotplug.h). */
unsigned num_online_cpus(void);

#define for_each_possible_cpu(cpu) for_each_cpu(cpu, cpu_possible_mask)
#define for_each_online_cpu(cpu) for_each_cpu(cpu, cpu_online_mask)

static inline bool cpu_online(int cpu)
{
	return cpumask_test_cpu(cpu, cpu_online_mask);
}

static inline bool cpu_active(int cpu)
{
	return cpumask_test_cpu(cpu, cpu_active_mask);
}

#endif
