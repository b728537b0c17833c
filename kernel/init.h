/*
 * Late initcalls, as Linux's late_initcall() (include/linux/init.h):
 * work a part of the kernel starts on its own once the boot is done, on
 * every CPU the boot found, with the scheduler and the reaper running,
 * without the boot story having to name it. kmain() calls each once,
 * from the boot CPU's idle task, just before it idles (do_initcalls(),
 * kernel/main.c); the order between two of them is the link order. The
 * test runner, the benchmarks and torture start this way
 * (kernel/debug/boot_work.c), so that the core includes none of them.
 */
#ifndef INIT_H
#define INIT_H

/* Linux's initcalls return an int that only initcall_debug prints; these
 * return nothing: a part whose start fails says so itself. */
typedef void (*initcall_t)(void);

/* The pointer goes in .initcall_late, which linker.ld gathers between
 * __initcall_late_start and __initcall_late_end. */
#define late_initcall(fn)                                                     \
	static const initcall_t __initcall_##fn                               \
		__attribute__((used, section(".initcall_late"), aligned(8))) = (fn)

/* How far the boot has got, as Linux's system_state (kernel/main.c sets
 * it): a check that only makes sense once other tasks can run (a lock
 * that sleeps, taken with interrupts off) skips SYSTEM_BOOTING, when the
 * boot CPU runs alone with interrupts off. */
enum system_states { SYSTEM_BOOTING, SYSTEM_SCHEDULING };
extern enum system_states system_state;

#endif
