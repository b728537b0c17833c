/*
 * The first frame of a new task (asm/switch_to.h), as Linux's
 * copy_thread(): the frame __switch_to pops, built by hand, so that the
 * first switch to the task "returns" into task_entry (switch.asm), which
 * calls the core's entry function held in RBX.
 */
#include "asm/switch_to.h"
#include "panic.h"

extern char task_entry[];

uint64_t arch_setup_task_stack(void *stack_top, void (*fn)(struct task_struct *prev))
{
	struct inactive_task_frame *f = (struct inactive_task_frame *)stack_top - 1;

	/* After the frame is popped RSP is stack_top again: 16-byte aligned
	 * at task_entry, so its call leaves fn a standard frame. */
	if ((uintptr_t)stack_top % 16)
		panic("arch_setup_task_stack: stack top %p not 16-byte aligned",
		      stack_top);
	*f = (struct inactive_task_frame){
		.rbx = (uint64_t)fn,
		.rbp = 0, /* ends every call trace at task_entry */
		.ret_addr = (uint64_t)task_entry,
	};
	return (uint64_t)f;
}
