/*
 * Lab 2's hidden checks (docs/labs/lab2.md): each AP, asked over an IPI,
 * runs on its own per-CPU area, with its own idle task on its own run
 * queue and its own tick; and the trampoline page, mapped 1:1 only while
 * APs start, is unmapped once they have (unless one was given up on). The starter generator leaves
 * this file out of the students' tree.
 */
#include <stdint.h>

#include "asm/pgtable.h"
#include "asm/processor.h"
#include "asm/realmode.h"
#include "asm/smp.h"
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "sched.h"
#include "sched_internal.h"
#include "smp.h"
#include "time.h"

struct ap_view {
	unsigned long gs_base;
	int cpu_number;
	struct task_struct *idle;
};

static void read_ap_view(void *arg)
{
	struct ap_view *v = (struct ap_view *)arg + raw_smp_processor_id();

	v->gs_base = arch_percpu_base();
	v->cpu_number = this_cpu_read(cpu_number);
	v->idle = this_cpu_read(runqueues.idle);
}

/* Not KTEST_CPUS: with CPUs missing these must fail, not be skipped. */
KTEST(lab2_hidden, each_ap_on_own_area_with_own_idle)
{
	static struct ap_view view[NR_CPUS];
	int cpu, other;

	KASSERT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);

	for_each_online_cpu(cpu) {
		view[cpu] = (struct ap_view){0, -1, 0};
		KASSERT_EQ(smp_call_function_single(cpu, read_ap_view, view, true), 0);
		KEXPECT_EQ(view[cpu].gs_base, __per_cpu_offset[cpu]);
		KEXPECT_EQ(view[cpu].cpu_number, cpu);
		KASSERT_NE(view[cpu].idle, 0);
		KEXPECT_EQ(task_cpu(view[cpu].idle), cpu);
		for (other = 0; other < cpu; other++)
			KEXPECT_NE(view[cpu].idle, view[other].idle);
	}
}

/* Each CPU's tick count moves on (waited for: a vCPU the host does not
 * run takes no tick meanwhile). */
KTEST(lab2_hidden, every_cpu_ticks)
{
	static unsigned long before[NR_CPUS]; /* not on the stack */
	int cpu;

	KASSERT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);

	for_each_online_cpu(cpu)
		before[cpu] = *raw_per_cpu_ptr(&cpu_ticks, cpu);
	for_each_online_cpu(cpu) {
		ktest_poll_until(*raw_per_cpu_ptr(&cpu_ticks, cpu) !=
					 before[cpu],
				 KTEST_WAIT_MS, POLL_SLEEP);
		KEXPECT_NE(*raw_per_cpu_ptr(&cpu_ticks, cpu), before[cpu]);
	}
}

/* Unless a CPU was given up on (an earlier test's absent CPU), when it
 * stays for a late riser. */
KTEST(lab2_hidden, trampoline_unmapped_after_boot)
{
	KEXPECT_EQ(paging_lookup(trampoline_phys) & PTE_P,
		   arch_trampoline_kept() ? PTE_P : 0);
}
