/*
 * Starting the other CPUs (Intel SDM vol. 3, 8.4.4): for each CPU the MADT
 * lists, the boot CPU prepares a stack, descriptor tables and the
 * trampoline's parameters, sends INIT and STARTUP IPIs, and waits, with a
 * bound, for the CPU to report in from ap_start(). One CPU at a time, so
 * the trampoline's single parameter block is enough.
 */
#include "compiler.h"
#include "asm/smp.h"
#include "asm/acpi.h"
#include "asm/apic.h"
#include "asm/processor.h"
#include "gdt.h"
#include "idt.h"
#include "irq_work.h"
#include "asm/irqflags.h"
#include "kmalloc.h"
#include "asm/page.h"
#include "page_alloc.h"
#include "asm/pgtable.h"
#include "panic.h"
#include "percpu.h"
#include "sched.h"
#include "printk.h"
#include "smp.h"
#include "stack.h"
#include "string.h"
#include "time.h"
#include "trap.h"

#define TRAMPOLINE_PHYS 0x8000ul /* must match boot/trampoline.asm */
#define AP_BOOT_TIMEOUT_US 5000000ul

/* What a starting CPU is given; the boot CPU owns it until the CPU sets
 * `online`, the CPU owns it afterwards. */
struct ap_boot {
	struct cpu_tables *tables;
	void *stack;
	void *ist;                   /* IST_COUNT stacks, contiguous */
	volatile bool online;
};

extern const char trampoline_start[], trampoline_end[];
extern const char tr_cr3[], tr_stack[], tr_entry[], tr_cpu[];

/* Written at boot before the CPU runs, read-only after: unchecked. */
DEFINE_PER_CPU(uint32_t, cpu_apic_id);
static struct ap_boot *ap_boot[NR_CPUS];

uint32_t arch_cpu_hw_id(int cpu)
{
	return *raw_per_cpu_ptr(&cpu_apic_id, cpu);
}

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	static const uint8_t vectors[] = {
		[IPI_RESCHEDULE] = RESCHEDULE_VECTOR,
		[IPI_CALL_FUNCTION] = CALL_FUNCTION_VECTOR,
		[IPI_IRQ_WORK] = IRQ_WORK_VECTOR,
	};

	if (kind == IPI_STOP)
		apic_send_nmi(arch_cpu_hw_id(cpu));
	else
		apic_send_ipi(arch_cpu_hw_id(cpu), vectors[kind]);
}

void arch_send_self_ipi(enum ipi_kind kind)
{
	apic_send_self_ipi(kind == IPI_IRQ_WORK ? IRQ_WORK_VECTOR
						: RESCHEDULE_VECTOR);
}

static void call_function_ipi(struct trap_frame *f)
{
	smp_call_function_interrupt();
}

static void reschedule_ipi(struct trap_frame *f)
{
	scheduler_ipi();
}

static void irq_work_ipi(struct trap_frame *f)
{
	irq_work_run();
}

static void stop_nmi(struct trap_frame *f)
{
	smp_nmi_interrupt(f->rip, f->rbp);
}

/* The trampoline's parameter slots, in its copy below 1 MiB. */
static volatile uint64_t *tramp_slot(const char *label)
{
	return phys_to_virt(TRAMPOLINE_PHYS + (label - trampoline_start));
}

static void trampoline_install(void)
{
	memcpy(phys_to_virt(TRAMPOLINE_PHYS), trampoline_start,
	       trampoline_end - trampoline_start);
	/* The AP turns paging on while running here: map the page 1:1. */
	paging_map_page(TRAMPOLINE_PHYS, TRAMPOLINE_PHYS, PTE_W);
	*tramp_slot(tr_cr3) = paging_kernel_cr3();
}

/* Other CPUs ran the trampoline too: flush it from every TLB. */
static void trampoline_remove(void)
{
	paging_unmap_page(TRAMPOLINE_PHYS);
	flush_tlb_kernel_range(TRAMPOLINE_PHYS, TRAMPOLINE_PHYS + PAGE_SIZE);
}

/* A CPU's first C code: runs on its own stack, still on the trampoline's
 * GDT and with no IDT. */
__noreturn static void ap_start(int cpu)
{
	struct ap_boot *b = ap_boot[cpu];
	uintptr_t ist[IST_COUNT];

	percpu_enter(cpu);                        /* per-CPU data via GS */
	for (int i = 0; i < IST_COUNT; i++)
		ist[i] = (uintptr_t)b->ist + (i + 1) * IST_STACK_SIZE;
	gdt_load(b->tables, ist);                 /* own GDT, TSS, IST */
	idt_load();                               /* exceptions reported */
	lapic_setup_cpu();                        /* interrupts and IPIs */
	sched_init_ap(cpu);                       /* we are its idle task */
	tick_setup_cpu();                         /* its own tick */
	set_cpu_online(cpu);
	__atomic_store_n(&b->online, true, __ATOMIC_RELEASE);
	cpu_idle();
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

static bool ap_boot_prepare(int cpu)
{
	struct ap_boot *b = kzalloc(sizeof(*b));

	if (!b)
		return false;
	ap_boot[cpu] = b;
	b->tables = kzalloc(sizeof(*b->tables));
	b->stack = kstack_alloc();
	b->ist = pages_alloc(IST_COUNT * IST_STACK_SIZE / PAGE_SIZE);
	return b->tables && b->stack && b->ist;
}

static bool wait_online(struct ap_boot *b, uint64_t timeout_us)
{
	uint64_t start = ktime_get_ns();

	while (!__atomic_load_n(&b->online, __ATOMIC_ACQUIRE)) {
		if (ktime_get_ns() - start > timeout_us * 1000)
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
	udelay(100);
	apic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	if (wait_online(b, 1000))
		return true;
	apic_send_sipi(apic_id, TRAMPOLINE_PHYS >> 12);
	return wait_online(b, timeout_us);
}

bool smp_boot_cpu(int cpu, uint32_t apic_id, uint64_t timeout_us)
{
	struct ap_boot *b;
	bool ok;

	if (!ap_boot_prepare(cpu)) {
		printk("smpboot: no memory to start CPU %d\n", cpu);
		ap_boot_free(cpu);
		return false;
	}
	b = ap_boot[cpu];
	trampoline_install();
	*tramp_slot(tr_stack) = (uintptr_t)b->stack + KSTACK_SIZE;
	*tramp_slot(tr_entry) = (uintptr_t)ap_start;
	*tramp_slot(tr_cpu) = cpu;
	if (percpu_area_ready(cpu))
		*raw_per_cpu_ptr(&cpu_apic_id, cpu) = apic_id;
	ok = kick_cpu(b, apic_id, timeout_us);
	trampoline_remove();
	if (!ok) {
		/* Back to wait-for-SIPI, so a late riser cannot run on the
		 * stack we are about to free. */
		apic_send_init(apic_id);
		printk("smpboot: CPU %d (APIC id %u) did not come online "
		       "within %lu ms; left offline\n", cpu, apic_id,
		       timeout_us / 1000);
		ap_boot_free(cpu);
	}
	return ok;
}

static void smp_ipi_init(void)
{
	trap_set_handler(CALL_FUNCTION_VECTOR, call_function_ipi);
	trap_set_handler(RESCHEDULE_VECTOR, reschedule_ipi);
	trap_set_handler(IRQ_WORK_VECTOR, irq_work_ipi);
	trap_set_nmi_handler(stop_nmi);
}

/* Number the CPUs: the boot CPU is 0, the rest in MADT order. */
static int number_cpus(uint32_t *apic_ids)
{
	uint32_t self = lapic_id();
	int n = 1;

	apic_ids[0] = self;
	for (int i = 0; i < madt.nr_cpus && n < NR_CPUS; i++)
		if (madt.apic_ids[i] != self)
			apic_ids[n++] = madt.apic_ids[i];
	return n;
}

static uint32_t apic_ids[NR_CPUS];   /* by CPU number, from the MADT */
static int nr_found;

void smp_boot_secondary_cpus(void)
{
	uint64_t t0 = rdtsc();

	for (int cpu = 1; cpu < nr_found; cpu++)
		smp_boot_cpu(cpu, apic_ids[cpu], AP_BOOT_TIMEOUT_US);
	if (nr_found > 1)
		printk("smpboot: %u of %d CPUs online, %lu us from the first "
		       "SIPI\n", num_online_cpus(), nr_found,
		       cycles_to_ns(rdtsc() - t0) / 1000);
}

void smp_prepare_cpus(void)
{
	bool have_madt = acpi_init();
	int n;

	/* The 8259 first, while the local APIC still takes its output: QEMU
	 * drops a request the PIC raised only when the PIC lowers it through
	 * an APIC that listens, else the CPU takes a vectorless interrupt at
	 * the first sti. */
	pic_disable();
	lapic_init(have_madt ? madt.lapic_phys : 0xfee00000);
	lapic_setup_cpu();
	n = have_madt ? number_cpus(apic_ids) : 1;
	if (!have_madt)
		apic_ids[0] = lapic_id();
	setup_per_cpu_areas(n);
	for (int cpu = 0; cpu < n; cpu++) {
		*raw_per_cpu_ptr(&cpu_apic_id, cpu) = apic_ids[cpu];
		set_cpu_possible(cpu);
	}
	smp_prepare_boot_cpu();
	ioapic_init(apic_ids[0]);
	smp_ipi_init();
	time_init();
	tick_setup_cpu();
	nr_found = n;
}
