/*
 * The public per-CPU names (docs/architecture.md, "The public headers"),
 * from percpu.h alone: this file includes nothing else of the kernel but
 * the test framework, so it stops compiling if a name moves out of
 * percpu.h.
 */
#include "ktest.h"
#include "percpu.h"

static DEFINE_PER_CPU(long, api_counter) = 5;

KTEST(percpu_api, cpu_number_names)
{
	int cpu = get_cpu();

	KEXPECT_EQ(cpu, smp_processor_id());
	KEXPECT_EQ(cpu, raw_smp_processor_id());
	put_cpu();
}

KTEST(percpu_api, initialiser_and_cpu_var)
{
	int cpu, n = 0;
	long before;

	for_each_possible_cpu(cpu)
		KEXPECT_EQ(*per_cpu_ptr(&api_counter, cpu) >= 5, 1);
	before = per_cpu(api_counter, raw_smp_processor_id());
	get_cpu_var(api_counter) += 2;
	cpu = raw_smp_processor_id();
	KEXPECT_EQ(*this_cpu_ptr(&api_counter), before + 2);
	put_cpu_var(api_counter);
	KEXPECT_EQ(per_cpu(api_counter, cpu), before + 2);
	for_each_online_cpu(cpu)
		n++;
	KEXPECT_EQ(n, (int)num_online_cpus());
}

KTEST(percpu_api, cpumask_names)
{
	cpumask_t m;
	int cpu = raw_smp_processor_id(), n = 0, c;

	cpumask_clear(&m);
	KEXPECT_FALSE(cpumask_test_cpu(cpu, &m));
	cpumask_set_cpu(cpu, &m);
	KEXPECT_TRUE(cpumask_test_cpu(cpu, &m));
	KEXPECT_TRUE(cpumask_test_cpu(cpu, cpu_online_mask));
	KEXPECT_TRUE(cpumask_test_cpu(cpu, cpumask_of(cpu)));
	for_each_possible_cpu(c)
		n += cpumask_test_cpu(c, cpumask_of(cpu));
	KEXPECT_EQ(n, 1);
}
