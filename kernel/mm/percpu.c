/*
 * Per-CPU areas (see percpu.h and docs/percpu.md). The template section
 * .percpu holds every DEFINE_PER_CPU variable with its initial value; each
 * possible CPU gets a page-aligned copy, and __per_cpu_offset[cpu] is the
 * distance from the template to that copy.
 */
#include "percpu.h"
#include "preempt.h"
#include "irqflags.h"
#include "asm/page.h"
#include "mm/page_alloc.h"
#include "panic.h"
#include "string.h"

/* this_cpu_off must be the first variable of every area (linker.ld places
 * .percpu.first first), so that a debugger finds it at the area's start. */
__attribute__((section(".percpu.first"))) unsigned long this_cpu_off;
DEFINE_PER_CPU(int, cpu_number);
DEFINE_PER_CPU(int, __preempt_count);

unsigned long __per_cpu_offset[NR_CPUS];

static size_t percpu_size(void)
{
	return PAGE_ALIGN((size_t)(__per_cpu_end - __per_cpu_start));
}

static char *percpu_area_alloc(int cpu)
{
	size_t pages = percpu_size() / PAGE_SIZE;
	char *area = pages_alloc(pages);

	if (!area)
		panic("percpu: no memory for CPU %d's area (%lu pages)", cpu,
		      (unsigned long)pages);
	return area;
}

/*
 * Runs on the boot CPU with interrupts off, before any other CPU starts:
 * the template is copied as it is now, including what the boot CPU has
 * already written into it (it ran on the template until here).
 */
void setup_per_cpu_areas(int nr_cpus)
{
	unsigned long flags;

	local_irq_save(flags);
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		char *area = percpu_area_alloc(cpu);
		/* LAB1 BEGIN */
		unsigned long off = (unsigned long)area -
				    (unsigned long)__per_cpu_start;

		memcpy(area, __per_cpu_start, __per_cpu_end - __per_cpu_start);
		__per_cpu_offset[cpu] = off;
		*raw_per_cpu_ptr(&this_cpu_off, cpu) = off;
		*raw_per_cpu_ptr(&cpu_number, cpu) = cpu;
		/* LAB1 STUB: (void)area; */
		/* LAB1 END */
	}
#ifdef CONFIG_LOCKDEP_TSAN
	lockdep_tsan_areas_ready(nr_cpus);
#endif
	percpu_enter(0);
	local_irq_restore(flags);
}

/*
 * The area's first words say whose it is: a CPU that went on through
 * another's area (or the template) would corrupt both, far from the cause,
 * so a wrong GS base stops the boot here with the reason.
 */
void percpu_enter(int cpu)
{
	arch_set_percpu_base(__per_cpu_offset[cpu]);
	if (this_cpu_read(this_cpu_off) != __per_cpu_offset[cpu] ||
	    this_cpu_read(cpu_number) != cpu)
		panic("percpu: CPU %d is not on its own per-CPU area: GS base "
		      "%#lx, __per_cpu_offset %#lx, this_cpu_off %#lx, "
		      "cpu_number %d (setup_per_cpu_areas, arch_set_percpu_base)",
		      cpu, arch_percpu_base(), __per_cpu_offset[cpu],
		      this_cpu_read(this_cpu_off), this_cpu_read(cpu_number));
}

int percpu_addr_cpu(const void *addr)
{
	/* LAB1 BEGIN */
	uintptr_t a = (uintptr_t)addr;
	size_t size = __per_cpu_end - __per_cpu_start;

	for (int cpu = 0; cpu < NR_CPUS && __per_cpu_offset[cpu]; cpu++) {
		uintptr_t start = (uintptr_t)__per_cpu_start +
				  __per_cpu_offset[cpu];

		if (a >= start && a < start + size)
			return cpu;
	}
	return -1;
	/* LAB1 STUB: return -1; */
	/* LAB1 END */
}
