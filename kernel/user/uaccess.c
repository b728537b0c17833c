/* copy_from_user() and friends (see uaccess.h). */
#include "user/uaccess.h"
#include "user/uapi.h"

unsigned long copy_from_user(void *to, uintptr_t from, size_t n)
{
	if (!access_ok(from, n))
		return n;
	return raw_copy_from_user(to, (const void *)from, n);
}

unsigned long copy_to_user(uintptr_t to, const void *from, size_t n)
{
	if (!access_ok(to, n))
		return n;
	return raw_copy_to_user((void *)to, from, n);
}

/* A byte at a time: the strings are short (paths, arguments), and each
 * byte is checked on its own, so a string that ends just before an
 * unmapped page is fine. */
long strncpy_from_user(char *dst, uintptr_t src, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (copy_from_user(&dst[i], src + i, 1))
			return -EFAULT;
		if (!dst[i])
			return (long)i;
	}
	return -ENAMETOOLONG;
}
