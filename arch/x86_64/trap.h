/* Exception vectors and the registration of interrupt handlers. */
#ifndef ARCH_TRAP_H
#define ARCH_TRAP_H

#include <stdint.h>
#include "asm/ptrace.h"

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
