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

/* NMIs that arrived before the core's handler was set: counted and
 * ignored (Linux ignores early NMIs too), for the core to report. */
unsigned long arch_nmis_before_handler(void);

/*
 * Find the CPUs (ACPI MADT; one when there is none) and number them: the
 * boot CPU is 0, the others follow in table order. Returns how many.
 */
int arch_find_cpus(void);

/* The hardware id (APIC id) of a CPU number. */
uint32_t arch_cpu_hw_id(int cpu);
/* The hardware id the next arch_kick_cpus() of cpu starts it at; not
 * while cpu runs. */
void arch_set_cpu_hw_id(int cpu, uint32_t hw_id);

/*
 * Start the CPUs cpus[0..n-1] together (Linux 6.5's parallel bring-up),
 * each at entry(cpu) on a stack of its own, without waiting for any: each
 * finds its CPU number by its hardware id (arch_cpu_hw_id) in the
 * trampoline. A CPU there is no memory for is reported and its entry in
 * cpus[] set to -1. Then arch_poll_cpu_alive() each one that was started,
 * until it answers. Calls and polls are made one at a time (the hotplug
 * lock, or the boot). A kick may overlap an earlier one only if the
 * earlier one's CPUs never run: each kick copies the trampoline afresh
 * (smp.absent_cpu_bound_runs_from_last_answer starts CPU 1 while an
 * absent APIC id is still being waited for).
 */
void arch_kick_cpus(int *cpus, int n, void (*entry)(int cpu));

/*
 * Whether a CPU arch_kick_cpus() started has run arch_cpu_init_ap(): 1
 * yes; 0 not yet (a second STARTUP goes after 1 ms); -1 it has not, and
 * timeout_us have passed since its start and since the last CPU of any
 * start answered, and it will not: it is parked again, what was prepared
 * for it freed, and a line printed. Ask until it is not 0; it costs no
 * waiting, the caller decides how to wait between looks.
 */
int arch_poll_cpu_alive(int cpu, uint64_t timeout_us);
/* Whether a CPU has been given up on since boot: from then on the
 * trampoline's page stays mapped 1:1, for a late riser to stop in it
 * (smpboot.c); until then it is mapped only while CPUs start. */
bool arch_trampoline_kept(void);

/*
 * Start CPU cpu alone with hardware id hw_id (arch_kick_cpus) and wait
 * for it to run arch_cpu_init_ap(), for at most the bound
 * arch_poll_cpu_alive() gives timeout_us. Returns false (and frees what
 * was prepared, and parks the CPU) when it does not answer.
 */
bool arch_boot_cpu(int cpu, uint32_t hw_id, void (*entry)(int cpu),
		   uint64_t timeout_us);

/*
 * The first call a started CPU makes, once its per-CPU base is set: its
 * own descriptor tables and interrupt stacks, the IDT, its local APIC.
 * Tells the boot CPU that this CPU is alive.
 */
void arch_cpu_init_ap(int cpu);

/*
 * The last thing a CPU that goes offline does: interrupts off, *dead set
 * (its last write to memory), then halt for good. Only an NMI wakes it,
 * and that returns to the halt; it comes back only through
 * arch_kick_cpus(), whose INIT resets it, reusing what the first start
 * prepared (descriptor tables, stacks).
 */
__attribute__((noreturn)) void arch_cpu_play_dead(bool *dead);

#endif
