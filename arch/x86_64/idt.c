/*
 * The IDT: all 256 vectors point at entry.asm's stubs, as interrupt gates
 * (interrupts off on entry). Double fault, NMI and machine check switch to
 * their IST stacks, since they may arrive with a broken stack pointer.
 */
#include <stdint.h>
#include "idt.h"
#include "gdt.h"
#include "trap.h"

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
} __attribute__((packed));

struct idt_ptr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

#define GATE_INTERRUPT_PRESENT 0x8e /* P=1, DPL=0, 64-bit interrupt gate */

extern const uint64_t trap_stubs[256];

static struct idt_gate idt[256] __attribute__((aligned(16)));

static uint8_t idt_ist_for(unsigned vector)
{
	switch (vector) {
	case VEC_DOUBLE_FAULT:
		return IST_DOUBLE_FAULT;
	case VEC_NMI:
		return IST_NMI;
	case VEC_MACHINE_CHECK:
		return IST_MACHINE_CHECK;
	default:
		return 0;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t off = trap_stubs[v];

		idt[v] = (struct idt_gate){
			.offset_lo = off & 0xffff,
			.selector = KERNEL_CS,
			.ist = idt_ist_for(v),
			.type_attr = GATE_INTERRUPT_PRESENT,
			.offset_mid = (off >> 16) & 0xffff,
			.offset_hi = off >> 32,
		};
	}
}

void idt_load(void)
{
	struct idt_ptr ptr = {sizeof(idt) - 1, (uint64_t)idt};
	__asm__ volatile("lidt %0" : : "m"(ptr) : "memory");
}
