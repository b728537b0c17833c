/* Helpers of the CPU hotplug tests (hotplug_util.h). */
#include "cpuhotplug.h"
#include "ktest.h"
#include "hotplug/hotplug_util.h"

void hotplug_all_online(void)
{
	int cpu;

	for (cpu = 1; cpu < nr_cpu_ids; cpu++) {
		int err;

		if (cpu_online(cpu))
			continue;
		err = cpu_up(cpu);
		if (err)
			ktest_fail_msg(__FILE__, __LINE__, "cpu_up(%d) in the "
				       "suite's exit: %d", cpu, err);
	}
}

int hotplug_random_cpu(struct rnd_state *rnd)
{
	return 1 + (int)(prandom_u32_state(rnd) % (uint32_t)(nr_cpu_ids - 1));
}
