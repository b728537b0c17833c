/*
 * The arch half of reaching user memory from the kernel (Linux's
 * asm/uaccess.h): where the user half ends, and one copy routine whose
 * every user access is covered by the exception table, so that a bad user
 * address ends the copy instead of the kernel. The checks and the
 * copy_from_user()/copy_to_user() API are the core's (kernel/user/uaccess.h).
 */
#ifndef _ASM_X86_UACCESS_H
#define _ASM_X86_UACCESS_H

#include <stdint.h>

/* One past the highest user address: the lower canonical half, less its
 * last page (so that no user mapping ends at the non-canonical edge). */
#define USER_TOP 0x00007ffffffff000ul

/* Copy n bytes (either side may be user memory) with SMAP opened for the
 * copy; returns the number of bytes NOT copied (0 on success). A fault
 * on a user address stops the copy there (uaccess.asm, __ex_table). */
unsigned long copy_user_generic(void *to, const void *from, unsigned long n);

#endif
