/*
 * What the portable SMP code needs from the hardware: finding the CPUs,
 * starting one, and interrupting another. The core decides what happens
 * (kernel/main.c tells each CPU's boot story, kernel/smp.c handles the
 * IPIs); arch only does it (smpboot.c, ipi.c).
 */
#ifndef _ASM_X86_SMP_H
#define _ASM_X86_SMP_H

#include <stdbool.h>
#include <stdint.h>

enum ipi_kind {
	IPI_RESCHEDULE,     /* RESCHEDULE_VECTOR */
	IPI_CALL_FUNCTION,  /* CALL_FUNCTION_VECTOR */
	IPI_IRQ_WORK,       /* IRQ_WORK_VECTOR */
	IPI_STOP,           /* an NMI: gets through with interrupts off */
	NR_IPI_KINDS
};

void arch_send_ipi(int cpu, enum ipi_kind kind);
void arch_send_self_ipi(enum ipi_kind kind);

/* The core's handler for an IPI kind other than IPI_STOP; it runs in
 * hard-interrupt context. Set once at boot, before the first IPI. */
void arch_set_ipi_handler(enum ipi_kind kind, void (*fn)(void));

struct trap_frame;

/* The core's NMI handler (IPI_STOP and any other NMI), given the
 * interrupted context, for a backtrace (asm/stacktrace.h). */
void arch_set_nmi_handler(void (*fn)(const struct trap_frame *regs));

/*
 * Find the CPUs (ACPI MADT; one when there is none) and number them: the
 * boot CPU is 0, the others follow in table order. Returns how many.
 */
int arch_find_cpus(void);

/* The hardware id (APIC id) of a CPU number. */
uint32_t arch_cpu_hw_id(int cpu);

/*
 * Start CPU cpu, whose hardware id is hw_id, on a stack of its own at
 * entry(cpu), and wait at most timeout_us for it to run arch_cpu_init_ap().
 * Returns false (and frees what was prepared, and parks the CPU) when it
 * does not answer. One CPU at a time.
 */
bool arch_boot_cpu(int cpu, uint32_t hw_id, void (*entry)(int cpu),
		   uint64_t timeout_us);

/*
 * The first call a started CPU makes, once its per-CPU base is set: its
 * own descriptor tables and interrupt stacks, the IDT, its local APIC.
 * Tells the boot CPU that this CPU is alive.
 */
void arch_cpu_init_ap(int cpu);

#endif
