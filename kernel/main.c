/*
 * kmain: the boot CPU's story from the first C instruction to the tests.
 * Each step depends on the ones above it.
 */
#include <stdint.h>
#include "kbench.h"
#include "kmalloc.h"
#include "ktest.h"
#include "memlayout.h"
#include "multiboot.h"
#include "page_alloc.h"
#include "paging.h"
#include "panic.h"
#include "printk.h"
#include "qemu.h"
#include "serial.h"
#include "setup.h"
#include "smp_arch.h"

static const char *const mem_type_names[] = {
	"?", "usable", "reserved", "ACPI reclaimable", "ACPI NVS", "bad",
};

static void print_memory_map(void)
{
	printk("Memory map:\n");
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		printk("  [mem 0x%016lx-0x%016lx] %s\n", r->base,
		       r->base + r->len - 1,
		       r->type < 6 ? mem_type_names[r->type] : "unknown");
	}
	printk("Free pages: %lu (%lu MiB)\n", (unsigned long)page_free_count(),
	       (unsigned long)(page_free_count() >> 8));
}

static void run_tests(const char *glob)
{
	int failed = ktest_run_all(glob);

	qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}

static void run_benches(const char *glob)
{
	kbench_run_all(glob);
	qemu_exit(QEMU_EXIT_PASS);
}

void kmain(uint32_t magic, uint64_t mbi_phys)
{
	char glob[BOOT_CMDLINE_MAX], opt[16];

	arch_cpu_init_boot();                   /* GDT, TSS, IDT: faults reported */
	serial_init();                          /* printk works from here */
	if (!multiboot_parse(magic, mbi_phys))  /* before its memory is reused */
		panic("bad Multiboot2 magic %#x or info at %#lx", magic, mbi_phys);
	panic_exits = cmdline_get("ktest", glob, sizeof(glob)) ||
		      cmdline_get("kbench", glob, sizeof(glob)) ||
		      (cmdline_get("panic", opt, sizeof(opt)) &&
		       opt[0] == 'e');
	printk("\npercpu-kernel: booted by %s, command line \"%s\"\n",
	       boot_info.loader, boot_info.cmdline);
	cpu_print_features();
	page_alloc_init();                      /* physical pages */
	paging_init();                          /* our page tables, direct map */
	print_memory_map();
	smp_init();                             /* APICs, per-CPU areas, timer, APs */

	if (cmdline_get("ktest", glob, sizeof(glob)))
		run_tests(glob[0] ? glob : "*");
	if (cmdline_get("kbench", glob, sizeof(glob)))
		run_benches(glob[0] ? glob : "*");
	printk("percpu-kernel: boot complete; no tests requested (boot with "
	       "ktest=GLOB or kbench=GLOB to run them). Halting.\n");
	for (;;)
		halt();
}
