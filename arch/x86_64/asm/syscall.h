/*
 * What the core needs from the CPU to run user code (see docs/usermode.md):
 * the system call's registers, the kernel stack that ring-3 entries land
 * on, and the first entry of a new program into ring 3. The entry code
 * itself (syscall/sysretq, swapgs) is entry.asm's; it calls the core's
 * hooks declared in kernel/entry.h.
 */
#ifndef _ASM_X86_SYSCALL_H
#define _ASM_X86_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"
#include "asm/ptrace.h"

/* The x86-64 system call ABI: number in rax, arguments in rdi, rsi, rdx,
 * r10, r8, r9 (r10 stands in for rcx, which syscall overwrites with the
 * return address), result in rax. */
static inline long syscall_get_nr(const struct trap_frame *f)
{
	return (long)f->rax;
}

static inline void syscall_get_arguments(const struct trap_frame *f,
					 unsigned long args[6])
{
	args[0] = f->rdi;
	args[1] = f->rsi;
	args[2] = f->rdx;
	args[3] = f->r10;
	args[4] = f->r8;
	args[5] = f->r9;
}

static inline void syscall_set_return_value(struct trap_frame *f, long v)
{
	f->rax = (uint64_t)v;
}

/* Per CPU, at each switch to a user task: the top of its kernel stack,
 * where the syscall entry and interrupts from ring 3 (TSS.RSP0) land. */
void arch_set_kernel_stack(uintptr_t top);

/* A frame that enters ring 3 at ip with stack sp, interrupts on, and
 * arg0/arg1 in the first two argument registers. */
void arch_user_frame_init(struct trap_frame *f, uintptr_t ip, uintptr_t sp,
			  uint64_t arg0, uint64_t arg1);

/* Leave the kernel through f into ring 3 (entry.asm's ret_to_user): the
 * exit work (kernel/entry.h) runs first. f lies on the task's kernel stack,
 * below which nothing the caller owns is needed any more. */
__noreturn void arch_enter_user(struct trap_frame *f);

/* Set up this CPU for user mode: the syscall MSRs, SMEP/SMAP/UMIP when
 * the CPU has them, TSC_AUX = cpu for RDPID/RDTSCP, the FPU for user code.
 * tss: this CPU's TSS. */
struct tss;
void usermode_cpu_init(struct tss *tss, int cpu);

/* Print what protection user mode runs with (boot CPU, once). */
void usermode_print_features(void);

#endif
