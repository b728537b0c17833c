/*
 * Reaching user memory from the kernel, as Linux: every pointer a system
 * call is given goes through these. The address range is checked first
 * (access_ok: the whole range below USER_TOP, so no kernel address and no
 * non-canonical one gets through); an unmapped or read-only user page is
 * caught while copying, by the exception table (extable.h). The copies
 * return the number of bytes not copied; callers turn non-zero into
 * -EFAULT.
 */
#ifndef UACCESS_H
#define UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "asm/uaccess.h"

static inline bool access_ok(uintptr_t addr, size_t n)
{
	/* LAB6 BEGIN */
	return addr <= USER_TOP && n <= USER_TOP - addr;
	/* LAB6 STUB: return addr < USER_TOP; */
	/* LAB6 END */
}

unsigned long copy_from_user(void *to, uintptr_t from, size_t n);
unsigned long copy_to_user(uintptr_t to, const void *from, size_t n);

/* Copy a NUL-terminated user string into dst (size bytes): its length, or
 * -EFAULT, or -ENAMETOOLONG when it does not fit. */
long strncpy_from_user(char *dst, uintptr_t src, size_t size);

#endif
