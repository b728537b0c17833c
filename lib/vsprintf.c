/*
 * vsnprintf(): a small printf-style formatter. Output goes through a sink
 * that counts every character but stores only what fits, which gives the
 * C99 return value for free.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "string.h"
#include "vsprintf.h"

/* Where output goes: buf[0..size-1], with len counting everything emitted. */
struct sink {
	char *buf;
	size_t size;
	size_t len;
};

enum {
	F_LEFT = 1 << 0,	/* '-' */
	F_ZERO = 1 << 1,	/* '0' */
	F_SPACE = 1 << 2,	/* ' ' */
	F_PLUS = 1 << 3,	/* '+' */
	F_ALT = 1 << 4,		/* '#' */
};

enum length { L_HH, L_H, L_INT, L_L, L_LL, L_Z };

/* One parsed conversion specification. */
struct spec {
	unsigned flags;
	int width;
	int prec;		/* -1: none given */
	enum length len;
	char conv;
};

static void put(struct sink *s, char c)
{
	/* Keep the last byte free for the terminator. */
	if (s->len + 1 < s->size)
		s->buf[s->len] = c;
	s->len++;
}

static void put_n(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

static void put_mem(struct sink *s, const char *p, size_t n)
{
	while (n--)
		put(s, *p++);
}

/* Emit n bytes of p padded with spaces to the field width. */
static void put_field(struct sink *s, const struct spec *sp, const char *p,
		      size_t n)
{
	int pad = (size_t)sp->width > n ? sp->width - (int)n : 0;

	if (!(sp->flags & F_LEFT))
		put_n(s, ' ', pad);
	put_mem(s, p, n);
	if (sp->flags & F_LEFT)
		put_n(s, ' ', pad);
}

/*
 * Format the magnitude v with an optional sign or base prefix. The layout is
 * [spaces] [prefix] [zeros] digits [spaces]; precision sets the minimum digit
 * count, and the '0' flag (only without a precision) widens the zeros to
 * fill the field.
 */
static void put_num(struct sink *s, const struct spec *sp,
		    unsigned long long v, bool neg)
{
	const char *digits = sp->conv == 'X' ? "0123456789ABCDEF"
					     : "0123456789abcdef";
	unsigned base = 10;
	char tmp[24];		/* 22 octal digits for 64 bits, reversed */
	char prefix[2];
	int n = 0, np = 0, zeros, pad;
	bool is_signed = sp->conv == 'd' || sp->conv == 'i';

	if (sp->conv == 'x' || sp->conv == 'X' || sp->conv == 'p')
		base = 16;
	else if (sp->conv == 'o')
		base = 8;

	for (; v; v /= base)
		tmp[n++] = digits[v % base];

	if (is_signed && neg)
		prefix[np++] = '-';
	else if (is_signed && (sp->flags & F_PLUS))
		prefix[np++] = '+';
	else if (is_signed && (sp->flags & F_SPACE))
		prefix[np++] = ' ';
	/* "0x" marks non-zero values only, as in C; %p always has it. */
	if (sp->conv == 'p' || (base == 16 && (sp->flags & F_ALT) && n)) {
		prefix[np++] = '0';
		prefix[np++] = sp->conv == 'X' ? 'X' : 'x';
	}

	/* No precision means at least one digit, so that 0 prints as "0". */
	zeros = (sp->prec < 0 ? 1 : sp->prec) - n;
	if (zeros < 0)
		zeros = 0;
	/* Alternate octal form: the first digit must be a 0. */
	if (base == 8 && (sp->flags & F_ALT) && !zeros)
		zeros = 1;

	pad = sp->width - (np + zeros + n);
	if (pad < 0)
		pad = 0;
	if ((sp->flags & (F_ZERO | F_LEFT)) == F_ZERO && sp->prec < 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(sp->flags & F_LEFT))
		put_n(s, ' ', pad);
	put_mem(s, prefix, np);
	put_n(s, '0', zeros);
	while (n)
		put(s, tmp[--n]);
	if (sp->flags & F_LEFT)
		put_n(s, ' ', pad);
}

/* Fetch an integer argument of the spec's length as its 64-bit magnitude. */
static unsigned long long get_num(va_list *ap, const struct spec *sp,
				  bool *neg)
{
	long long v;

	*neg = false;
	if (sp->conv != 'd' && sp->conv != 'i') {
		switch (sp->len) {
		case L_HH: return (unsigned char)va_arg(*ap, unsigned int);
		case L_H:  return (unsigned short)va_arg(*ap, unsigned int);
		case L_INT: return va_arg(*ap, unsigned int);
		case L_L:  return va_arg(*ap, unsigned long);
		case L_LL: return va_arg(*ap, unsigned long long);
		case L_Z:  return va_arg(*ap, size_t);
		}
	}
	switch (sp->len) {
	case L_HH: v = (signed char)va_arg(*ap, int); break;
	case L_H:  v = (short)va_arg(*ap, int); break;
	case L_L:  v = va_arg(*ap, long); break;
	case L_LL: v = va_arg(*ap, long long); break;
	/* ptrdiff_t is the signed type of size_t's width on our targets. */
	case L_Z:  v = va_arg(*ap, ptrdiff_t); break;
	default:   v = va_arg(*ap, int); break;
	}
	*neg = v < 0;
	/* Negate in unsigned arithmetic so LLONG_MIN does not overflow. */
	return *neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
}

/* A decimal number in the format; saturates rather than overflowing. */
static int parse_int(const char **fmt)
{
	int v = 0;

	for (; **fmt >= '0' && **fmt <= '9'; (*fmt)++) {
		int d = **fmt - '0';

		v = v > (__INT_MAX__ - d) / 10 ? __INT_MAX__ : v * 10 + d;
	}
	return v;
}

static const char *parse_flags(const char *fmt, struct spec *sp)
{
	for (;; fmt++) {
		switch (*fmt) {
		case '-': sp->flags |= F_LEFT; break;
		case '0': sp->flags |= F_ZERO; break;
		case ' ': sp->flags |= F_SPACE; break;
		case '+': sp->flags |= F_PLUS; break;
		case '#': sp->flags |= F_ALT; break;
		default: return fmt;
		}
	}
}

static const char *parse_length(const char *fmt, struct spec *sp)
{
	sp->len = L_INT;
	switch (*fmt) {
	case 'h':
		sp->len = L_H;
		if (*++fmt == 'h') {
			sp->len = L_HH;
			fmt++;
		}
		break;
	case 'l':
		sp->len = L_L;
		if (*++fmt == 'l') {
			sp->len = L_LL;
			fmt++;
		}
		break;
	case 'j':
		sp->len = L_LL;
		fmt++;
		break;
	case 'z':
	case 't':
		sp->len = L_Z;
		fmt++;
		break;
	}
	return fmt;
}

/*
 * Parse the specification after a '%' up to and including the conversion
 * character; returns a pointer just past it (or at the NUL if the format
 * ends early, with sp->conv = 0).
 */
static const char *parse_spec(const char *fmt, struct spec *sp, va_list *ap)
{
	sp->flags = 0;
	sp->width = 0;
	sp->prec = -1;

	fmt = parse_flags(fmt, sp);
	if (*fmt == '*') {
		/* A negative '*' width means '-' plus its magnitude. */
		int w = va_arg(*ap, int);

		if (w < 0) {
			sp->flags |= F_LEFT;
			w = w < -__INT_MAX__ ? __INT_MAX__ : -w;
		}
		sp->width = w;
		fmt++;
	} else {
		sp->width = parse_int(&fmt);
	}
	if (*fmt == '.') {
		fmt++;
		if (*fmt == '*') {
			/* A negative '*' precision counts as none. */
			int p = va_arg(*ap, int);

			sp->prec = p < 0 ? -1 : p;
			fmt++;
		} else {
			sp->prec = parse_int(&fmt);
		}
	}
	fmt = parse_length(fmt, sp);
	sp->conv = *fmt;
	return *fmt ? fmt + 1 : fmt;
}

/* Handle one conversion; false if it is not one we know. */
static bool convert(struct sink *s, struct spec *sp, va_list *ap)
{
	unsigned long long v;
	const char *str;
	bool neg;
	char c;

	switch (sp->conv) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
		v = get_num(ap, sp, &neg);
		put_num(s, sp, v, neg);
		return true;
	case 'p':
		/* Always the full 64-bit address, e.g. 0xffffffff80100000. */
		sp->prec = 16;
		put_num(s, sp, (uintptr_t)va_arg(*ap, void *), false);
		return true;
	case 'c':
		c = (char)va_arg(*ap, int);
		put_field(s, sp, &c, 1);
		return true;
	case 's':
		str = va_arg(*ap, const char *);
		if (!str)
			str = "(null)";
		/* strnlen: with a precision, str need not be terminated. */
		put_field(s, sp, str,
			  sp->prec < 0 ? strlen(str) : strnlen(str, sp->prec));
		return true;
	case '%':
		put(s, '%');
		return true;
	}
	return false;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink s = { buf, size, 0 };
	struct spec sp;
	va_list args;

	/* Copied: a va_list parameter cannot portably be passed by address. */
	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;

		if (*fmt != '%') {
			put(&s, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		if (!convert(&s, &sp, &args))
			put_mem(&s, start, fmt - start);
	}
	va_end(args);

	if (size)
		buf[s.len < size ? s.len : size - 1] = '\0';
	return s.len > __INT_MAX__ ? __INT_MAX__ : (int)s.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* The base a number is written in (base 0: "0x" means 16, a leading 0
 * means 8, else 10), and *cp moved past a "0x" that belongs to it. */
static unsigned fixup_radix(const char **cp, unsigned base)
{
	const char *s = *cp;
	bool hex_prefix = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (base == 0)
		base = hex_prefix ? 16 : s[0] == '0' ? 8 : 10;
	if (base == 16 && hex_prefix)
		*cp = s + 2;
	return base;
}

unsigned long simple_strtoul(const char *cp, char **endp, unsigned base)
{
	unsigned long v = 0;

	base = fixup_radix(&cp, base);
	for (; digit_value(*cp) < (int)base; cp++)
		v = v * base + digit_value(*cp);
	if (endp)
		*endp = (char *)cp;
	return v;
}

int kstrtoul(const char *s, unsigned base, unsigned long *res)
{
	unsigned long v = 0;
	const char *p;

	base = fixup_radix(&s, base);
	for (p = s; digit_value(*p) < (int)base; p++) {
		unsigned d = digit_value(*p);

		if (v > (~0ul - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (p == s || *p)
		return -EINVAL;
	*res = v;
	return 0;
}

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}
