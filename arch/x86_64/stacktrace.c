/*
 * Call traces and stack walking (asm/stacktrace.h), by the frame-pointer
 * chain: the kernel is built with -fno-omit-frame-pointer, so each frame
 * holds the caller's RBP at [rbp] and the return address at [rbp + 8].
 * Every frame address is checked against the page tables before it is
 * read, so a corrupt chain ends the trace instead of faulting inside the
 * report.
 */
#include "asm/stacktrace.h"
#include "asm/page.h"
#include "asm/pgtable.h"
#include "asm/ptrace.h"
#include "asm/switch_to.h"
#include "ksyms.h"
#include "printk.h"

#define MAX_FRAMES 32

static bool frame_readable(uintptr_t rbp)
{
	if (rbp % 8 || rbp < DIRECT_MAP_BASE)
		return false;
	return (paging_lookup(rbp) & PTE_P) &&
	       (paging_lookup(rbp + 8) & PTE_P);
}

bool unwind_next_frame(struct unwind_state *s)
{
	const uintptr_t *frame = (const uintptr_t *)s->frame;
	uintptr_t caller;

	if (!frame_readable(s->frame))
		return false;
	caller = frame[0];
	/* Stacks grow down: a caller's frame is higher up. */
	if (caller <= s->frame || !frame_readable(caller))
		return false;
	s->frame = caller;
	s->ret = ((const uintptr_t *)caller)[1];
	return true;
}

static void show_frame(uintptr_t addr)
{
	printk(" [<%016lx>] ", addr);
	print_symbol(addr);
	printk("\n");
}

/* The trace from rip, in the function whose frame is rbp, outwards. */
static void show_stack(uintptr_t rip, uintptr_t rbp)
{
	unsigned long flags = console_lock();
	struct unwind_state s = {.frame = rbp};

	printk("Call Trace:\n");
	show_frame(rip);
	if (frame_readable(rbp))
		s.ret = ((const uintptr_t *)rbp)[1];
	for (int i = 0; i < MAX_FRAMES && s.ret; i++) {
		/* The return address points after the call: report the call
		 * itself, so the line is the caller's, not the next one. */
		show_frame(s.ret - 1);
		if (!unwind_next_frame(&s))
			break;
	}
	console_unlock(flags);
}

__attribute__((noinline)) void dump_stack(void)
{
	const uintptr_t *fp = __builtin_frame_address(0);

	/* fp[0] is our caller's frame, fp[1] our return address into it. */
	show_stack(fp[1] - 1, fp[0]);
}

void show_stack_regs(const struct trap_frame *regs)
{
	show_stack(regs->rip, regs->rbp);
}

void show_stack_switched(uint64_t saved_sp)
{
	const struct inactive_task_frame *f = (const void *)saved_sp;

	/* Where the task resumes (the return address of its call of
	 * __switch_to), in the frame of that call's caller. */
	show_stack(f->ret_addr, f->rbp);
}
