/*
 * copy_from_user() and friends called directly from a test task, whose
 * address space has no user half: access_ok()'s bounds, the exception
 * table turning a fault on an unmapped user page into a short copy, and a
 * fault on the kernel's side of a copy reported as the kernel bug it is.
 */
#include "ktest.h"
#include "sched.h"
#include "uaccess.h"
#include "uapi.h"

KTEST(usercopy, access_ok_bounds)
{
	KEXPECT_TRUE(access_ok(0, 0));
	KEXPECT_TRUE(access_ok(0, USER_TOP));
	KEXPECT_TRUE(access_ok(USER_TOP - 1, 1));
	KEXPECT_TRUE(access_ok(USER_TOP, 0));
	KEXPECT_FALSE(access_ok(USER_TOP - 1, 2));
	KEXPECT_FALSE(access_ok(USER_TOP, 1));
	KEXPECT_FALSE(access_ok(0x0000800000000000ul, 1)); /* non-canonical */
	KEXPECT_FALSE(access_ok(0xffffffff80000000ul, 1)); /* the kernel */
	KEXPECT_FALSE(access_ok(0x1000, ~0ul));            /* wraps */
}

KTEST(usercopy, kernel_address_refused)
{
	static char secret[8] = "secret", buf[8];

	/* Refused before any access: nothing copied either way. */
	KEXPECT_EQ(copy_from_user(buf, (uintptr_t)secret, sizeof(buf)),
		   sizeof(buf));
	KEXPECT_EQ(copy_to_user((uintptr_t)secret, "xxxxxxx", 8), 8);
	KEXPECT_EQ(secret[0], 's');
}

KTEST(usercopy, unmapped_faults_to_fixup)
{
	char buf[16];

	/* No user pages here: each copy faults on its first byte, the
	 * exception table resumes it, and all bytes are reported left. */
	KEXPECT_EQ(copy_from_user(buf, 0, sizeof(buf)), sizeof(buf));
	KEXPECT_EQ(copy_from_user(buf, 0x400000, sizeof(buf)), sizeof(buf));
	KEXPECT_EQ(copy_to_user(0x400000, buf, sizeof(buf)), sizeof(buf));
	KEXPECT_EQ(strncpy_from_user(buf, 0x400000, sizeof(buf)), -EFAULT);
	KEXPECT_EQ(copy_from_user(buf, 0x400000, 0), 0);
}

/* The kernel side of a user copy is the kernel's own pointer: a fault
 * there is a kernel bug, reported and fatal, never a quiet -EFAULT. The
 * user side (0x400000) is a fine user address; the kernel source is the
 * guard page below this task's stack, which is never mapped. rep movsb
 * reads the source first, so the kernel side faults first. */
KTEST_PANIC(usercopy, kernel_side_page_fault_is_a_bug,
	    "BUG: #PF page fault on the kernel side of a user copy (copy to "
	    "user 0x400000", "unhandled exception 14", "raw_copy_to_user.copy",
	    "end Kernel panic")
{
	const char *guard = (const char *)current->stack - 64;

	copy_to_user(0x400000, guard, 16);
}

/* A non-canonical kernel pointer: #GP in the copy, also the kernel's. */
KTEST_PANIC(usercopy, kernel_side_gp_is_a_bug,
	    "BUG: #GP general protection on the kernel side of a user copy "
	    "(copy to user 0x400000, kernel 0x8000000000000000",
	    "unhandled exception 13", "raw_copy_to_user.copy",
	    "end Kernel panic")
{
	copy_to_user(0x400000, (const void *)0x8000000000000000ul, 16);
}
