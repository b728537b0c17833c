/* Helpers of the percpu_counter tests (percpu_counter_util.h). */
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "percpu/percpu_counter_util.h"

int32_t pcc_delta_of(struct percpu_counter *c, int cpu)
{
	return __atomic_load_n(per_cpu_ptr(c->counters, cpu), __ATOMIC_RELAXED);
}

struct leave_job {
	struct percpu_counter *c;
	int64_t amount;
};

static int leave_delta(void *arg)
{
	struct leave_job *j = arg;

	percpu_counter_add(j->c, j->amount);
	return 0;
}

void pcc_leave_delta_on(int cpu, struct percpu_counter *c, int64_t amount)
{
	struct leave_job j = {c, amount};

	KEXPECT_EQ(ktest_run_on(cpu, leave_delta, &j, "pcc-leave"), 0);
}
