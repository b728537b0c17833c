/*
 * CPU hotplug, as Linux's remove_cpu()/add_cpu() (docs/hotplug.md): a
 * CPU leaves the kernel and comes back from
 * inside it. Each CPU walks a fixed ladder of states; every state may
 * name a startup(cpu), run on the way up, and a teardown(cpu), run on the
 * way down, in the reverse order. That table is how subsystems drain a
 * CPU's share of their data and prepare it again.
 *
 * Where a state's callbacks run depends on its section of the ladder:
 *
 *   PREPARE/DEAD   on the CPU that asked (cpu_up/cpu_down), task context:
 *                  startup before the CPU starts, teardown once it has
 *                  parked. Draining a dead CPU's caches belongs here.
 *   BRINGUP_CPU    the CPU is started, or asked to park and waited for.
 *   STARTING/DYING on the CPU itself, interrupts off: startup just before
 *                  it goes online, teardown just after it left the
 *                  online set, the last thing it does.
 *   ONLINE         on the CPU that asked, task context, the CPU online.
 *
 * Wiring a subsystem in is one line, at its initialisation:
 *   cpuhp_setup_state_nocalls(CPUHP_PAGE_ALLOC_DEAD, "mm/page_alloc:dead",
 *                             NULL, page_alloc_cpu_dead);
 * (the core's own states are filled in kernel/cpu.c's table) into a
 * state reserved for it below, or into a dynamic one
 * (CPUHP_BP_PREPARE_DYN, CPUHP_AP_ONLINE_DYN), which returns the state
 * it got.
 */
#ifndef CPUHOTPLUG_H
#define CPUHOTPLUG_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler.h"
#include "cpumask.h"
#include "errno.h"

enum cpuhp_state {
	CPUHP_INVALID = -1,
	CPUHP_OFFLINE = 0,
	/* PREPARE/DEAD: on the controlling CPU, task context. */
	CPUHP_SMPCFD_PREPARE,        /* cross-CPU calls: open the queue */
	CPUHP_TIMERS_PREPARE,        /* timers: dead CPU's move here */
	CPUHP_SOFTIRQ_DEAD,          /* tasklets: dead CPU's move here */
	CPUHP_NET_DEV_DEAD,          /* backlog: dead CPU's buffers move here */
	/* Reserved for the allocators' per-CPU caches: their drain of a
	 * dead CPU goes here, kmalloc's first (it frees slabs to the page
	 * allocator); free until those caches exist (docs/hotplug.md). */
	CPUHP_PAGE_ALLOC_DEAD,       /* page allocator: per-CPU page lists */
	CPUHP_SLUB_DEAD,             /* kmalloc: per-CPU object caches */
	CPUHP_PERCPU_CNT_DEAD,       /* percpu_counter: fold the deltas */
	CPUHP_RCUTREE_PREP,          /* RCU: its view / its callbacks move */
	CPUHP_BP_PREPARE_DYN,
	CPUHP_BP_PREPARE_DYN_END = CPUHP_BP_PREPARE_DYN + 3,
	CPUHP_BRINGUP_CPU,           /* start the CPU / park it */
	/* STARTING/DYING: on the CPU itself, interrupts off. */
	CPUHP_AP_SCHED_STARTING,     /* its run queue is empty at the end */
	CPUHP_AP_IRQ_WORK_DYING,     /* its irq_work runs before it goes */
	CPUHP_AP_SMPCFD_DYING,       /* its queued cross-CPU calls run */
	CPUHP_AP_STARTING_DYN,
	CPUHP_AP_STARTING_DYN_END = CPUHP_AP_STARTING_DYN + 1,
	CPUHP_AP_ONLINE,             /* in cpu_online_mask from here up */
	CPUHP_TEARDOWN_CPU,          /* - / ask the CPU to park, wait */
	/* ONLINE: on the controlling CPU, task context, the CPU online. */
	CPUHP_AP_SCHED_WAIT_EMPTY,   /* every task has left the CPU */
	CPUHP_AP_RCUTREE_ONLINE,     /* its rcuc thread runs / parks */
	CPUHP_AP_ONLINE_DYN,
	CPUHP_AP_ONLINE_DYN_END = CPUHP_AP_ONLINE_DYN + 3,
	CPUHP_AP_ACTIVE,             /* the scheduler places tasks there */
	CPUHP_ONLINE,
};

/*
 * Take cpu offline / bring it back. 0, or a negative error number with a
 * console line saying why: -EINVAL for a number that names no CPU,
 * -EALREADY when it is already offline (online), -EPERM for the boot CPU
 * (it takes the legacy interrupts and counts jiffies), -EBUSY for the
 * last online CPU, -EDEADLK when the caller is pinned to the CPU it takes
 * down; an error from a callback is passed on, the CPU back where it was.
 * Both sleep; one hotplug operation runs at a time.
 */
int cpu_down(int cpu);
int cpu_up(int cpu);

/* The state cpu is in (CPUHP_ONLINE for an online, active CPU). */
enum cpuhp_state cpuhp_cpu_state(int cpu);

/*
 * Fill a state: name, startup and teardown (either may be NULL). A
 * reserved state must be free (-EBUSY); CPUHP_BP_PREPARE_DYN,
 * CPUHP_AP_STARTING_DYN and CPUHP_AP_ONLINE_DYN take the first free slot
 * of their range (-ENOSPC when there is none). Returns, as Linux, the
 * state filled for a dynamic one, 0 for a reserved one, or a negative
 * error.
 * cpuhp_setup_state() also runs startup for every CPU already past the
 * state (where the state's section says), and undoes the registration
 * when one fails; the _nocalls form runs nothing. Callbacks return 0 or
 * a negative error; a STARTING/DYING or DEAD callback must not fail.
 */
int cpuhp_setup_state(enum cpuhp_state state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu));
int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int cpu),
			      int (*teardown)(unsigned int cpu));
/* Empty a state; cpuhp_remove_state() first runs teardown for every CPU
 * past it. */
void cpuhp_remove_state(enum cpuhp_state state);
void cpuhp_remove_state_nocalls(enum cpuhp_state state);

/*
 * The hotplug lock, Linux's cpu_hotplug_lock: while a reader holds it no
 * CPU comes or goes, so cpu_online_mask, num_online_cpus() and each
 * CPU's state stay as they are; cpu_up()/cpu_down() take it as the
 * writer. It sleeps: not in atomic context, and not while pinned
 * (migrate_disable) to a CPU that may be going down, whose cpu_down()
 * waits for the pin. Readers without it see each CPU's online bit flip
 * once per operation (see docs/hotplug.md for the order).
 */
void cpus_read_lock(void);
void cpus_read_unlock(void);

/* ---- for the kernel's own bring-up and idle loop ---- */

/* At boot, from the boot CPU's idle task: start CPUs 1..nr_cpus-1, all
 * at once, through the same steps as cpu_up(); entry is where each starts
 * (kmain's ap_main), for this and every later cpu_up(). Prints each
 * CPU's bring-up time; returns the time from the start to the last CPU
 * online, in ns. */
uint64_t bringup_nonboot_cpus(int nr_cpus, void (*entry)(int cpu));
/* On a starting CPU, interrupts off, just before set_cpu_online(). */
void notify_cpu_starting(int cpu);
/* On a starting CPU, interrupts off, just after set_cpu_online(): wakes
 * the CPU that waits for it (Linux's name; there the idle task calls it). */
void cpuhp_online_idle(int cpu);
/* The idle loop's question, interrupts off: has this CPU been asked to
 * leave? Then cpuhp_play_dead() runs its dying callbacks and parks it. */
bool cpuhp_should_die(void);
__noreturn void cpuhp_play_dead(void);

#endif
