/*
 * Tests for lib/string.c. Inputs pass through HIDE() (ktest_util.h) so that
 * gcc cannot evaluate the calls at compile time and the real
 * implementation runs.
 */
#include "ktest_util.h"
#include "string.h"

KTEST(string, memset_fills_exact_range)
{
	char buf[8] = "abcdefg";

	KEXPECT_EQ(memset(HIDE(buf + 1), 'x', HIDE(3)), buf + 1);
	KEXPECT_STREQ(buf, "axxxefg");
	memset(HIDE(buf), 0x1ff, HIDE(1));	/* only the low byte counts */
	KEXPECT_EQ((unsigned char)buf[0], 0xff);
	memset(HIDE(buf), 'z', HIDE(0));
	KEXPECT_EQ((unsigned char)buf[0], 0xff);
}

KTEST(string, memcpy_copies_and_returns_dst)
{
	char src[6] = "hello", dst[6] = "-----";

	KEXPECT_EQ(memcpy(HIDE(dst), HIDE(src), HIDE(3)), dst);
	KEXPECT_STREQ(dst, "hel--");
	memcpy(HIDE(dst), HIDE(src), HIDE(0));
	KEXPECT_STREQ(dst, "hel--");
}

/* dst above src: a naive forward copy would smear the first bytes. */
KTEST(string, memmove_overlap_dst_after_src)
{
	char buf[11] = "0123456789";

	KEXPECT_EQ(memmove(HIDE(buf + 2), HIDE(buf), HIDE(6)), buf + 2);
	KEXPECT_STREQ(buf, "0101234589");
}

/* dst below src: a backward copy would go wrong here. */
KTEST(string, memmove_overlap_dst_before_src)
{
	char buf[11] = "0123456789";

	KEXPECT_EQ(memmove(HIDE(buf), HIDE(buf + 3), HIDE(7)), buf);
	KEXPECT_STREQ(buf, "3456789789");
	memmove(HIDE(buf), HIDE(buf), HIDE(10));
	KEXPECT_STREQ(buf, "3456789789");
}

/* Bytes compare as unsigned: 0x80 is greater than 0x01. */
KTEST(string, memcmp_sign_and_length)
{
	unsigned char a[3] = { 1, 0x80, 5 }, b[3] = { 1, 0x01, 9 };

	KEXPECT_GT(memcmp(HIDE(a), HIDE(b), HIDE(3)), 0);
	KEXPECT_LT(memcmp(HIDE(b), HIDE(a), HIDE(3)), 0);
	KEXPECT_EQ(memcmp(HIDE(a), HIDE(b), HIDE(1)), 0);
	KEXPECT_EQ(memcmp(HIDE(a), HIDE(b), HIDE(0)), 0);
}

KTEST(string, strlen_and_strnlen)
{
	KEXPECT_EQ(strlen(HIDE("")), 0);
	KEXPECT_EQ(strlen(HIDE("kernel")), 6);
	KEXPECT_EQ(strnlen(HIDE("kernel"), HIDE(3)), 3);
	KEXPECT_EQ(strnlen(HIDE("kernel"), HIDE(100)), 6);
	KEXPECT_EQ(strnlen(HIDE("kernel"), HIDE(0)), 0);
}

KTEST(string, strcmp_and_strncmp)
{
	KEXPECT_EQ(strcmp(HIDE("abc"), HIDE("abc")), 0);
	KEXPECT_LT(strcmp(HIDE("abc"), HIDE("abd")), 0);
	KEXPECT_GT(strcmp(HIDE("abc"), HIDE("ab")), 0);
	KEXPECT_LT(strcmp(HIDE(""), HIDE("a")), 0);
	/* High bytes are above ASCII when compared as unsigned char. */
	KEXPECT_GT(strcmp(HIDE("\xe9"), HIDE("e")), 0);
	KEXPECT_EQ(strncmp(HIDE("abcX"), HIDE("abcY"), HIDE(3)), 0);
	KEXPECT_LT(strncmp(HIDE("abcX"), HIDE("abcY"), HIDE(4)), 0);
	KEXPECT_EQ(strncmp(HIDE("ab"), HIDE("ab"), HIDE(10)), 0);
	KEXPECT_EQ(strncmp(HIDE("x"), HIDE("y"), HIDE(0)), 0);
}

KTEST(string, strchr_and_strrchr)
{
	const char *s = HIDE("a/b/c");

	KEXPECT_EQ(strchr(s, '/'), s + 1);
	KEXPECT_EQ(strrchr(s, '/'), s + 3);
	KEXPECT_EQ(strchr(s, 'z'), NULL);
	KEXPECT_EQ(strrchr(s, 'z'), NULL);
	/* The terminator itself can be searched for. */
	KEXPECT_EQ(strchr(s, '\0'), s + 5);
	KEXPECT_EQ(strrchr(s, '\0'), s + 5);
}

KTEST(string, strlcpy_truncates_and_returns_srclen)
{
	char buf[8];

	KEXPECT_EQ(strlcpy(HIDE(buf), HIDE("hi"), sizeof(buf)), 2);
	KEXPECT_STREQ(buf, "hi");
	KEXPECT_EQ(strlcpy(HIDE(buf), HIDE("truncated!"), sizeof(buf)), 10);
	KEXPECT_STREQ(buf, "truncat");
	KEXPECT_EQ(strlcpy(HIDE(buf), HIDE("1234567"), sizeof(buf)), 7);
	KEXPECT_STREQ(buf, "1234567");
	/* size 0 writes nothing at all, not even the NUL. */
	buf[0] = 'q';
	KEXPECT_EQ(strlcpy(HIDE(buf), HIDE("abc"), HIDE(0)), 3);
	KEXPECT_EQ(buf[0], 'q');
	KEXPECT_EQ(strlcpy(HIDE(buf), HIDE("abc"), HIDE(1)), 3);
	KEXPECT_EQ(buf[0], '\0');
}

KTEST(string, strstr_finds_first_match)
{
	const char *s = HIDE("abcabcd");

	KEXPECT_EQ(strstr(s, HIDE("abc")), s);
	KEXPECT_EQ(strstr(s, HIDE("bcd")), s + 4);
	KEXPECT_EQ(strstr(s, HIDE("d")), s + 6);
	KEXPECT_EQ(strstr(s, HIDE("abcde")), NULL);
	KEXPECT_EQ(strstr(s, HIDE("abcabcdx")), NULL);
	/* An empty needle matches at the start, even of an empty haystack. */
	KEXPECT_EQ(strstr(s, HIDE("")), s);
	s = HIDE("");
	KEXPECT_EQ(strstr(s, HIDE("")), s);
	KEXPECT_EQ(strstr(s, HIDE("a")), NULL);
}
