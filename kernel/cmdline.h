/*
 * Boot options (docs/boot.md): finding one on the command line, and the
 * one parser every numeric option goes through, which refuses a malformed
 * or out-of-range value with a line naming the option and the accepted
 * range, keeps the caller's default, and counts the refusal, so that a
 * test, benchmark or torture run can fail the boot (cmdline_refused()).
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The value of "key=value" on the command line, copied into buf; NULL if
 * the key is absent. A bare "key" gives "". */
const char *cmdline_get(const char *key, char *buf, int size);

/* Parse s as a number in [min, max] (decimal, 0x hex or 0 octal, nothing
 * else): 0 and *val, or -EINVAL (not a number) or -ERANGE (too large, or
 * outside the range), *val untouched. */
int cmdline_parse_ulong(const char *s, unsigned long *val, unsigned long min,
			unsigned long max);

/* key=N with N in [min, max]: 1 and *val when given and valid; 0 when
 * absent; -EINVAL or -ERANGE when refused (a line says why and what is
 * accepted, *val keeps its default, the refusal is counted). */
int cmdline_get_ulong(const char *key, unsigned long *val, unsigned long min,
		      unsigned long max);

/* The same for a signed value (a leading '-'). */
int cmdline_get_long(const char *key, long *val, long min, long max);

/* A value that cmdline_get_long() accepted but the caller's own rule
 * refuses (a range with a hole): the same line, naming what is accepted,
 * and counted. */
void cmdline_refuse(const char *key, long v, const char *accepted, long dflt);

/* Options refused so far, an over-long command line included. */
unsigned long cmdline_refused(void);

/* Once, early: say so (and count it) when the loader gave a command line
 * longer than the kernel keeps, whose end is lost. */
void cmdline_check_length(void);

#endif
