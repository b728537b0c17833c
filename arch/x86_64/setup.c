/*
 * The boot CPU's hardware setup: descriptor tables and the interrupt
 * stacks, the interrupt controllers, and the CPU identification printed
 * at boot.
 */
#include "compiler.h"
#include "asm/setup.h"
#include "asm/spinlock.h"
#include "asm/acpi.h"
#include "asm/apic.h"
#include "asm/processor.h"
#include "gdt.h"
#include "idt.h"
#include "asm/page.h"
#include "asm/percpu.h"
#include "asm/syscall.h"
#include "printk.h"
#include "string.h"

static struct cpu_tables boot_cpu_tables;
static char boot_ist_stacks[IST_COUNT][IST_STACK_SIZE]
	__attribute__((aligned(16)));

void arch_cpu_init_boot(void)
{
	uintptr_t tops[IST_COUNT];

	/* Until setup_per_cpu_areas(), the boot CPU's per-CPU data is the
	 * template itself: offset 0. */
	arch_set_percpu_base(0);
	for (int i = 0; i < IST_COUNT; i++)
		tops[i] = (uintptr_t)boot_ist_stacks[i] + IST_STACK_SIZE;
	gdt_load(&boot_cpu_tables, 0, tops);
	usermode_cpu_init(&boot_cpu_tables.tss, 0);
	idt_init();
	idt_load();
}

void arch_init_irq(void)
{
	acpi_init();
	/* The 8259 first, while the local APIC still takes its output: QEMU
	 * drops a request the PIC raised only when the PIC lowers it through
	 * an APIC that listens, else the CPU takes a vectorless interrupt at
	 * the first sti. */
	pic_disable();
	lapic_init(madt.lapic_phys ? madt.lapic_phys : 0xfee00000);
	lapic_setup_cpu();
	ioapic_init(lapic_id());
}

struct feature {
	uint32_t leaf;
	char reg;    /* 'c' or 'd' */
	uint8_t bit;
	const char *name;
};

static const struct feature features[] = {
	{1, 'd', 4, "tsc"},         {1, 'd', 5, "msr"},
	{1, 'd', 9, "apic"},        {1, 'd', 13, "pge"},
	{1, 'c', 21, "x2apic"},     {1, 'c', 24, "tsc-deadline"},
	{1, 'c', 31, "hypervisor"}, {0x80000001, 'd', 20, "nx"},
	{0x80000001, 'd', 26, "pdpe1gb"}, {0x80000001, 'd', 29, "lm"},
	{0x80000007, 'd', 8, "invariant-tsc"},
};

static bool cpu_feature(const struct feature *f)
{
	uint32_t a, b, c, d, max;

	cpuid(f->leaf & 0x80000000, &max, &b, &c, &d);
	if (max < f->leaf)
		return false;
	cpuid(f->leaf, &a, &b, &c, &d);
	return ((f->reg == 'c' ? c : d) >> f->bit) & 1;
}

/* How contended locks spin (asm/spinlock.h); the core chooses at boot
 * (virt_spin_lock_init()). */
bool virt_spin_lock_on;

bool cpu_has_hypervisor(void)
{
	static const struct feature hypervisor = {1, 'c', 31, "hypervisor"};

	return cpu_feature(&hypervisor);
}

static void cpu_brand(char *out)
{
	uint32_t r[12], max, b, c, d;

	cpuid(0x80000000, &max, &b, &c, &d);
	if (max < 0x80000004) {
		strlcpy(out, "(no brand string)", 49);
		return;
	}
	for (uint32_t i = 0; i < 3; i++)
		cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1], &r[4 * i + 2],
		      &r[4 * i + 3]);
	memcpy(out, r, 48);
	out[48] = 0;
}

void cpu_print_features(void)
{
	uint32_t max, v[3], a, b, c, d;
	char vendor[13], brand[49];

	cpuid(0, &max, &v[0], &v[2], &v[1]);
	memcpy(vendor, v, 12);
	vendor[12] = 0;
	cpuid(1, &a, &b, &c, &d);
	cpu_brand(brand);
	printk("CPU: %s family %u model %u stepping %u: %s\n", vendor,
	       ((a >> 8) & 0xf) + ((a >> 20) & 0xff), ((a >> 4) & 0xf) |
	       ((a >> 12) & 0xf0), a & 0xf, brand);
	printk("CPU features:");
	for (unsigned i = 0; i < ARRAY_SIZE(features); i++)
		if (cpu_feature(&features[i]))
			printk(" %s", features[i].name);
	printk("\n");
	usermode_print_features();
}
