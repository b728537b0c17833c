/*
 * The local APIC (xAPIC, memory-mapped, or x2APIC, through MSRs: lapic.c
 * picks one at boot) and the I/O APIC: interrupt delivery,
 * inter-processor interrupts and the per-CPU timer. Everything the kernel
 * needs from them goes through these functions, which hide the mode.
 */
#ifndef _ASM_X86_APIC_H
#define _ASM_X86_APIC_H

#include <stdbool.h>
#include <stdint.h>

/* Interrupt vectors (Linux's numbers where Linux has one). */
enum {
	PIC_VECTOR_BASE = 0x20,        /* 8259 remapped here, then masked */
	IRQ_VECTOR_BASE = 0x30,        /* I/O APIC: ISA IRQ n at 0x30 + n */
	LOCAL_TIMER_VECTOR = 0xec,
	IRQ_WORK_VECTOR = 0xf6,        /* irq_work_queue() self-IPI */
	CALL_FUNCTION_VECTOR = 0xfc,
	RESCHEDULE_VECTOR = 0xfd,
	ERROR_APIC_VECTOR = 0xfe,
	SPURIOUS_APIC_VECTOR = 0xff,
};

/* Choose the mode and map the local APIC (boot CPU, once, phys unused in
 * x2APIC mode), and set up the calling CPU's in that mode. */
void lapic_init(uint64_t phys);
void lapic_setup_cpu(void);
/* The calling CPU's APIC id: 32 bits in x2APIC mode, 8 in xAPIC mode. */
uint32_t lapic_id(void);
void lapic_eoi(void);
/* The mode lapic_init() chose, and the largest APIC id an IPI can name
 * in it (a CPU with a larger one cannot be started). */
bool lapic_x2apic_mode(void);
uint32_t lapic_max_apic_id(void);

void apic_send_ipi(uint32_t apic_id, uint8_t vector);
void apic_send_self_ipi(uint8_t vector);
void apic_send_nmi(uint32_t apic_id);
void apic_send_init(uint32_t apic_id);
void apic_send_sipi(uint32_t apic_id, uint8_t page);

/* The timer (arch_timer_init, arch_timer_oneshot) is in asm/timer.h. */

/* Remap and mask the legacy 8259 PICs; program the I/O APICs with every
 * pin masked and the ISA IRQs routed (overrides applied) to the boot CPU. */
void pic_disable(void);
void ioapic_init(uint32_t dest_apic_id);
/* Redirection entry of a global system interrupt, for the tests; ~0 when
 * no I/O APIC serves it. */
uint64_t ioapic_read_entry(uint32_t gsi);

#endif
