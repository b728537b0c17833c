/*
 * Rate limiting (kernel/ratelimit.c): a burst passes, the rest of the
 * interval is held back and counted, and the next interval starts
 * afresh with the count reported. Intervals are moved by hand (begin),
 * never waited for.
 */
#include "ktest_util.h"
#include "ratelimit.h"

KTEST(ratelimit, burst_then_held_back_and_counted)
{
	/* An interval far longer than the test: no reset by itself. */
	static DEFINE_RATELIMIT_STATE(rs, 1000000 * HZ, 3);
	int passed = 0;

	for (int i = 0; i < 10; i++)
		passed += __ratelimit(&rs);
	KEXPECT_EQ(passed, 3);
	KEXPECT_EQ(rs.printed, 3);
	KEXPECT_EQ(rs.missed, 7);
	/* The interval is over: the next call starts a new one (and prints
	 * "... 7 callbacks suppressed"), and passes. */
	rs.begin = READ_ONCE(jiffies) - rs.interval - 1;
	KEXPECT_TRUE(__ratelimit(&rs));
	KEXPECT_EQ(rs.missed, 0);
	KEXPECT_EQ(rs.printed, 1);
	KEXPECT_TRUE(__ratelimit(&rs));
	KEXPECT_TRUE(__ratelimit(&rs));
	KEXPECT_FALSE(__ratelimit(&rs));
	KEXPECT_EQ(rs.missed, 1);
}

KTEST(ratelimit, zero_interval_never_limits)
{
	static DEFINE_RATELIMIT_STATE(rs, 0, 1);

	for (int i = 0; i < 100; i++)
		KEXPECT_TRUE(__ratelimit(&rs));
	KEXPECT_EQ(rs.missed, 0);
}
