/*
 * Tests for lib/glob.c, the matcher behind the ktest= command-line option.
 */
#include "glob.h"
#include "ktest.h"

KTEST(glob, literal_and_question_mark)
{
	KEXPECT_TRUE(glob_match("boot.cpuid", "boot.cpuid"));
	KEXPECT_FALSE(glob_match("boot.cpuid", "boot.cpui"));
	KEXPECT_FALSE(glob_match("boot.cpui", "boot.cpuid"));
	KEXPECT_TRUE(glob_match("pmm.a?loc", "pmm.alloc"));
	KEXPECT_FALSE(glob_match("pmm.?", "pmm."));
	KEXPECT_TRUE(glob_match("", ""));
	KEXPECT_FALSE(glob_match("", "x"));
}

KTEST(glob, star_matches_any_run)
{
	KEXPECT_TRUE(glob_match("*", ""));
	KEXPECT_TRUE(glob_match("*", "anything.at_all"));
	KEXPECT_TRUE(glob_match("boot.*", "boot."));
	KEXPECT_TRUE(glob_match("boot.*", "boot.gdt"));
	KEXPECT_FALSE(glob_match("boot.*", "pmm.boot."));
	KEXPECT_TRUE(glob_match("*.alloc*", "pmm.alloc_free"));
	KEXPECT_TRUE(glob_match("a*b*c", "aXXbYYbc"));
	KEXPECT_FALSE(glob_match("a*b*c", "aXXbYYbcd"));
	KEXPECT_TRUE(glob_match("**x**", "x"));
}

/* Needs backtracking: the first 'ab' the star stops at is the wrong one. */
KTEST(glob, backtracking)
{
	KEXPECT_TRUE(glob_match("*ab?", "aabab_"));
	KEXPECT_TRUE(glob_match("*aab", "aaaab"));
	KEXPECT_FALSE(glob_match("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

KTEST(glob, comma_separated_list)
{
	KEXPECT_TRUE(glob_match_list("boot.*,pmm.*", "boot.idt"));
	KEXPECT_TRUE(glob_match_list("boot.*,pmm.*", "pmm.alloc"));
	KEXPECT_FALSE(glob_match_list("boot.*,pmm.*", "vmm.map"));
	KEXPECT_TRUE(glob_match_list("string.*", "string.strlen_and_strnlen"));
	/* Elements are matched whole: "a,b" does not match "a,b". */
	KEXPECT_FALSE(glob_match_list("a,b", "a,b"));
	KEXPECT_FALSE(glob_match_list("ab,cd", "b"));
	/* An empty element matches only the empty string. */
	KEXPECT_TRUE(glob_match_list("x,", ""));
	KEXPECT_FALSE(glob_match_list("x,", "y"));
}
