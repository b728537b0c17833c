/*
 * Starting the other CPUs (Intel SDM vol. 3, 8.4.4): the mechanism only.
 * For each CPU the core asks for (kernel/main.c), the boot CPU prepares a
 * stack, descriptor tables and the trampoline's parameters, sends INIT and
 * STARTUP IPIs, and waits, with a bound, for the CPU to reach
 * arch_cpu_init_ap(). What the CPU then sets up in the core is the core's
 * business (ap_main()). One CPU at a time, so the trampoline's single
 * parameter block is enough. A CPU that went offline (arch_cpu_play_dead)
 * is started the same way again, on the tables and stacks it had.
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
#include "gdt.h"
#include "idt.h"
#include "mm/kmalloc.h"
#include "mm/page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "mm/stack.h"
#include "string.h"

/* What a starting CPU is given; the boot CPU owns it until the CPU sets
 * `alive`, the CPU owns it afterwards. */
struct ap_boot {
	struct cpu_tables *tables;
	void *stack;
	void *ist;                   /* IST_COUNT stacks, contiguous */
	volatile bool alive;
};

extern const char trampoline_start[], trampoline_end[];
extern const char tr_cr3[], tr_stack[], tr_entry[], tr_cpu[];

/* By CPU number; written by arch_find_cpus() and arch_boot_cpu() on the
 * boot CPU before the CPU runs, read-only after. */
static uint32_t apic_ids[NR_CPUS];
static struct ap_boot *ap_boot[NR_CPUS];

uint32_t arch_cpu_hw_id(int cpu)
{
	return apic_ids[cpu];
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

/* The trampoline's parameter slots, in its copy below 1 MiB. */
static volatile uint64_t *tramp_slot(const char *label)
{
	return phys_to_virt(trampoline_phys + (label - trampoline_start));
}

static void trampoline_install(void)
{
	memcpy(phys_to_virt(trampoline_phys), trampoline_start,
	       trampoline_end - trampoline_start);
	/* The AP turns paging on while running here: map the page 1:1. */
	paging_map_page(trampoline_phys, trampoline_phys, PTE_W);
	*tramp_slot(tr_cr3) = paging_kernel_cr3();
}

/* Other CPUs ran the trampoline too: flush it from every TLB. */
static void trampoline_remove(void)
{
	paging_unmap_page(trampoline_phys);
	flush_tlb_kernel_range(trampoline_phys, trampoline_phys + PAGE_SIZE);
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
	__atomic_store_n(&b->alive, true, __ATOMIC_RELEASE);
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
		__atomic_store_n(&b->alive, false, __ATOMIC_RELAXED);
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
static bool wait_alive(struct ap_boot *b, uint64_t timeout_us)
{
	uint64_t start = rdtsc(), limit = timeout_us * tsc_khz / 1000;

	while (!__atomic_load_n(&b->alive, __ATOMIC_ACQUIRE)) {
		if (rdtsc() - start > limit)
			return false;
		cpu_relax();
	}
	return true;
}

/* INIT, then STARTUP twice, as the MP specification says; QEMU's CPUs
 * need none of the old 10 ms waits. */
static bool kick_cpu(struct ap_boot *b, uint32_t apic_id, uint64_t timeout_us)
{
	apic_send_init(apic_id);
	arch_udelay(100);
	apic_send_sipi(apic_id, trampoline_phys >> 12);
	if (wait_alive(b, 1000))
		return true;
	apic_send_sipi(apic_id, trampoline_phys >> 12);
	return wait_alive(b, timeout_us);
}
/* LAB2 STUB: static bool kick_cpu(struct ap_boot *b, uint32_t apic_id, uint64_t timeout_us) */
/* LAB2 STUB: { */
	/* LAB2 STUB: return false; */
/* LAB2 STUB: } */
/* LAB2 END */

bool arch_boot_cpu(int cpu, uint32_t hw_id, void (*entry)(int cpu),
		   uint64_t timeout_us)
{
	struct ap_boot *b;
	bool ok;

	if (!ap_boot_prepare(cpu)) {
		printk("smpboot: no memory to start CPU %d\n", cpu);
		ap_boot_free(cpu);
		return false;
	}
	b = ap_boot[cpu];
	apic_ids[cpu] = hw_id;
	trampoline_install();
	/* LAB2 BEGIN */
	*tramp_slot(tr_stack) = (uintptr_t)b->stack + KSTACK_SIZE;
	*tramp_slot(tr_entry) = (uintptr_t)entry;
	*tramp_slot(tr_cpu) = cpu;
	/* LAB2 END */
	ok = kick_cpu(b, hw_id, timeout_us);
	trampoline_remove();
	if (!ok) {
		/* Back to wait-for-SIPI, so a late riser cannot run on the
		 * stack we are about to free. */
		apic_send_init(hw_id);
		printk("smpboot: CPU %d (APIC id %u) did not come online "
		       "within %lu ms; left offline\n", cpu, hw_id,
		       timeout_us / 1000);
		ap_boot_free(cpu);
	}
	return ok;
}

__attribute__((noreturn)) void arch_cpu_play_dead(volatile bool *dead)
{
	arch_local_irq_disable();
	__atomic_store_n(dead, true, __ATOMIC_RELEASE);
	for (;;)
		halt(); /* interrupts stay off: only an NMI or INIT wakes us */
}
