/*
 * The boot story of every CPU, from its first C instruction to its idle
 * loop. kmain() is the boot CPU's: each step depends on the ones above it.
 * ap_main() is each other CPU's, started by the boot CPU all at once.
 * Arch code does the hardware part of a step (asm/setup.h, asm/smp.h,
 * asm/timer.h); the decisions are made here.
 */
#include <stdint.h>
#include "locking/lockdep.h"
#include "mm/kmalloc.h"
#include "bootinfo.h"
#include "cmdline.h"
#include "cpuhotplug.h"
#include "init.h"
#include "interrupt.h"
#include "net/netdevice.h"
#include "mm/page_alloc.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "rwonce.h"
#include "rcu/rcutree.h"
#include "user/process.h"
#include "sched/sched.h"
#include "smp.h"
#include "string.h"
#include "time/time.h"
#include "vsprintf.h"
#include "asm/page.h"
#include "asm/pgtable.h"
#include "asm/qemu.h"
#include "asm/serial.h"
#include "asm/setup.h"
#include "asm/smp.h"
#include "asm/timer.h"

static const char *const mem_type_names[] = {
	"?", "usable", "reserved", "ACPI reclaimable", "ACPI NVS", "bad",
};

static void print_memory_map(void)
{
	/* Which firmware, and whose map: under EFI, the firmware's own. */
	printk("Memory map (%s firmware, %s):\n",
	       boot_info.firmware == BOOT_FW_EFI ? "EFI" : "BIOS",
	       boot_info.mmap_from_efi ? "the EFI memory map"
				       : "the loader's memory map");
	for (int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		printk("  [mem 0x%016lx-0x%016lx] %s\n", r->base,
		       r->base + r->len - 1,
		       r->type < 6 ? mem_type_names[r->type] : "unknown");
	}
	if (boot_info.nr_regions_lost)
		printk("Memory map: %d more region(s) than the %d kept; "
		       "their memory is not used\n",
		       boot_info.nr_regions_lost, BOOT_MAX_REGIONS);
	printk("Free pages: %lu (%lu MiB)\n", (unsigned long)page_free_count(),
	       (unsigned long)(page_free_count() >> 8));
}

/* A boolean option KEY=VALUE (kstrtobool: 1/0, y/n, on/off); def when
 * it is absent, and when its value is none of those, with a message. */
static bool bool_option(const char *key, bool def)
{
	char opt[16];
	bool val;

	if (!cmdline_get(key, opt, sizeof(opt)))
		return def;
	if (kstrtobool(opt, &val) == 0)
		return val;
	printk("%s=%s: not a boolean (0/1, n/y, off/on); keeping %s=%d\n",
	       key, opt, key, def);
	return def;
}

/* The allocators' per-CPU caches: on, unless kmalloc_pcp=0 (kmalloc's
 * sheaves) or page_pcp=0 (the page lists) keep the plain shared-lock
 * path, which make bench compares them with. Once the per-CPU areas
 * exist: a cache filled on the template would be copied to every CPU. */
static void allocator_caches_init(void)
{
	kmalloc_pcp_init(bool_option("kmalloc_pcp", true));
	page_pcp_init(bool_option("page_pcp", true));
}

enum system_states system_state; /* written by kmain() only */

static char init_name[BOOT_CMDLINE_MAX];

/* init=NAME: the user program NAME, waited for and its status printed. */
static int run_init(void *arg)
{
	char *argv[] = {init_name};
	struct process *p;
	int err = process_spawn(init_name, 1, argv, 0, &p);

	if (err) {
		printk("init: cannot start %s: error %d\n", init_name, err);
		return err;
	}
	printk("init: %s exited with status %#x\n", init_name,
	       process_wait(p));
	return 0;
}

/* init=NAME: the user program, in a task of its own. */
static void start_init(void)
{
	struct task_struct *t;

	if (!cmdline_get("init", init_name, sizeof(init_name)))
		return;
	if (!(t = kthread_run(run_init, 0, "init")))
		panic("cannot start the init task");
	kthread_detach(t);
}

extern const initcall_t __initcall_late_start[], __initcall_late_end[];

/* Linux's do_initcalls(): the work the kernel's parts start on their own
 * once the boot is done (late_initcall(), init.h), in link order: the
 * tests, benchmarks or torture the command line asks for
 * (kernel/debug/boot_work.c). */
static void do_initcalls(void)
{
	for (const initcall_t *fn = __initcall_late_start;
	     fn < __initcall_late_end; fn++)
		(*fn)();
}

/* Each other CPU's story: it arrives here from the trampoline on its own
 * stack, with no per-CPU base, descriptor tables of its own or IDT. A CPU
 * that comes back from offline (cpu_up) tells the same story again. */
__noreturn static void ap_main(int cpu)
{
	/* LAB2 BEGIN */
	percpu_enter(cpu);                      /* per-CPU data through GS */
	arch_cpu_init_ap(cpu);                  /* GDT, TSS, IDT, local APIC */
	sched_init_ap(cpu);                     /* we are its idle task */
	lockdep_hb_acquire(&__per_cpu_offset[cpu]); /* ordered after the BSP */
	tick_setup_cpu();                       /* its own tick */
	notify_cpu_starting(cpu);               /* its hotplug STARTING steps */
	set_cpu_online(cpu);                    /* IPIs and work from now on */
	cpuhp_online_idle(cpu);                 /* wake whoever waits for us */
	cpu_idle();
	/* LAB2 STUB: panic("CPU %d reached ap_main(), which is not written yet", cpu); */
	/* LAB2 END */
}

/* Start the other CPUs, all at once, each up the hotplug ladder as
 * cpu_up() takes it (kernel/cpu.c): arch_kick_cpus() starts them at
 * ap_main(), and each is active once its ONLINE steps have run. A CPU
 * that does not answer is reported and left offline; the rest boot on. */
static void smp_boot_cpus(int nr_cpus)
{
	uint64_t ns = bringup_nonboot_cpus(nr_cpus, ap_main);

	if (nr_cpus > 1)
		printk("smpboot: %u of %d CPUs online, %lu us from the kick\n",
		       num_online_cpus(), nr_cpus,
		       (unsigned long)(ns / 1000));
}

void kmain(void)
{
	char glob[BOOT_CMDLINE_MAX], opt[16];
	int nr_cpus;

	arch_cpu_init_boot();                   /* GDT, TSS, IDT: faults reported */
	serial_init();                          /* printk works from here */
	arch_setup_boot_info(&boot_info);       /* before its memory is reused */
	panic_exits = cmdline_get("ktest", glob, sizeof(glob)) ||
		      cmdline_get("kbench", glob, sizeof(glob)) ||
		      cmdline_get("torture", glob, sizeof(glob)) ||
		      (cmdline_get("panic", opt, sizeof(opt)) &&
		       opt[0] == 'e');
	printk("\npercpu-kernel: booted by %s, command line \"%s\"\n",
	       boot_info.loader, boot_info.cmdline);
	cmdline_check_length();                 /* a cut one is reported */
	cpu_print_features();
	virt_spin_lock_init();                  /* how contended locks spin */
	page_alloc_init();                      /* physical pages */
	paging_init();                          /* our page tables, direct map */
	print_memory_map();
	arch_init_irq();                        /* APICs on, the 8259 off */
	nr_cpus = arch_find_cpus();             /* from the ACPI MADT */
	setup_per_cpu_areas(nr_cpus);           /* one copy each; GS on ours */
	allocator_caches_init();                /* per-CPU sheaves, page lists */
	for (int cpu = 0; cpu < nr_cpus; cpu++)
		set_cpu_possible(cpu);
	smp_prepare_boot_cpu();                 /* online; IPI handlers */
	time_init();                            /* clock calibrated, tick routed */
	tick_setup_cpu();                       /* our tick */
	sched_init();                           /* run queues; we are idle/0 */
	lockdep_init();                         /* the lock validator, if built */
	rcu_init();                             /* grace periods, rcuc/0 */
	softirq_init();                         /* handlers, ksoftirqd/0 */
	net_dev_init();                         /* per-CPU backlogs, NET_RX */
	WRITE_ONCE(system_state, SYSTEM_SCHEDULING);
	local_irq_enable();                     /* the tick starts scheduling */
	kmalloc_stats_init();                   /* its percpu_counters */
	smp_boot_cpus(nr_cpus);                 /* each AP becomes its idle task */
	start_init();                           /* init=NAME, if asked */
	do_initcalls();                         /* tests or benchmarks, if asked */
	cpu_idle();
}
