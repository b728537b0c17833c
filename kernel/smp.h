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
 * run. Returns 0, or -1 when cpu is not online.
 */
int smp_call_function_single(int cpu, smp_call_func_t fn, void *arg,
			     bool wait);

/* The same on every online CPU in mask except this one. */
void smp_call_function_many(const cpumask_t *mask, smp_call_func_t fn,
			    void *arg, bool wait);

/* The boot CPU joins the online set and the IPIs get their handlers;
 * after setup_per_cpu_areas() and set_cpu_possible() of every CPU. */
void smp_prepare_boot_cpu(void);

/* Mark the calling CPU online (it takes IPIs from now on). */
void set_cpu_online(int cpu);
void set_cpu_possible(int cpu);

/* Interrupt-side entry points, registered with arch by
 * smp_prepare_boot_cpu(). */
void smp_call_function_interrupt(void);
void scheduler_ipi(void);
void smp_nmi_interrupt(const struct trap_frame *regs);

/* Print every online CPU's stack (the others' through an NMI). */
void trigger_all_cpu_backtrace(void);

/* Reschedule IPIs this CPU has taken (the scheduler's, and the tests'). */
DECLARE_PER_CPU_STAT(unsigned long, resched_ipi_count);

#endif
