/*
 * The saved state of an interrupted context, as entry.asm builds it for
 * every interrupt, exception and system call: the core reads and edits a
 * user context through it (the system call's number, arguments and return
 * value; the user RIP that a restartable sequence moves to its abort
 * handler). As Linux's struct pt_regs.
 */
#ifndef _ASM_X86_PTRACE_H
#define _ASM_X86_PTRACE_H

#include <stdbool.h>
#include <stdint.h>

/* Field order is fixed by entry.asm's pushes: the general registers (last
 * pushed first), then the stub's vector and error code, then the CPU's
 * interrupt frame (built by hand for a system call). */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector;     /* SYSCALL_VECTOR for a system call */
	uint64_t error_code; /* zero when the CPU pushes none */
	uint64_t rip, cs, rflags, rsp, ss;
};

_Static_assert(sizeof(struct trap_frame) == 22 * 8, "entry.asm layout");
_Static_assert(sizeof(struct trap_frame) % 16 == 0,
	       "keeps RSP 16-byte aligned at the call into C");

/* Not a hardware vector: marks a frame built by the syscall entry. */
#define SYSCALL_VECTOR 256

/* Whether the frame interrupted ring 3. */
static inline bool user_mode(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

static inline uintptr_t instruction_pointer(const struct trap_frame *f)
{
	return f->rip;
}

static inline void instruction_pointer_set(struct trap_frame *f, uintptr_t ip)
{
	f->rip = ip;
}

#endif
