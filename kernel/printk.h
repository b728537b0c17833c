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
extern volatile bool oops_in_progress;

/* Whole lines from several CPUs must not interleave: a caller that prints a
 * multi-line report holds the console across it. Nests on one CPU. */
unsigned long console_lock(void);
void console_unlock(unsigned long flags);

#endif
