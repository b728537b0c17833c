/* Kernel console output. */
#ifndef PRINTK_H
#define PRINTK_H

#include <stdarg.h>
#include <stdbool.h>

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list ap);
/* One line: prefix, the formatted text, a newline (printed in one go, so
 * other CPUs' output cannot split it). */
void vprintk_line(const char *prefix, const char *fmt, va_list ap);

/*
 * Set while a panic or an exception report is printing: the console lock
 * is then taken with a bounded wait, because its holder may be a CPU that
 * will never release it (stopped, or the faulting CPU itself).
 */
extern bool oops_in_progress; /* READ_ONCE()/WRITE_ONCE(): any CPU */

/* Whole lines from several CPUs must not interleave: a caller that prints a
 * multi-line report holds the console across it. Nests on one CPU. In NMI
 * context it takes nothing (printk() there writes no console). */
unsigned long console_lock(void);
void console_unlock(unsigned long flags);

/*
 * What printk() is given in NMI context waits in a per-CPU buffer (never
 * a console lock in NMI: it may be held by the CPU the NMI interrupted):
 * printk_nmi_flush_cpu() prints cpu's, printk_nmi_flush() every online
 * CPU's, from any context but NMI. The tick flushes its own CPU's; a CPU
 * that asks others for NMI output flushes once they have answered.
 * printk_nmi_pending() is how many bytes cpu holds unprinted.
 */
void printk_nmi_flush_cpu(int cpu);
void printk_nmi_flush(void);
unsigned printk_nmi_pending(int cpu);

/* Bytes printed to the console since boot (its position in log_buf's
 * stream), for a test that checks whether something was printed. */
unsigned long printk_log_pos(void);
/* Whether s was printed since position since (as far as log_buf still
 * holds it): a test's look at a report's text. */
bool printk_log_contains(unsigned long since, const char *s);

#endif
