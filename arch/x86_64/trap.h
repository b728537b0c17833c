/* The saved state of an interrupted context, as entry.asm builds it. */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>

/* Field order is fixed by entry.asm's pushes: the general registers (last
 * pushed first), then the stub's vector and error code, then the CPU's
 * interrupt frame. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;
	uint64_t error_code; /* zero when the CPU pushes none */
	uint64_t rip, cs, rflags, rsp, ss;
};

_Static_assert(sizeof(struct trap_frame) == 22 * 8, "entry.asm layout");
_Static_assert(sizeof(struct trap_frame) % 16 == 0,
	       "keeps RSP 16-byte aligned at the call into C");

/* Exception vectors. */
enum {
	VEC_DIVIDE = 0,
	VEC_DEBUG = 1,
	VEC_NMI = 2,
	VEC_BREAKPOINT = 3,
	VEC_INVALID_OPCODE = 6,
	VEC_DOUBLE_FAULT = 8,
	VEC_GP = 13,
	VEC_PAGE_FAULT = 14,
	VEC_MACHINE_CHECK = 18,
	NR_EXCEPTIONS = 32,
	VEC_SPURIOUS = 0xff,
};

typedef void (*irq_handler_t)(struct trap_frame *frame);

/* Route an interrupt vector (32..254) to a handler; panics on a vector
 * already taken. */
void trap_set_handler(unsigned vector, irq_handler_t handler);

/* The NMI handler (NMIs arrive on their own IST stack). */
void trap_set_nmi_handler(irq_handler_t handler);

/* Print the register dump and symbolised backtrace of a frame. */
void trap_show_regs(const struct trap_frame *frame);

#endif
