/*
 * panic(), oops handling and warnings. A report is printed with the
 * console held, so it reads as one block even when several CPUs fail at
 * once; the CPU that gets in first reports, the others stop.
 */
#include "compiler.h"
#include <stdarg.h>
#include "atomic.h"
#include "panic.h"
#include "asm/processor.h"
#include "irqflags.h"
#include "percpu.h"
#include "printk.h"
#include "asm/qemu.h"
#include "vsprintf.h"

bool panic_exits;
void (*panic_stop_other_cpus)(void);

/* Reports in progress on any CPU: the first one to count itself in
 * reports, every other stops. */
static atomic_t oops_depth;

bool oops_begin(void)
{
	local_irq_disable();
	if (atomic_inc_return(&oops_depth) > 1) {
		/* Another report is in progress, maybe our own: a second one
		 * could recurse or interleave. Say so in one line, stop. */
		printk("\n[nested fault or panic on CPU %d while reporting; "
		       "stopping]\n", raw_smp_processor_id());
		return false;
	}
	WRITE_ONCE(oops_in_progress, true);
	return true;
}

__noreturn void oops_end(void)
{
	/* One CPU stops the others and leaves QEMU; the rest halt. */
	static atomic_t stopping;

	if (atomic_xchg(&stopping, 1) == 0) {
		if (panic_stop_other_cpus)
			panic_stop_other_cpus();
		printk("---[ end Kernel panic ]---\n");
		if (panic_exits)
			qemu_exit(QEMU_EXIT_PANIC);
	}
	for (;;) {
		local_irq_disable();
		halt();
	}
}

__noreturn void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (oops_begin()) {
		printk("Kernel panic - not syncing: %s\n", msg);
		printk("CPU: %d\n", raw_smp_processor_id());
		dump_stack();
	}
	oops_end();
}

void warn_slowpath(const char *file, int line, const char *cond)
{
	unsigned long flags = console_lock();

	printk("------------[ cut here ]------------\n");
	printk("WARNING: at %s:%d: %s\n", file, line, cond);
	dump_stack();
	printk("---[ end trace ]---\n");
	console_unlock(flags);
}
