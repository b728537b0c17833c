/*
 * CPU masks (kernel/cpumask.h): for_each_cpu() visits every set CPU once,
 * in order, across word boundaries and up to the last of NR_CPUS, and
 * cpumask_next() finds the first set CPU at or after any start, NR_CPUS
 * when there is none.
 */
#include "cpumask.h"
#include "ktest.h"

static const int set[] = {0, 1, 63, 64, 65, 127, 200, NR_CPUS - 1};

KTEST(cpumask, for_each_cpu_visits_each_set_cpu_once)
{
	cpumask_t m;
	int cpu, n = 0;

	cpumask_clear(&m);
	for (unsigned i = 0; i < ARRAY_SIZE(set); i++)
		cpumask_set_cpu(set[i], &m);
	for_each_cpu(cpu, &m) {
		KASSERT_LT(n, (int)ARRAY_SIZE(set));
		KEXPECT_EQ(cpu, set[n]);
		n++;
	}
	KEXPECT_EQ(n, (int)ARRAY_SIZE(set));
	KEXPECT_EQ(cpumask_weight(&m), (int)ARRAY_SIZE(set));
}

KTEST(cpumask, next_from_every_start)
{
	cpumask_t m;
	unsigned i = 0;

	cpumask_clear(&m);
	KEXPECT_EQ(cpumask_next(0, &m), NR_CPUS);
	for (unsigned j = 0; j < ARRAY_SIZE(set); j++)
		cpumask_set_cpu(set[j], &m);
	for (int start = 0; start < NR_CPUS; start++) {
		while (i < ARRAY_SIZE(set) && set[i] < start)
			i++;
		KEXPECT_EQ(cpumask_next(start, &m),
			   i < ARRAY_SIZE(set) ? set[i] : NR_CPUS);
	}
	KEXPECT_EQ(cpumask_next(NR_CPUS, &m), NR_CPUS);
	cpumask_clear_cpu(NR_CPUS - 1, &m);
	KEXPECT_EQ(cpumask_next(201, &m), NR_CPUS);
}
