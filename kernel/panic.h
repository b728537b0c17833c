/* Fatal errors, warnings and stack dumps. */
#ifndef PANIC_H
#define PANIC_H

#include "compiler.h"
#include <stdbool.h>
#include <stdint.h>
#include "asm/stacktrace.h" /* dump_stack(), for the reports made here */

__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

/*
 * An oops (exception report) or panic: oops_begin() takes the console and
 * marks the report in progress, returning false if this CPU is already
 * inside one (a fault while reporting: print little and stop); oops_end()
 * stops the other CPUs and ends the kernel: QEMU exits with the panic code
 * when panic_exits (test runs), otherwise every CPU halts for the debugger.
 */
bool oops_begin(void);
__noreturn void oops_end(void);

/* Set from the command line ("panic=exit", or any ktest= run). */
extern bool panic_exits;

/* Hook for SMP: stop every other CPU and show what each was doing. Until
 * the other CPUs are started it has nothing to do. */
extern void (*panic_stop_other_cpus)(void);

void warn_slowpath(const char *file, int line, const char *cond);

#define WARN_ON(cond)                                                       \
	({                                                                  \
		bool warn_c_ = !!(cond);                                    \
		if (unlikely(warn_c_))                                      \
			warn_slowpath(__FILE__, __LINE__, #cond);           \
		warn_c_;                                                    \
	})

#define BUG_ON(cond)                                                        \
	do {                                                                \
		if (unlikely(cond))                                         \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond); \
	} while (0)

#endif
