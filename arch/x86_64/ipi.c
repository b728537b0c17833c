/*
 * Inter-processor interrupts: each kind has a vector on the local APIC,
 * except the stop request, which is an NMI so that it reaches a CPU
 * spinning with interrupts off. The core registers what each kind does.
 */
#include "asm/smp.h"
#include "asm/apic.h"
#include "panic.h"
#include "trap.h"

static const uint8_t ipi_vectors[NR_IPI_KINDS] = {
	[IPI_RESCHEDULE] = RESCHEDULE_VECTOR,
	[IPI_CALL_FUNCTION] = CALL_FUNCTION_VECTOR,
	[IPI_IRQ_WORK] = IRQ_WORK_VECTOR,
};

/* Written once at boot, before the vector is routed; read in interrupts. */
static void (*ipi_handlers[NR_IPI_KINDS])(void);
static void (*nmi_handler)(const struct trap_frame *regs);

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	if (kind == IPI_STOP)
		apic_send_nmi(arch_cpu_hw_id(cpu));
	else
		apic_send_ipi(arch_cpu_hw_id(cpu), ipi_vectors[kind]);
}

void arch_send_self_ipi(enum ipi_kind kind)
{
	if (kind == IPI_STOP)
		panic("arch_send_self_ipi: no self-NMI");
	apic_send_self_ipi(ipi_vectors[kind]);
}

static void ipi_interrupt(struct trap_frame *f)
{
	for (int kind = 0; kind < NR_IPI_KINDS; kind++)
		if (ipi_vectors[kind] == f->vector && kind != IPI_STOP) {
			ipi_handlers[kind]();
			return;
		}
}

void arch_set_ipi_handler(enum ipi_kind kind, void (*fn)(void))
{
	if (kind >= IPI_STOP || ipi_handlers[kind])
		panic("arch_set_ipi_handler: IPI kind %d invalid or taken",
		      kind);
	ipi_handlers[kind] = fn;
	trap_set_handler(ipi_vectors[kind], ipi_interrupt);
}

static void nmi_interrupt(struct trap_frame *f)
{
	nmi_handler(f);
}

void arch_set_nmi_handler(void (*fn)(const struct trap_frame *regs))
{
	nmi_handler = fn;
	trap_set_nmi_handler(nmi_interrupt);
}
