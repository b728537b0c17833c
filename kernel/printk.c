/*
 * printk: format into a stack buffer, then write it to the console under
 * the console lock with interrupts off, so lines from different CPUs (and
 * from an interrupt on this CPU) never interleave. Each message is also
 * kept in log_buf, a ring a debugger reads (`dmesg` in scripts/kernel.gdb)
 * when the serial log is not at hand.
 */
#include "irqflags.h"
#include "printk.h"
#include "percpu.h"
#include "asm/serial.h"
#include "asm/spinlock.h"
#include "vsprintf.h"

#define PRINTK_BUF 512
#define NO_CPU 0xffffffffu

#define LOG_BUF_LEN (64 * 1024)

volatile bool oops_in_progress;

/* The last LOG_BUF_LEN bytes printed: byte i of the output is at
 * log_buf[i % LOG_BUF_LEN]; log_next counts every byte ever printed.
 * Written under the console lock. */
char log_buf[LOG_BUF_LEN];
unsigned long log_next;

static arch_spinlock_t console_spin = ARCH_SPIN_LOCK_UNLOCKED;
/* The CPU holding the console and its nesting depth; only the
 * holder writes them, so that an exception inside printk, or a report
 * printed inside console_lock(), nests instead of deadlocking. */
static volatile uint32_t console_owner = NO_CPU;
static unsigned console_depth;

static bool console_spin_bounded(void)
{
	for (unsigned long i = 0; i < 100000000ul; i++) {
		if (arch_spin_trylock(&console_spin))
			return true;
		cpu_relax();
	}
	return false;
}

unsigned long console_lock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	uint32_t me = raw_smp_processor_id();

	if (console_owner == me) {
		console_depth++;
		return flags;
	}
	if (oops_in_progress) {
		/* Give up the lock rather than the report. */
		if (!console_spin_bounded())
			console_spin = (arch_spinlock_t)ARCH_SPIN_LOCK_UNLOCKED;
	} else {
		arch_spin_lock(&console_spin);
	}
	console_owner = me;
	console_depth = 1;
	return flags;
}

void console_unlock(unsigned long flags)
{
	if (--console_depth == 0) {
		console_owner = NO_CPU;
		arch_spin_unlock(&console_spin);
	}
	local_irq_restore(flags);
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_BUF];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	unsigned long flags;

	/* A cut line still ends its line, so the next one starts clean. */
	if (n >= (int)sizeof(buf))
		buf[sizeof(buf) - 2] = '\n';
	flags = console_lock();

	for (const char *p = buf; *p; p++) {
		log_buf[log_next++ % LOG_BUF_LEN] = *p;
		serial_putc(*p);
	}
	console_unlock(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void vprintk_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printk("%s%s\n", prefix, buf);
}
