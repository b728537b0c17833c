/*
 * Tests for kstrtobool() (lib/vsprintf.c): the boolean values boot
 * options such as kmalloc_pcp= accept, and the rejections kmain reports.
 */
#include <stdbool.h>

#include "compiler.h"
#include "ktest.h"
#include "vsprintf.h"

KTEST(kstrtobool, accepts_linux_spellings)
{
	static const char *const yes[] = {"1", "y", "Y", "yes", "t", "true",
					  "on", "ON"};
	static const char *const no[] = {"0", "n", "N", "no", "f", "false",
					 "off", "OFF"};

	for (unsigned i = 0; i < ARRAY_SIZE(yes); i++) {
		bool v = false;

		KEXPECT_EQ(kstrtobool(yes[i], &v), 0);
		KEXPECT_TRUE(v);
	}
	for (unsigned i = 0; i < ARRAY_SIZE(no); i++) {
		bool v = true;

		KEXPECT_EQ(kstrtobool(no[i], &v), 0);
		KEXPECT_FALSE(v);
	}
}

/* Anything else is -EINVAL and leaves the result alone. */
KTEST(kstrtobool, rejects_the_rest)
{
	static const char *const bad[] = {"", "2", "x", "o", "ox", "-1",
					  " 1"};

	for (unsigned i = 0; i < ARRAY_SIZE(bad); i++) {
		bool v = true;

		KEXPECT_EQ(kstrtobool(bad[i], &v), -22);
		KEXPECT_TRUE(v);
	}
	KEXPECT_EQ(kstrtobool(0, &(bool){false}), -22);
}
