/* CPUs and cross-CPU function calls, as in Linux. */
#ifndef SMP_H
#define SMP_H

#include <stdbool.h>
#include <stdint.h>
#include "cpumask.h"

struct trap_frame;

typedef void (*smp_call_func_t)(void *arg);

/*
 * Run fn(arg) on cpu (in its interrupt context, interrupts off), or here
 * with interrupts off when cpu is this CPU. With wait, return once it has
 * run. Returns 0, or -1 when cpu is not online. A call queued to a CPU
 * that then goes offline runs there before the CPU leaves. Called with
 * interrupts on (not from an interrupt handler) unless cpu is this CPU;
 * allocates nothing, so it cannot fail for lack of memory. Without wait,
 * it may wait for this CPU's previous call without wait to be taken.
 */
int smp_call_function_single(int cpu, smp_call_func_t fn, void *arg,
			     bool wait);

/* The same on every online CPU in mask except this one. */
void smp_call_function_many(const cpumask_t *mask, smp_call_func_t fn,
			    void *arg, bool wait);

/* The boot CPU joins the online set and the IPIs get their handlers;
 * after setup_per_cpu_areas() and set_cpu_possible() of every CPU. */
void smp_prepare_boot_cpu(void);

/* Mark the calling CPU online (it takes IPIs from now on), or no longer
 * online (on its way out, kernel/cpu.c); active: it takes tasks. */
void set_cpu_online(int cpu);
void set_cpu_offline(int cpu);
void set_cpu_active(int cpu, bool active);
void set_cpu_possible(int cpu);

/* Hotplug callbacks (kernel/cpu.c): open cpu's call queue before it
 * starts; on the dying CPU, close it and run what it holds. */
int smpcfd_prepare_cpu(unsigned int cpu);
int smpcfd_dying_cpu(unsigned int cpu);

/* Interrupt-side entry points, registered with arch by
 * smp_prepare_boot_cpu(). */
void smp_call_function_interrupt(void);
void scheduler_ipi(void);
void smp_nmi_interrupt(const struct trap_frame *regs);

/* From each CPU's tick: print what NMIs could not (this CPU's printk
 * text from NMI context that nobody flushed, the unexpected NMIs counted
 * on it, and on CPU 0 those before the handler existed). */
void nmi_report_deferred(void);

/* Unexpected NMIs cpu has taken since boot (user_only: those that
 * interrupted ring 3), counted and ignored. */
unsigned long nmi_unexpected_count(int cpu, bool user_only);

/* Print every online CPU's stack (the others' through an NMI, whose
 * text waits in their printk buffers until they have answered). */
void trigger_all_cpu_backtrace(void);

/* The same for one online CPU (this one: directly). False if cpu is not
 * online or did not answer the NMI within the bound (said in a line). */
bool trigger_single_cpu_backtrace(int cpu);

/* Reschedule IPIs this CPU has taken (the scheduler's, and the tests'). */
DECLARE_PER_CPU_STAT(unsigned long, resched_ipi_count);

#endif
