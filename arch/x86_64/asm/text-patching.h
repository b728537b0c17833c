/*
 * Changing kernel code while other CPUs run it (Linux's text_poke_queue()
 * and text_poke_finish(), arch/x86/kernel/alternative.c). Used by the static keys
 * (asm/jump_label.h) and nothing else.
 */
#ifndef _ASM_X86_TEXT_PATCHING_H
#define _ASM_X86_TEXT_PATCHING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trap_frame;

/* Queue the replacement of the len-byte (at most 5) instruction at addr
 * by insn; text_poke_finish() patches what is queued at once. False, with
 * nothing queued, when the batch is full: the caller flushes it with
 * text_poke_finish() and queues again, so that every patch runs in the
 * context its caller set up (kernel/jump_label.c: pinned to one CPU). A
 * CPU that meets a site meanwhile continues at its emulate (where the new
 * instruction leads): the site first becomes an int3, whose handler sends
 * it there. Task context, interrupts on (it waits for every CPU), and the
 * task kept on its CPU from the first queueing to the last finish: the
 * IPIs serialise the other CPUs and this one is serialised by hand. One
 * caller at a time. */
bool text_poke_queue(void *addr, const void *insn, size_t len,
		     uintptr_t emulate);
void text_poke_finish(void);

/* From the #BP handler: true if f stopped at the site being patched (and
 * now goes on at its emulation) or at one whose int3 is gone from memory
 * (and now runs what is there), false for any other int3. */
bool text_poke_int3_handler(struct trap_frame *f);

/* How many int3s were taken after their patch had completed (a CPU that
 * fetched the int3 before it was overwritten). */
unsigned long text_poke_nr_stale_int3(void);

#endif
