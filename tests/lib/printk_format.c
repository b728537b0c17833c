/*
 * Tests for the kernel's formatter (lib/vsprintf.c), which printk uses.
 * Most go through fmt(), a vsnprintf wrapper, because gcc knows snprintf
 * as a builtin and would otherwise compute many results at compile time;
 * other inputs pass through HIDE() (ktest_util.h) for the same reason.
 */
#include <stdarg.h>

#include "ktest_util.h"
#include "string.h"
#include "vsprintf.h"

static char buf[128];
static int ret;

/* Format into buf, leaving the return value in ret; returns buf. */
__attribute__((format(printf, 1, 2)))
static const char *fmt(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	ret = vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

/* fmt() through a pointer that carries no format attribute, for formats
 * gcc would (rightly) warn about, e.g. unknown conversions. */
static const char *(*const fmt_unchecked)(const char *, ...) = fmt;

KTEST(printk, signed_decimal)
{
	KEXPECT_STREQ(fmt("%d", 0), "0");
	KEXPECT_STREQ(fmt("%d", 42), "42");
	KEXPECT_EQ(ret, 2);
	KEXPECT_STREQ(fmt("%i", -42), "-42");
	KEXPECT_STREQ(fmt("%d|%d", -2147483647 - 1, 2147483647),
		      "-2147483648|2147483647");
	KEXPECT_STREQ(fmt("%lld", -__LONG_LONG_MAX__ - 1),
		      "-9223372036854775808");
	KEXPECT_STREQ(fmt("%ld", -1L), "-1");
	KEXPECT_STREQ(fmt("%+d|% d|%+d", 5, 5, -5), "+5| 5|-5");
	KEXPECT_STREQ(fmt("%hhd|%hd", 255, 65535), "-1|-1");
	KEXPECT_STREQ(fmt("%zd", (ptrdiff_t)-7), "-7");
}

KTEST(printk, width_and_justify)
{
	KEXPECT_STREQ(fmt("[%5d]", 42), "[   42]");
	KEXPECT_STREQ(fmt("[%-5d]", 42), "[42   ]");
	KEXPECT_STREQ(fmt("[%5d]", -42), "[  -42]");
	KEXPECT_STREQ(fmt("[%-5d]", -42), "[-42  ]");
	KEXPECT_STREQ(fmt("[%1d]", 12345), "[12345]");
	KEXPECT_STREQ(fmt("[%*d]", 4, 7), "[   7]");
	/* A negative '*' width left-justifies. */
	KEXPECT_STREQ(fmt("[%*d]", -4, 7), "[7   ]");
	KEXPECT_STREQ(fmt("[%.3d]", 7), "[007]");
	KEXPECT_STREQ(fmt("[%6.3d]", -7), "[  -007]");
	KEXPECT_STREQ(fmt("[%.*d]", 2, 7), "[07]");
	/* Precision 0 prints no digits for the value 0. */
	KEXPECT_STREQ(fmt("[%.0d]", 0), "[]");
}

KTEST(printk, zero_padding)
{
	KEXPECT_STREQ(fmt("%05d", 42), "00042");
	KEXPECT_STREQ(fmt("%05d", -42), "-0042");
	KEXPECT_STREQ(fmt("%+05d", 42), "+0042");
	KEXPECT_STREQ(fmt("%08x", 0xbeefu), "0000beef");
	KEXPECT_STREQ(fmt("%#010x", 0xbeefu), "0x0000beef");
	/* '-' wins over '0'; so does a precision. */
	KEXPECT_STREQ(fmt_unchecked("[%-05d]", 42), "[42   ]");
	KEXPECT_STREQ(fmt_unchecked("[%05.3d]", 42), "[  042]");
}

KTEST(printk, unsigned_decimal)
{
	KEXPECT_STREQ(fmt("%u", 0u), "0");
	KEXPECT_STREQ(fmt("%u", 4294967295u), "4294967295");
	KEXPECT_STREQ(fmt("%u", (unsigned)-1), "4294967295");
	KEXPECT_STREQ(fmt("%lu", 18446744073709551615UL),
		      "18446744073709551615");
	KEXPECT_STREQ(fmt("%llu", 18446744073709551615ULL),
		      "18446744073709551615");
	KEXPECT_STREQ(fmt("%zu", (size_t)4096), "4096");
	KEXPECT_STREQ(fmt("%hhu|%hu", 257u, 65537u), "1|1");
}

KTEST(printk, hex_and_octal)
{
	KEXPECT_STREQ(fmt("%x", 0u), "0");
	KEXPECT_STREQ(fmt("%x|%X", 0xabcdefu, 0xabcdefu), "abcdef|ABCDEF");
	KEXPECT_STREQ(fmt("%lx", 0xffffffff80100000UL), "ffffffff80100000");
	KEXPECT_STREQ(fmt("%llx", 0x123456789abcdef0ULL), "123456789abcdef0");
	KEXPECT_STREQ(fmt("%hhx", 0x1ffu), "ff");
	KEXPECT_STREQ(fmt("%#x|%#X", 0x1fu, 0x1fu), "0x1f|0X1F");
	/* No "0x" for zero, as in C. */
	KEXPECT_STREQ(fmt("%#x", 0u), "0");
	KEXPECT_STREQ(fmt("%o|%#o|%#o", 8u, 8u, 0u), "10|010|0");
}

KTEST(printk, pointer)
{
	KEXPECT_STREQ(fmt("%p", (void *)0xffffffff80100000UL),
		      "0xffffffff80100000");
	KEXPECT_EQ(ret, 18);
	KEXPECT_STREQ(fmt("%p", (void *)0x1000), "0x0000000000001000");
	KEXPECT_STREQ(fmt("%p", (void *)0), "0x0000000000000000");
	KEXPECT_STREQ(fmt("[%-20p]", (void *)0xabc),
		      "[0x0000000000000abc  ]");
}

KTEST(printk, strings)
{
	const char *null = (const char *)HIDE((uintptr_t)0);

	KEXPECT_STREQ(fmt("%s", "abc"), "abc");
	KEXPECT_STREQ(fmt("[%6s]", "abc"), "[   abc]");
	KEXPECT_STREQ(fmt("[%-6s]", "abc"), "[abc   ]");
	KEXPECT_STREQ(fmt("[%.2s]", "abc"), "[ab]");
	KEXPECT_STREQ(fmt("[%5.1s]", "abc"), "[    a]");
	KEXPECT_STREQ(fmt("[%.*s]", 4, "abcdef"), "[abcd]");
	KEXPECT_STREQ(fmt("[%s]", ""), "[]");
	KEXPECT_STREQ(fmt("%s", null), "(null)");
	/* With a precision the argument need not be NUL-terminated. */
	static const char raw[3] = { 'x', 'y', 'z' };
	KEXPECT_STREQ(fmt("%.3s", raw), "xyz");
}

KTEST(printk, chars_percent_and_unknown)
{
	KEXPECT_STREQ(fmt("%c%c%c", 'o', 'k', '!'), "ok!");
	KEXPECT_STREQ(fmt("[%3c|%-3c]", 'a', 'b'), "[  a|b  ]");
	KEXPECT_STREQ(fmt("100%%"), "100%");
	KEXPECT_EQ(ret, 4);
	/* Unknown conversions are copied as written. */
	KEXPECT_STREQ(fmt_unchecked("%q"), "%q");
	KEXPECT_STREQ(fmt_unchecked("a%5qb"), "a%5qb");
	KEXPECT_STREQ(fmt_unchecked("end%"), "end%");
	KEXPECT_STREQ(fmt("%d %s %x", -1, "two", 3u), "-1 two 3");
}

KTEST(printk, truncation_and_return_value)
{
	char small[8];

	memset(small, '#', sizeof(small));
	KEXPECT_EQ(snprintf(small, 4, "%d", HIDE(123456)), 6);
	KEXPECT_STREQ(small, "123");
	KEXPECT_EQ(small[4], '#');	/* nothing written past size */

	KEXPECT_EQ(snprintf(small, sizeof(small), "%s=%d", HIDE("key"),
			    HIDE(1234)), 8);
	KEXPECT_STREQ(small, "key=123");

	/* Exactly fitting. */
	KEXPECT_EQ(snprintf(small, sizeof(small), "%s", HIDE("1234567")), 7);
	KEXPECT_STREQ(small, "1234567");

	/* size 1: only the terminator. */
	KEXPECT_EQ(snprintf(small, 1, "%s", HIDE("abc")), 3);
	KEXPECT_EQ(small[0], '\0');
}

KTEST(printk, size_zero_writes_nothing)
{
	char small[4] = "xyz";

	KEXPECT_EQ(snprintf(small, HIDE((size_t)0), "%d", HIDE(-12345)), 6);
	KEXPECT_STREQ(small, "xyz");
	/* The usual length query: a NULL buffer with size 0. */
	KEXPECT_EQ(snprintf((char *)HIDE((uintptr_t)0), 0, "%s%s", HIDE("ab"),
			    HIDE("cd")), 4);
}
