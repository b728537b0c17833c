/*
 * Boot options (cmdline.h): the command line the loader gave
 * (boot_info.cmdline, filled by the arch: bootinfo.h) looked up by key, and numbers read
 * from it with their range checked. Before, each option was read with
 * simple_strtoul() wherever it was used: "abc" meant 0, a number too large
 * wrapped (ktest_timeout=18446744074 became a 0.29 s time bound) and a CPU
 * number went unchecked. Now there is one parser, and a bad value is never
 * silently turned into another.
 */
#include "cmdline.h"
#include "bootinfo.h"
#include "errno.h"
#include "printk.h"
#include "string.h"
#include "vsprintf.h"

static unsigned long refused;

/* Where key's value starts on the command line and its length (up to the
 * next space), or NULL. */
static const char *cmdline_find(const char *key, size_t *len)
{
	size_t klen = strlen(key);
	const char *p = boot_info.cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == '=' || p[klen] == ' ' || p[klen] == 0)) {
			const char *v = p[klen] == '=' ? p + klen + 1 : p + klen;

			for (*len = 0; v[*len] && v[*len] != ' '; (*len)++)
				;
			return v;
		}
		while (*p && *p != ' ')
			p++;
	}
	return 0;
}

const char *cmdline_get(const char *key, char *buf, int size)
{
	size_t len;
	const char *v = cmdline_find(key, &len);

	if (!v)
		return 0;
	if (len > (size_t)size - 1)
		len = size - 1;
	memcpy(buf, v, len);
	buf[len] = 0;
	return buf;
}

int cmdline_parse_ulong(const char *s, unsigned long *val, unsigned long min,
			unsigned long max)
{
	unsigned long v;
	int err = kstrtoul(s, 0, &v);

	if (!err && (v < min || v > max))
		err = -ERANGE;
	if (!err)
		*val = v;
	return err;
}

int cmdline_get_ulong(const char *key, unsigned long *val, unsigned long min,
		      unsigned long max)
{
	char buf[24]; /* 2^64 - 1 has 20 digits; 0x and 16 hex digits 18 */
	size_t len;
	const char *v = cmdline_find(key, &len);
	int err;

	if (!v)
		return 0;
	cmdline_get(key, buf, sizeof(buf));
	err = len >= sizeof(buf) ? -ERANGE
				 : cmdline_parse_ulong(buf, val, min, max);
	if (!err)
		return 1;
	printk("cmdline: %s=%.*s refused: %s; accepted: %lu to %lu; the "
	       "default %lu is kept\n", key, (int)len, v,
	       err == -EINVAL ? "not a number" : "out of range", min, max, *val);
	refused++;
	return err;
}

int cmdline_get_long(const char *key, long *val, long min, long max)
{
	char buf[24];
	size_t len;
	const char *v = cmdline_find(key, &len);
	unsigned long mag;
	int err;

	if (!v)
		return 0;
	cmdline_get(key, buf, sizeof(buf));
	err = len >= sizeof(buf) ? -ERANGE
				 : kstrtoul(buf[0] == '-' ? buf + 1 : buf, 0, &mag);
	/* Magnitudes past LONG_MAX are out of any long range. */
	if (!err && mag > (unsigned long)__LONG_MAX__)
		err = -ERANGE;
	if (!err) {
		long n = buf[0] == '-' ? -(long)mag : (long)mag;

		if (n < min || n > max)
			err = -ERANGE;
		else
			*val = n;
	}
	if (!err)
		return 1;
	printk("cmdline: %s=%.*s refused: %s; accepted: %ld to %ld; the "
	       "default %ld is kept\n", key, (int)len, v,
	       err == -EINVAL ? "not a number" : "out of range", min, max, *val);
	refused++;
	return err;
}

void cmdline_refuse(const char *key, long v, const char *accepted, long dflt)
{
	printk("cmdline: %s=%ld refused: out of range; accepted: %s; the "
	       "default %ld is kept\n", key, v, accepted, dflt);
	refused++;
}

unsigned long cmdline_refused(void)
{
	return refused;
}

void cmdline_check_length(void)
{
	if (boot_info.cmdline_len < sizeof(boot_info.cmdline))
		return;
	printk("cmdline: the command line has %lu bytes; only the first %lu "
	       "are kept, the options after them are lost\n",
	       (unsigned long)boot_info.cmdline_len,
	       (unsigned long)sizeof(boot_info.cmdline) - 1);
	refused++;
}
