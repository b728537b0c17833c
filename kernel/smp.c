/* The set of running CPUs. Until the others are started, only the boot CPU. */
#include "smp.h"

static unsigned nr_online_cpus = 1;

unsigned num_online_cpus(void)
{
	return nr_online_cpus;
}
