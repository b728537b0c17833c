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

/* Copy n bytes from user memory (raw_copy_from_user) or to it
 * (raw_copy_to_user), with SMAP opened for the copy; return the number of
 * bytes NOT copied (0 on success). A fault on the user side stops the copy
 * there (uaccess.asm, __ex_table); one on the kernel side is a kernel bug
 * and ends in a report (trap.c). */
unsigned long raw_copy_from_user(void *to, const void *from, unsigned long n);
unsigned long raw_copy_to_user(void *to, const void *from, unsigned long n);

#endif
