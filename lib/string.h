/*
 * Freestanding replacements for the <string.h> functions the kernel uses.
 * Standard C semantics; strlcpy() follows BSD.
 */
#ifndef STRING_H
#define STRING_H

#include <stddef.h>

void *memset(void *dst, int c, size_t n);
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);

size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

/*
 * Copies at most size - 1 bytes and always NUL-terminates when size > 0.
 * Returns strlen(src), so truncation happened iff the result >= size.
 */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif
