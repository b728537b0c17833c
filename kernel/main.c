/*
 * kmain: the boot CPU's story from the first C instruction to the tests.
 * Each step depends on the ones above it.
 */
#include <stdint.h>
#include "kbench.h"
#include "lockdep.h"
#include "kmalloc.h"
#include "ktest.h"
#include "asm/page.h"
#include "multiboot.h"
#include "page_alloc.h"
#include "asm/pgtable.h"
#include "panic.h"
#include "printk.h"
#include "asm/qemu.h"
#include "asm/serial.h"
#include "sched.h"
#include "asm/setup.h"
#include "string.h"
#include "vsprintf.h"
#include "asm/smp.h"

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

static char work_glob[BOOT_CMDLINE_MAX];

static int run_tests(void *arg)
{
	int failed = ktest_run_all(work_glob);

	qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	return failed;
}

static int run_benches(void *arg)
{
	kbench_run_all(work_glob);
	qemu_exit(QEMU_EXIT_PASS);
	return 0;
}

/* The tests or benchmarks the command line asks for, in a task on CPU 0. */
static void start_work(void)
{
	int (*fn)(void *) = 0;
	char opt[16];
	struct task *t;

	if (cmdline_get("ktest", work_glob, sizeof(work_glob)))
		fn = run_tests;
	else if (cmdline_get("kbench", work_glob, sizeof(work_glob)))
		fn = run_benches;
	if (!fn) {
		printk("percpu-kernel: boot complete; no tests requested (boot "
		       "with ktest=GLOB or kbench=GLOB to run them).\n");
		return;
	}
	if (!work_glob[0])
		strlcpy(work_glob, "*", sizeof(work_glob));
	if (cmdline_get("ktest_timeout", opt, sizeof(opt)))
		ktest_set_timeout(simple_strtoul(opt, 0, 10));
	t = kthread_create(fn, 0, fn == run_tests ? "ktest" : "kbench");
	if (!t)
		panic("cannot start the test task");
	kthread_bind(t, 0);
	/* The test runner above any test: a test that spins at RT priority
	 * on CPU 0 must not keep it from seeing a test overrun its bound. */
	if (fn == run_tests)
		sched_setscheduler(t, SCHED_FIFO, 99);
	wake_up_process(t);
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
	smp_prepare_cpus();                     /* APICs, per-CPU areas, the tick */
	sched_init();                           /* run queues; we are idle/0 */
	lockdep_init();                         /* the lock validator, if built */
	local_irq_enable();                     /* the tick starts scheduling */
	smp_boot_secondary_cpus();              /* each AP becomes its idle task */
	kthread_init();                         /* the reaper of dead tasks */
	start_work();                           /* tests or benchmarks, if asked */
	cpu_idle();
}
