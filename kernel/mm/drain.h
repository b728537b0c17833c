/*
 * Emptying the allocators' per-CPU caches (kmalloc's sheaves, the page
 * lists) back into the shared pools: for a CPU going offline, and for
 * tests that count free pages.
 */
#ifndef MM_DRAIN_H
#define MM_DRAIN_H

#include <stdbool.h>

/*
 * CPU cpu's caches, from another CPU, without their locks. Precondition:
 * nothing runs on cpu any more and no task holds one of its cache locks
 * (on RT=1 such a task is migrate-disabled and so still on cpu): the
 * CPU-hotplug teardown, after its tasks have left. kmalloc first: the
 * slabs it empties go to the page allocator (through the caller's own
 * CPU list, when the caller is preemptible).
 */
void mm_drain_cpu(int cpu);

/* The same, as the CPU-hotplug DEAD steps (CPUHP_SLUB_DEAD, then
 * CPUHP_PAGE_ALLOC_DEAD, kernel/cpu.c): the caches of a CPU that has
 * parked go back to the shared pools, as Linux's slub_cpu_dead() and
 * page_alloc_cpu_dead(), and so do the frees it deferred (defer_free.h).
 * Always 0: a DEAD step must not fail. */
int kmalloc_cpu_dead(unsigned int cpu);
int page_alloc_cpu_dead(unsigned int cpu);

/*
 * The frees waiting for a grace period (rcu_barrier(): task structs and
 * their stacks), the freed kernel stacks waiting for a TLB flush
 * (kstack_drain()), then
 * every online CPU's caches, each drained on its own CPU under its own
 * locks: the calling task moves to each CPU in turn (set_cpus_allowed)
 * and back to its affinity (restore_cpus_allowed(): if every CPU of it
 * went offline meanwhile, the fallback a task gets whose CPUs leave,
 * every possible CPU, with Linux's "no longer affine" line). Needs preemptible task context with
 * migration enabled; a CPU going offline meanwhile is skipped (its own
 * teardown drains it). Afterwards page_free_count() is exact again for a
 * caller that compares it with a figure taken after an earlier drain.
 */
void mm_drain_all(void);

/*
 * The mechanism: fn(arg) on every online CPU, in the calling task moved
 * there. Returns how many online CPUs it could not reach (0 normally;
 * all of them, with a warning, when the caller cannot migrate, in which
 * case fn is not called).
 */
int on_each_cpu_hop(void (*fn)(void *arg), void *arg);
/* Whether the calling context may use on_each_cpu_hop(). */
bool on_each_cpu_hop_possible(void);

#endif
