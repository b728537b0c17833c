/* printf and puts on write(1, ...). */
#include "../ulib.h"

int printf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	return write(1, buf, n);
}

int puts(const char *s)
{
	int n = write(1, s, strlen(s));

	return n < 0 ? n : write(1, "\n", 1) + n;
}
