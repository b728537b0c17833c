/*
 * Kernel stacks with guard pages: each stack lives in its own slot of a
 * virtual region reserved for stacks, with the page below it left
 * unmapped, so an overflow faults (and is reported) instead of silently
 * running into its neighbour.
 */
#ifndef STACK_H
#define STACK_H

#include <stddef.h>

#define KSTACK_SIZE (16 * 1024)

/* The lowest usable address of a new stack (its top is + KSTACK_SIZE);
 * NULL when no memory or no slot is left. */
void *kstack_alloc(void);
/* Unmaps at once; the memory comes back in batches (see stack.c). May
 * sleep (for the drainer, when the batch is full): preemptible task
 * context. */
void kstack_free(void *stack);

/* Release every freed stack now (one TLB flush on every CPU): for callers
 * that count free pages. Sleeps while another drainer works. */
void kstack_drain(void);

/* Held by whoever drains (stack.c); the tests hold it to play a drainer
 * that was preempted. */
struct mutex;
extern struct mutex kstack_drain_lock;

#endif
