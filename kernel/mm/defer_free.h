/*
 * Frees that cannot be carried out where they are asked for: on RT=1 a
 * context that cannot sleep may not take the allocators' shared locks
 * (mm_lock.h), so kfree() and pages_free() there leave the pointer in
 * this CPU's list, and the CPU's next allocator call from a context that
 * may sleep frees it (defer_free.c).
 */
#ifndef MM_DEFER_FREE_H
#define MM_DEFER_FREE_H

#include <stdbool.h>
#include <stddef.h>
#include "compiler.h"
#include "percpu.h"

/* Frees in hard interrupts are rare (none in the kernel itself: tests
 * make them), and the next allocation on the CPU makes them. */
#define DEFER_FREE_MAX 64

/* Free p later, on this CPU: kfree(p) if npages is 0, else
 * pages_free(p, npages). Interrupts or preemption off, or in a hard
 * interrupt. */
void defer_free(void *p, size_t npages);

/* Each CPU's deferred frees (defer_free.c); count is written with the
 * CPU's interrupts off, and read alone by defer_free_poll(). */
struct defer_free_cpu {
	unsigned int count;                  /* items[0..count) wait */
	struct {
		void *p;
		size_t npages;               /* 0: kfree(p) */
	} items[DEFER_FREE_MAX];
};
DECLARE_PER_CPU(struct defer_free_cpu, defer_free_cpu);
void defer_free_flush(void);

/* At the start of kmalloc(), kfree(), pages_alloc() and pages_free():
 * the frees this CPU deferred, made now if this context may sleep and
 * holds no lock of the allocators (defer_free_flush()). On RT=0 nothing
 * is ever deferred, and this is nothing; on RT=1 one %gs load when none
 * wait (raw: a hint, which the flush reads again with interrupts off). */
static __always_inline void defer_free_poll(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) &&
	    unlikely(raw_cpu_read(defer_free_cpu.count)))
		defer_free_flush();
}

/* CPU cpu's deferred frees, now, from another CPU: the hotplug DEAD step
 * of a CPU that no longer runs anything (kmalloc_cpu_dead()). */
void defer_free_cpu_dead(int cpu);
/* Frees deferred so far, and those dropped because the CPU's list was
 * full (each reported), over all CPUs. */
unsigned long defer_free_count(void);
unsigned long defer_free_dropped(void);

#endif
