/*
 * Starting the other CPUs (Intel SDM vol. 3, 8.4.4): the mechanism only.
 * As Linux 6.5's parallel bring-up, the boot CPU starts every CPU the core
 * asks for at once (arch_kick_cpus): a stack and descriptor tables each,
 * one copy of the trampoline for all, INIT and STARTUP to each in turn,
 * no waiting for any. Each AP then finds its CPU number and stack by its own APIC id
 * (boot/trampoline.asm searches apic_ids[]) and runs at the same time as
 * the others. The boot CPU looks at each one's `alive` flag in turn
 * (arch_poll_cpu_alive), with a bound: a CPU that never answers is parked
 * and left offline. What a CPU sets up in the core is the core's business
 * (ap_main()). A CPU that went offline (arch_cpu_play_dead) is started the
 * same way again, alone, on the tables and stacks it had.
 */
#include "asm/smp.h"
#include "asm/acpi.h"
#include "asm/irqflags.h"
#include "asm/apic.h"
#include "asm/page.h"
#include "asm/pgtable.h"
#include "asm/processor.h"
#include "asm/realmode.h"
#include "asm/syscall.h"
#include "asm/timer.h"
#include "atomic.h"
#include "gdt.h"
#include "idt.h"
#include "mm/kmalloc.h"
#include "mm/page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "mm/stack.h"
#include "string.h"

/* After the first STARTUP, how long before the second (MP spec: the
 * first may be lost). */
#define SECOND_SIPI_US 1000

/* What a starting CPU is given; the boot CPU owns it until the CPU sets
 * `alive`, the CPU owns it afterwards. `alive` is the hand-over: set by
 * the AP with a release store once it is done with the rest, polled by
 * the boot CPU with an acquire load. */
struct ap_boot {
	struct cpu_tables *tables;
	void *stack;
	void *ist;                   /* IST_COUNT stacks, contiguous */
	uint64_t kicked;             /* TSC when arch_kick_cpus() began */
	bool second_sipi;            /* the second STARTUP has gone */
	bool alive;
};

extern const char trampoline_start[], trampoline_end[];
extern const char tr_cr3[], tr_entry[], tr_apic_ids[], tr_stack_tops[],
	tr_nr_cpus[];

/* By CPU number; written by arch_find_cpus() and arch_set_cpu_hw_id()
 * before the CPU runs, read-only after. The trampoline searches
 * apic_ids[] for the APIC id of the AP running it. */
static uint32_t apic_ids[NR_CPUS];
static struct ap_boot *ap_boot[NR_CPUS];
/* The stack each AP being started takes in the trampoline; 0 for every
 * other CPU, so that an AP nobody asked for stops there. */
static uint64_t stack_tops[NR_CPUS];
/* Kicked CPUs not yet seen alive or given up on: the trampoline stays
 * mapped while there is one. */
static int trampoline_users;
/* A CPU has been given up on: it may still start, later, and run the
 * trampoline (a slow CPU; or QEMU, which keeps a STARTUP that reached a
 * CPU not waiting for one pending until our INIT, and then obeys it).
 * It finds no stack there and stops in tr_lost, in the trampoline's
 * page: so from then on the page stays mapped. Unmapped, the late riser
 * faults with paging just on and no IDT, and the triple fault takes the
 * whole machine down. */
static bool trampoline_kept;
/* TSC when the last AP set its alive flag: where a silent CPU's bound
 * starts if that is after its kick. Written by the APs, read by the CPU
 * that polls (arch_poll_cpu_alive). */
static uint64_t last_alive_tsc;

uint32_t arch_cpu_hw_id(int cpu)
{
	return apic_ids[cpu];
}

void arch_set_cpu_hw_id(int cpu, uint32_t hw_id)
{
	apic_ids[cpu] = hw_id;
}

/* Number the CPUs: the boot CPU is 0, the rest in MADT order (an empty
 * table when there was none: arch_init_irq() parsed it). Only the boot
 * CPU when there is no page to start the others in. */
int arch_find_cpus(void)
{
	uint32_t self = lapic_id();
	int n = 1, unreachable = 0;

	apic_ids[0] = self;
	if (!reserve_real_mode())
		return 1;
	for (int i = 0; i < madt.nr_cpus && n < NR_CPUS; i++)
		if (madt.apic_ids[i] > lapic_max_apic_id())
			unreachable++; /* xAPIC IPIs cannot name it */
		else if (madt.apic_ids[i] != self)
			apic_ids[n++] = madt.apic_ids[i];
	if (unreachable)
		printk("smpboot: %d CPU(s) with APIC ids above %u need x2APIC; "
		       "left out\n", unreachable, lapic_max_apic_id());
	return n;
}

/* The trampoline's parameter slots, in its copy below 1 MiB. Plain
 * stores: the APs read them only after arch_kick_cpus()'s smp_mb(). */
static uint64_t *tramp_slot(const char *label)
{
	return phys_to_virt(trampoline_phys + (label - trampoline_start));
}

static void trampoline_install(void (*entry)(int cpu))
{
	memcpy(phys_to_virt(trampoline_phys), trampoline_start,
	       trampoline_end - trampoline_start);
	/* The AP turns paging on while running here: map the page 1:1. */
	paging_map_page(trampoline_phys, trampoline_phys, PTE_W);
	*tramp_slot(tr_cr3) = paging_kernel_cr3();
	*tramp_slot(tr_entry) = (uintptr_t)entry;
	*tramp_slot(tr_apic_ids) = (uintptr_t)apic_ids;
	*tramp_slot(tr_stack_tops) = (uintptr_t)stack_tops;
	*tramp_slot(tr_nr_cpus) = NR_CPUS;
}

bool arch_trampoline_kept(void)
{
	return READ_ONCE(trampoline_kept);
}

/* Other CPUs ran the trampoline too: flush it from every TLB. */
static void trampoline_remove(void)
{
	if (trampoline_kept)
		return;
	paging_unmap_page(trampoline_phys);
	flush_tlb_kernel_range(trampoline_phys, trampoline_phys + PAGE_SIZE);
}

/* APs answer at the same time: a maximum, so that an AP whose earlier
 * time lands last does not move the bound's start back. */
static void note_alive(uint64_t now)
{
	uint64_t seen = READ_ONCE(last_alive_tsc);

	while (now > seen && !try_cmpxchg(&last_alive_tsc, &seen, now))
		;
}

void arch_cpu_init_ap(int cpu)
{
	struct ap_boot *b = ap_boot[cpu];
	uintptr_t ist[IST_COUNT];

	for (int i = 0; i < IST_COUNT; i++)
		ist[i] = (uintptr_t)b->ist + (i + 1) * IST_STACK_SIZE;
	gdt_load(b->tables, cpu, ist);               /* own GDT, TSS, IST */
	usermode_cpu_init(&b->tables->tss, cpu);     /* syscall, SMEP..., FPU */
	idt_load();                               /* exceptions reported */
	lapic_setup_cpu();                        /* interrupts and IPIs */
	note_alive(rdtsc());
	smp_store_release(&b->alive, true);
}

static void ap_boot_free(int cpu)
{
	struct ap_boot *b = ap_boot[cpu];

	if (!b)
		return;
	if (b->stack)
		kstack_free(b->stack);
	if (b->ist)
		pages_free(b->ist, IST_COUNT * IST_STACK_SIZE / PAGE_SIZE);
	kfree(b->tables);
	kfree(b);
	ap_boot[cpu] = 0;
}

/* Stacks and tables for cpu: those of its last start when it has been
 * online before (it is parked: nothing of it is in use), else new. */
static bool ap_boot_prepare(int cpu)
{
	struct ap_boot *b = ap_boot[cpu];

	if (b) {
		/* The CPU is parked and the boot CPU polls only after the
		 * kick: no order needed, only a whole store. */
		WRITE_ONCE(b->alive, false);
		return true;
	}
	if (!(b = kzalloc(sizeof(*b))))
		return false;
	ap_boot[cpu] = b;
	b->tables = kzalloc(sizeof(*b->tables));
	b->stack = kstack_alloc();
	b->ist = pages_alloc(IST_COUNT * IST_STACK_SIZE / PAGE_SIZE);
	return b->tables && b->stack && b->ist;
}

/* LAB2 BEGIN */
/* INIT then STARTUP to each CPU in turn, without waiting for any to
 * answer, as Linux 6.5 kicks each AP (the MP specification's
 * INIT-SIPI-SIPI; the second STARTUP goes only to a CPU that has not
 * answered, from arch_poll_cpu_alive). QEMU's CPUs need none of the old
 * 10 ms waits; 10 us between INIT and STARTUP, as Linux on modern CPUs,
 * measured better under one-threaded TCG than both IPIs back to back. */
static void send_init_sipi(const int *cpus, int n)
{
	for (int i = 0; i < n; i++)
		if (cpus[i] >= 0) {
			apic_send_init(apic_ids[cpus[i]]);
			arch_udelay(10);
			apic_send_sipi(apic_ids[cpus[i]], trampoline_phys >> 12);
		}
}
/* LAB2 STUB: static void send_init_sipi(const int *cpus, int n) */
/* LAB2 STUB: { */
/* LAB2 STUB: } */
/* LAB2 END */

void arch_kick_cpus(int *cpus, int n, void (*entry)(int cpu))
{
	trampoline_install(entry);
	for (int i = 0; i < n; i++) {
		int cpu = cpus[i];
		struct ap_boot *b;

		if (!ap_boot_prepare(cpu)) {
			printk("smpboot: no memory to start CPU %d\n", cpu);
			ap_boot_free(cpu);
			cpus[i] = -1;
			continue;
		}
		b = ap_boot[cpu];
		b->kicked = rdtsc();
		b->second_sipi = false;
		/* LAB2 BEGIN */
		stack_tops[cpu] = (uintptr_t)b->stack + KSTACK_SIZE;
		/* LAB2 END */
		trampoline_users++;
	}
	/* The tables before the SIPIs: the APs read them (the ICR write
	 * that sends a SIPI is not ordered after plain stores by itself). */
	smp_mb();
	send_init_sipi(cpus, n);
	if (!trampoline_users)
		trampoline_remove();
}

/* cpu is alive or given up on: the trampoline is not its any more. */
static void kick_done(int cpu)
{
	stack_tops[cpu] = 0;
	if (--trampoline_users == 0)
		trampoline_remove();
}

/*
 * A silent CPU's bound runs from its kick or from the last CPU of any
 * start to answer, whichever is later: hundreds of CPUs kicked together
 * on a busy host may take longer than the bound to answer, but not with
 * no answer at all for that long; silent CPUs still cost the bound once.
 */
static uint64_t bound_start(const struct ap_boot *b)
{
	uint64_t last = READ_ONCE(last_alive_tsc);

	return last > b->kicked ? last : b->kicked;
}

int arch_poll_cpu_alive(int cpu, uint64_t timeout_us)
{
	struct ap_boot *b = ap_boot[cpu];
	uint64_t now, since, waited_us;

	if (smp_load_acquire(&b->alive)) {
		kick_done(cpu);
		return 1;
	}
	now = rdtsc();
	waited_us = (now - b->kicked) * 1000 / tsc_khz;
	if (waited_us >= SECOND_SIPI_US && !b->second_sipi) {
		b->second_sipi = true;
		apic_send_sipi(apic_ids[cpu], trampoline_phys >> 12);
	}
	since = bound_start(b);
	if (now < since || (now - since) * 1000 / tsc_khz < timeout_us)
		return 0;
	/* Back to wait-for-SIPI, so a late riser cannot run on the stack we
	 * are about to free. */
	apic_send_init(apic_ids[cpu]);
	trampoline_kept = true;
	kick_done(cpu);
	printk("smpboot: CPU %d (APIC id %u) did not come online within %lu "
	       "ms; left offline\n", cpu, apic_ids[cpu], timeout_us / 1000);
	ap_boot_free(cpu);
	return -1;
}

bool arch_boot_cpu(int cpu, uint32_t hw_id, void (*entry)(int cpu),
		   uint64_t timeout_us)
{
	int alive;

	arch_set_cpu_hw_id(cpu, hw_id);
	arch_kick_cpus(&cpu, 1, entry);
	if (cpu < 0)
		return false;
	while (!(alive = arch_poll_cpu_alive(cpu, timeout_us)))
		cpu_relax();
	return alive > 0;
}

__attribute__((noreturn)) void arch_cpu_play_dead(bool *dead)
{
	arch_local_irq_disable();
	smp_store_release(dead, true);
	for (;;)
		halt(); /* interrupts stay off: only an NMI or INIT wakes us */
}
