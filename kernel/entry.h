/*
 * The core's half of every interrupt, as Linux's irqentry_*(): arch's trap
 * dispatch (arch/x86_64/trap.c) decodes the vector and calls the handler;
 * these bracket it with the interrupt context the core tracks in the
 * preempt count, and decide whether the interrupted task is preempted on
 * the way out. Arch code never calls the scheduler itself.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"
#include "asm/ptrace.h"

/* Before a device or IPI handler of vector runs: in_hardirq() is true from
 * here. */
void irqentry_enter(unsigned int vector);

/* After the handler (and its EOI). irqs_were_on: the interrupted code ran
 * with interrupts on, so it may be preempted here if it is preemptible. */
void irqentry_exit(bool irqs_were_on);

/* Around an NMI handler: NMIs nest inside anything, so they only mark the
 * context and never schedule. */
void nmi_enter(void);
void nmi_exit(void);

/* User mode (docs/usermode.md). */

/* A system call, from the syscall entry: f is the user's frame (number and
 * arguments in, result out). Runs it with interrupts on; returns with
 * them off. */
void syscall_entry(struct trap_frame *f);

/* The last step of every return to ring 3, with interrupts off: runs what
 * must happen before user code goes on (a pending preemption, the rseq
 * fix-up) and returns with interrupts still off and nothing pending. */
void exit_to_user_mode(struct trap_frame *f);

/* An exception that user code caused (vector, named fault, at user ip;
 * addr is the faulting address of a page fault): the process is killed
 * with a one-line report, and the kernel goes on. */
__noreturn void user_exception(unsigned vector, const char *fault,
			       uintptr_t ip, uintptr_t addr);

#endif
