/*
 * Running another task: the stack switch (switch.asm) and the first frame
 * of a task that never ran (process.c), as Linux's asm/switch_to.h and
 * copy_thread(). The scheduler keeps each task's saved stack pointer and
 * passes it back; what lies on that stack is the arch's business.
 */
#ifndef _ASM_X86_SWITCH_TO_H
#define _ASM_X86_SWITCH_TO_H

#include <stdint.h>

struct task_struct;

/*
 * The frame __switch_to leaves on a task's stack when it switches away,
 * lowest address first; the saved stack pointer is its address. As
 * Linux's struct inactive_task_frame; switch.asm pushes it in this order.
 */
struct inactive_task_frame {
	uint64_t r15, r14, r13, r12, rbx, rbp;
	uint64_t ret_addr; /* into the caller of __switch_to, or task_entry */
};

_Static_assert(sizeof(struct inactive_task_frame) == 7 * 8,
	       "switch.asm pushes six registers below the return address");

/*
 * Save the callee-saved registers on the outgoing stack, store its stack
 * pointer in *prev_sp, and continue on the stack saved as next_sp. Returns
 * on the incoming side, with the task that was switched away from (prev
 * as the outgoing side passed it), which the incoming task finishes
 * switching. Interrupts are off across it.
 */
struct task_struct *__switch_to(uint64_t *prev_sp, uint64_t next_sp,
			 struct task_struct *prev);

/*
 * Lay out on a new, empty stack whose top (16-byte aligned) is stack_top
 * the frame of a task that never ran, and return its saved stack pointer
 * for __switch_to: the first switch to it calls fn(prev), which never
 * returns. Its call trace ends there.
 */
uint64_t arch_setup_task_stack(void *stack_top, void (*fn)(struct task_struct *prev));

#endif
