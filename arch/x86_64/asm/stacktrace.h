/*
 * Walking a stack: the call traces of reports, and the activations above
 * a point of the running code. The core asks here and never reads a frame
 * register itself. On x86-64 the walk follows the frame-pointer chain (the
 * kernel is built with -fno-omit-frame-pointer): each frame holds its
 * caller's frame address at [frame] and its return address at [frame + 8]
 * (stacktrace.c, docs/boot.md).
 */
#ifndef _ASM_X86_STACKTRACE_H
#define _ASM_X86_STACKTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"

struct trap_frame;

/* Print the caller's symbolised call trace ("Call Trace:", then one line
 * per call, from the call of dump_stack() outwards). */
void dump_stack(void);

/* The same for an interrupted context: its instruction, then its callers
 * (oops reports, NMI backtraces). */
void show_stack_regs(const struct trap_frame *regs);

/* The same for a task switched out by __switch_to(), from the stack
 * pointer it saved (asm/switch_to.h): the call that switched, outwards. */
void show_stack_switched(uint64_t saved_sp);

/*
 * One activation of a function on the running stack: frame tells it from
 * every other live activation, ret is where it returns to in its caller.
 * The pair also tells it from a later activation that reuses the frame
 * (a later call from another site returns elsewhere).
 */
struct unwind_state {
	uintptr_t frame;
	uintptr_t ret;
};

/* The activation of the caller of the function this is expanded in: it
 * reads that function's frame pointer, so it is always inlined, into a
 * function that has a frame (any kernel C function, at -O2 as built). */
static __always_inline void unwind_start_caller(struct unwind_state *s)
{
	const uintptr_t *fp = __builtin_frame_address(0);

	s->frame = fp[0];
	s->ret = ((const uintptr_t *)s->frame)[1];
}

/* Move s to its caller's activation. False, with s unchanged, at the
 * outermost one, or where the chain is broken: a frame that is not
 * mapped or does not lie further up the stack ends the walk. */
bool unwind_next_frame(struct unwind_state *s);

#endif
