/*
 * Lab 1's hidden checks (docs/labs/lab1.md): what the visible percpu
 * suite does not look at. percpu_addr_cpu() names the CPU whose area
 * holds an address, from the first byte of an area to its last, and -1
 * for the template and anything outside the areas; KERNEL_GS_BASE holds
 * the user's GS base (0) on every CPU while the kernel runs, so that the
 * first swapgs from ring 3 does not bring a kernel address to user space.
 * The starter generator leaves this file out of the students' tree.
 */
#include <stdint.h>

#include "asm/processor.h"
#include "kmalloc.h"
#include "ktest.h"
#include "percpu.h"
#include "smp.h"

static DEFINE_PER_CPU(long, lab1_probe);

KTEST(lab1_hidden, addr_cpu_finds_each_area)
{
	size_t size = __per_cpu_end - __per_cpu_start;
	int cpu;

	for_each_possible_cpu(cpu) {
		char *start = (char *)__per_cpu_start + __per_cpu_offset[cpu];

		KEXPECT_EQ(percpu_addr_cpu(raw_per_cpu_ptr(&lab1_probe, cpu)), cpu);
		KEXPECT_EQ(percpu_addr_cpu(start), cpu);
		KEXPECT_EQ(percpu_addr_cpu(start + size - 1), cpu);
	}
}

KTEST(lab1_hidden, addr_cpu_outside_areas)
{
	void *heap = kmalloc(64);

	KASSERT_NE(heap, 0);
	KEXPECT_EQ(percpu_addr_cpu(&lab1_probe), -1); /* the template */
	KEXPECT_EQ(percpu_addr_cpu(__per_cpu_start), -1);
	KEXPECT_EQ(percpu_addr_cpu(heap), -1);
	KEXPECT_EQ(percpu_addr_cpu(0), -1);
	kfree(heap);
}

static void read_kernel_gs_base(void *arg)
{
	((unsigned long *)arg)[raw_smp_processor_id()] = rdmsr(MSR_KERNEL_GS_BASE);
}

KTEST(lab1_hidden, kernel_gs_base_is_user_value_on_every_cpu)
{
	static unsigned long seen[NR_CPUS];
	int cpu;

	for_each_online_cpu(cpu) {
		seen[cpu] = ~0ul;
		KASSERT_EQ(smp_call_function_single(cpu, read_kernel_gs_base,
						    seen, true), 0);
		KEXPECT_EQ(seen[cpu], 0);
	}
}
