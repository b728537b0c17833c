/*
 * Kernel string formatting: C99 snprintf/vsnprintf for integers, chars,
 * strings and pointers. No floating point (the kernel is built without SSE).
 */
#ifndef VSPRINTF_H
#define VSPRINTF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "errno.h"

/*
 * Format into buf, writing at most size bytes including the terminating NUL
 * (always written when size > 0). Returns the length the whole output would
 * have had, so the output was truncated iff the result >= size.
 *
 * Conversions: d i u x X o c s p %, lengths hh h l ll z (also j t), flags
 * - 0 space + #, width and precision (also as *). %p prints "0x" and 16
 * hex digits; %s of NULL prints "(null)"; an unknown conversion is copied
 * to the output as written.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parse an unsigned number in base 2..16 (0: "0x" prefix means 16, a
 * leading 0 means 8, else 10); *endp, if given, is set past the digits. */
unsigned long simple_strtoul(const char *cp, char **endp, unsigned base);

/* The whole of s as an unsigned number (bases as simple_strtoul), as
 * Linux's kstrtoul: 0 and *res; -EINVAL when s is empty or anything but
 * digits follows them (a sign, a space, a letter); -ERANGE when the
 * number does not fit in an unsigned long. *res is untouched on error. */
int kstrtoul(const char *s, unsigned base, unsigned long *res);

/* A boolean option's value, as Linux's kstrtobool(): 1, y, Y, t, T or
 * "on" give true; 0, n, N, f, F or "off" false (only the first one or two
 * characters are looked at, as in Linux). 0, or -EINVAL for anything
 * else, the empty string included, leaving *res alone. */
int kstrtobool(const char *s, bool *res);

#endif
