/*
 * The boot information the core keeps (bootinfo.h): the arch's copy of
 * what the boot loader said, and the command-line options read from it.
 */
#include "bootinfo.h"
#include "string.h"

struct boot_info boot_info;

const char *cmdline_get(const char *key, char *buf, int size)
{
	size_t klen = strlen(key);
	const char *p = boot_info.cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (strncmp(p, key, klen) == 0 &&
		    (p[klen] == '=' || p[klen] == ' ' || p[klen] == 0)) {
			const char *v = p[klen] == '=' ? p + klen + 1 : p + klen;
			int n = 0;

			while (v[n] && v[n] != ' ' && n < size - 1) {
				buf[n] = v[n];
				n++;
			}
			buf[n] = 0;
			return buf;
		}
		while (*p && *p != ' ')
			p++;
	}
	return 0;
}
