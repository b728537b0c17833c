/*
 * Freestanding string and memory routines: plain byte loops, small and
 * obviously correct rather than fast.
 */
#include <stddef.h>
#include <stdint.h>

#include "string.h"

/*
 * Without -fno-builtin, gcc at -O2 recognises a byte-copy or byte-fill loop
 * and replaces it with a call to memcpy/memset -- which here would make
 * memset call itself forever. This turns that transformation off for the
 * functions whose loops look like those patterns.
 */
#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/*
	 * Copying forwards is only unsafe when dst starts inside src; then
	 * go backwards so each byte is read before it is overwritten.
	 * Compare as integers: relational operators on pointers into
	 * different objects are undefined.
	 */
	if ((uintptr_t)d <= (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n) {
		while (n--)
			*d++ = *s++;
	} else {
		d += n;
		s += n;
		while (n--)
			*--d = *--s;
	}
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

NO_LIBCALL size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

NO_LIBCALL size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* Bytes compare as unsigned char, as the C standard requires. */
int strcmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	while (*p && *p == *q) {
		p++;
		q++;
	}
	return *p - *q;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)a;
	const unsigned char *q = (const unsigned char *)b;

	for (; n; n--, p++, q++) {
		if (*p != *q)
			return *p - *q;
		if (!*p)
			break;
	}
	return 0;
}

/* The terminator counts as part of the string: strchr(s, 0) finds it. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/* Naive O(n*m) search; the kernel only looks for short needles. */
char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (strncmp(haystack, needle, n) == 0)
			return (char *)haystack;
	return n == 0 ? (char *)haystack : NULL;
}
