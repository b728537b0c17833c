/*
 * A slabinfo-like dump of the allocators' state: per size class the
 * objects in use, the slabs and the free objects in them and in the
 * CPUs' sheaves; per CPU its cached objects and pages; and how often the
 * shared locks were taken. Figures are read while other CPUs may
 * allocate: each is a snapshot, and together they need not add up.
 */
#include "mm/defer_free.h"
#include "mm/kmalloc.h"
#include "mm/page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "smp.h"
#include "vsprintf.h"

static void print_classes(void)
{
	printk("  %-14s %7s %9s %7s %10s %9s\n", "class", "objsize", "in use",
	       "slabs", "slab free", "cached");
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++) {
		unsigned long slabs, free, cached = 0;
		int cpu;

		kmalloc_slab_counts(cls, &slabs, &free);
		for_each_possible_cpu(cpu)
			cached += kmalloc_cached_objects(cpu, cls);
		printk("  kmalloc-%-6lu %7lu %9ld %7lu %10lu %9lu\n",
		       (unsigned long)kmalloc_class_size(cls),
		       (unsigned long)kmalloc_class_size(cls),
		       kmalloc_objects_in_use(cls), slabs, free, cached);
	}
	printk("  %-14s %7s %9ld\n", "kmalloc-large", "-",
	       kmalloc_objects_in_use(KMALLOC_NR_CLASSES));
}

static void print_cpus(void)
{
	int cpu;

	printk("  per-CPU cached objects by class (16..2048), and pages:\n");
	for_each_online_cpu(cpu) {
		char line[128];
		int n = snprintf(line, sizeof(line), "  cpu%-3d", cpu);

		for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
			n += snprintf(line + n, sizeof(line) - n, " %4u",
				      kmalloc_cached_objects(cpu, cls));
		printk("%s   pages %3u\n", line, page_pcp_count(cpu));
	}
}

void kmalloc_slabinfo(void)
{
	printk("slabinfo: kmalloc per-CPU sheaves %s (capacity %d, batch %d); "
	       "page lists %s (high %d, batch %d)\n",
	       kmalloc_pcp_enabled() ? "on" : "off", KMALLOC_SHEAF_CAPACITY,
	       KMALLOC_SHEAF_BATCH, page_pcp_enabled() ? "on" : "off",
	       PCP_HIGH, PCP_BATCH);
	print_classes();
	print_cpus();
	printk("  shared-lock acquisitions: kmalloc_lock %lu, page_lock %lu\n",
	       kmalloc_lock_acquisitions(), page_alloc_lock_acquisitions());
	printk("  free pages %lu of %lu\n", (unsigned long)page_free_count(),
	       (unsigned long)page_total_count());
	printk("  frees deferred from contexts that cannot sleep: %lu "
	       "(dropped, list full: %lu)\n", defer_free_count(),
	       defer_free_dropped());
}
