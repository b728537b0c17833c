/*
 * Numbers from strings (lib/vsprintf.c's kstrtoul) and the boot options'
 * range check on top of it (kernel/cmdline.c): the whole string or
 * nothing, overflow refused, the range inclusive, and the result left
 * alone on any error.
 */
#include "cmdline.h"
#include "ktest.h"
#include "vsprintf.h"

KTEST(kstrtox, whole_string_or_nothing)
{
	unsigned long v = 7;

	KEXPECT_EQ(kstrtoul("0", 0, &v), 0);
	KEXPECT_EQ(v, 0);
	KEXPECT_EQ(kstrtoul("120", 0, &v), 0);
	KEXPECT_EQ(v, 120);
	KEXPECT_EQ(kstrtoul("0x1f", 0, &v), 0);
	KEXPECT_EQ(v, 0x1f);
	KEXPECT_EQ(kstrtoul("017", 0, &v), 0); /* octal, as Linux */
	KEXPECT_EQ(v, 15);
	KEXPECT_EQ(kstrtoul("ff", 16, &v), 0);
	KEXPECT_EQ(v, 0xff);
	v = 7;
	KEXPECT_EQ(kstrtoul("", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul("abc", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul("12a", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul("-1", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul(" 1", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul("0x", 0, &v), -EINVAL);
	KEXPECT_EQ(kstrtoul("08", 0, &v), -EINVAL); /* not octal */
	KEXPECT_EQ(v, 7);
}

KTEST(kstrtox, overflow_refused)
{
	unsigned long v = 7;

	KEXPECT_EQ(kstrtoul("18446744073709551615", 10, &v), 0);
	KEXPECT_EQ(v, ~0ul);
	v = 7;
	KEXPECT_EQ(kstrtoul("18446744073709551616", 10, &v), -ERANGE);
	KEXPECT_EQ(kstrtoul("99999999999999999999999", 10, &v), -ERANGE);
	KEXPECT_EQ(kstrtoul("0x10000000000000000", 0, &v), -ERANGE);
	KEXPECT_EQ(v, 7);
}

/* ktest_timeout=18446744074 wrapped to 0.29 s once: now out of range. */
KTEST(kstrtox, boot_option_range)
{
	unsigned long v = 120;

	KEXPECT_EQ(cmdline_parse_ulong("30", &v, 1, 86400), 0);
	KEXPECT_EQ(v, 30);
	KEXPECT_EQ(cmdline_parse_ulong("1", &v, 1, 86400), 0);
	KEXPECT_EQ(cmdline_parse_ulong("86400", &v, 1, 86400), 0);
	KEXPECT_EQ(v, 86400);
	v = 120;
	KEXPECT_EQ(cmdline_parse_ulong("0", &v, 1, 86400), -ERANGE);
	KEXPECT_EQ(cmdline_parse_ulong("86401", &v, 1, 86400), -ERANGE);
	KEXPECT_EQ(cmdline_parse_ulong("18446744074", &v, 1, 86400), -ERANGE);
	KEXPECT_EQ(cmdline_parse_ulong("abc", &v, 1, 86400), -EINVAL);
	KEXPECT_EQ(v, 120);
}

/* Absent options are absent, whatever their prefix on the line. */
KTEST(kstrtox, absent_option)
{
	unsigned long v = 5;

	KEXPECT_EQ(cmdline_get_ulong("no_such_option", &v, 0, 10), 0);
	KEXPECT_EQ(cmdline_get_ulong("ktest_", &v, 0, 10), 0);
	KEXPECT_EQ(v, 5);
}
