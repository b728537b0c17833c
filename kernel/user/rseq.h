/*
 * Restartable sequences, modelled on Linux's rseq (docs/usermode.md): a
 * process registers a struct rseq (uapi.h); on its way back to ring 3
 * after it was switched out, the kernel stores the current CPU in the
 * area and, if the process was inside a registered critical section,
 * moves its RIP to the section's abort handler.
 */
#ifndef RSEQ_H
#define RSEQ_H

#include "asm/ptrace.h"
#include "user/process.h"

/* From exit_to_user_mode(), interrupts on: the work owed since the last
 * switch-out. A registration that cannot be read or written (or a
 * descriptor that makes no sense) kills the process, as Linux does. */
void rseq_handle_notify_resume(struct process *p, struct trap_frame *f);

/* Whether p has rseq work before it returns to ring 3. */
static inline bool rseq_pending(const struct process *p)
{
	return p && p->rseq && p->rseq_event;
}

#endif
