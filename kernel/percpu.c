/*
 * Per-CPU areas (see percpu.h and docs/percpu.md). The template section
 * .percpu holds every DEFINE_PER_CPU variable with its initial value; each
 * possible CPU gets a page-aligned copy, and __per_cpu_offset[cpu] is the
 * distance from the template to that copy. The copies live at fixed
 * addresses, CPU c's at PERCPU_REGION + c * PERCPU_AREA_STRIDE
 * (asm/page.h), backed by pages of the page allocator.
 */
#include "percpu.h"
#include "preempt.h"
#include "irqflags.h"
#include "asm/page.h"
#include "asm/pgtable.h"
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

_Static_assert((unsigned long)NR_CPUS * PERCPU_AREA_STRIDE <=
		       -(unsigned long)PERCPU_REGION,
	       "every CPU's slot fits in the per-CPU region");

/* Pages for the address va .. va + size, mapped there: CPU c's area (and
 * the lock validator's shadow of it, lockdep_percpu.c). Not zeroed. */
void *percpu_map_pages(uintptr_t va, size_t size, const char *what, int cpu)
{
	size_t pages = PAGE_ALIGN(size) / PAGE_SIZE;
	char *mem = pages_alloc(pages);

	if (!mem)
		panic("percpu: no memory for CPU %d's %s (%lu pages)", cpu,
		      what, (unsigned long)pages);
	for (size_t i = 0; i < pages; i++)
		if (!paging_map_page(va + i * PAGE_SIZE,
				     virt_to_phys(mem + i * PAGE_SIZE),
				     PTE_W | PTE_G | PTE_NX))
			panic("percpu: no page table for CPU %d's %s", cpu,
			      what);
	return (void *)va;
}

static char *percpu_area_alloc(int cpu)
{
	return percpu_map_pages(PERCPU_REGION +
				(uintptr_t)cpu * PERCPU_AREA_STRIDE,
				percpu_size(), "area", cpu);
}

/*
 * Runs on the boot CPU with interrupts off, before any other CPU starts:
 * the template is copied as it is now, including what the boot CPU has
 * already written into it (it ran on the template until here).
 */
void setup_per_cpu_areas(int nr_cpus)
{
	unsigned long flags;

	if (percpu_size() > PERCPU_AREA_MAX)
		panic("percpu: the template (%lu bytes) is larger than an "
		      "area's slot allows (PERCPU_AREA_MAX, %lu bytes)",
		      (unsigned long)percpu_size(),
		      (unsigned long)PERCPU_AREA_MAX);
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
	lockdep_percpu_areas_ready(nr_cpus);
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
