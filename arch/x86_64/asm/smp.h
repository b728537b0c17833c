/*
 * What the portable SMP code (kernel/smp.c) needs from the hardware:
 * starting the other CPUs and sending them interrupts.
 */
#ifndef _ASM_X86_SMP_H
#define _ASM_X86_SMP_H

#include <stdbool.h>
#include <stdint.h>

enum ipi_kind {
	IPI_RESCHEDULE,     /* RESCHEDULE_VECTOR: scheduler_ipi() */
	IPI_CALL_FUNCTION,  /* CALL_FUNCTION_VECTOR: run queued calls */
	IPI_IRQ_WORK,       /* IRQ_WORK_VECTOR: irq_work_run() */
	IPI_STOP,           /* an NMI: gets through with interrupts off */
};

void arch_send_ipi(int cpu, enum ipi_kind kind);
void arch_send_self_ipi(enum ipi_kind kind);

/* The hardware id (APIC id) of a CPU number. */
uint32_t arch_cpu_hw_id(int cpu);

/*
 * Find the CPUs (ACPI MADT), set up the boot CPU's interrupt controller,
 * timer and per-CPU areas; interrupts are on when it returns.
 */
void smp_prepare_cpus(void);

/* Start every other CPU found (after sched_init: each becomes its idle
 * task). CPUs that do not answer are reported and left offline. */
void smp_boot_secondary_cpus(void);

/*
 * Start one CPU: give it number cpu and wait at most timeout_us for it to
 * come online. Returns false (and frees what was prepared) when it does
 * not answer; exported for the test that asks a CPU that is not there.
 */
bool smp_boot_cpu(int cpu, uint32_t apic_id, uint64_t timeout_us);

#endif
