/*
 * In-kernel test framework. A test is a function registered with KTEST()
 * in a file under tests/; the runner (kernel/debug/ktest.c) finds every test through
 * the .ktests section, runs those whose "suite.name" matches the ktest=GLOB
 * command-line option and reports KTAP on the console.
 *
 * KEXPECT_* record a failure and go on; KASSERT_* record it and end the test.
 */
#ifndef KTEST_H
#define KTEST_H

#include "compiler.h"
#include <stdbool.h>
#include <stdint.h>
#include "locking/lockdep.h"

struct ktest {
	const char *suite;
	const char *name;
	void (*fn)(void);
	const char *file;
	int line;
	int min_cpus;            /* skipped when fewer CPUs are online */
	const char *const *expect; /* non-NULL: the test must end in a panic
	                            * (or fail, if must_fail) with a log that
	                            * contains each of these strings */
	bool must_fail;            /* KTEST_XFAIL */
};

#define KTEST_SECTION __attribute__((used, section(".ktests"), aligned(8)))

#define KTEST_DEFINE(suite_, name_, cpus_, expect_, fail_)                   \
	static void ktest_fn_##suite_##_##name_(void);                       \
	static const struct ktest ktest_##suite_##_##name_ KTEST_SECTION = { \
		.suite = #suite_, .name = #name_,                            \
		.fn = ktest_fn_##suite_##_##name_, .file = __FILE__,         \
		.line = __LINE__, .min_cpus = (cpus_), .expect = (expect_),  \
		.must_fail = (fail_),                                        \
	};                                                                   \
	static void ktest_fn_##suite_##_##name_(void)

/*
 * Set-up and tear-down shared by every test of a suite, as KUnit's suite
 * init/exit: init() runs in the test's task just before each test of the
 * suite, exit() just after it, also when a KASSERT ended the test. A suite
 * declares it once, in any one of its files:
 *
 *	KTEST_SUITE(lockdep, .init = lockdep_reset, .exit = lockdep_reset);
 */
struct ktest_suite {
	const char *name;
	void (*init)(void);
	void (*exit)(void);
};

#define KTEST_SUITE_SECTION                                                  \
	__attribute__((used, section(".ktest_suites"), aligned(8)))
#define KTEST_SUITE(suite_, ...)                                             \
	static const struct ktest_suite ktest_suite_##suite_                 \
		KTEST_SUITE_SECTION = {.name = #suite_, __VA_ARGS__}

#define KTEST(suite, name) KTEST_DEFINE(suite, name, 1, 0, false)
#define KTEST_CPUS(suite, name, n) KTEST_DEFINE(suite, name, n, 0, false)

/*
 * A test that must end the kernel in a panic or an exception report. It is
 * skipped in ordinary runs (reported "# SKIP panic test"); the host runner
 * boots it alone and checks that the log holds every expected string.
 */
#define KTEST_PANIC(suite, name, ...)                                        \
	static const char *const ktest_expect_##suite##_##name[] = {         \
		__VA_ARGS__, 0};                                             \
	KTEST_DEFINE(suite, name, 1, ktest_expect_##suite##_##name, false)

/*
 * A test that must fail, with each of these strings in the log after its
 * "# expect:" lines: for checks of the runner itself, which must turn a
 * situation into a failure (a lock validator that switched itself off).
 * Skipped in ordinary runs ("# SKIP expected-failure test"); the host
 * runner boots it alone and checks that the run failed and the strings.
 */
#define KTEST_XFAIL(suite, name, ...)                                        \
	static const char *const ktest_expect_##suite##_##name[] = {         \
		__VA_ARGS__, 0};                                             \
	KTEST_DEFINE(suite, name, 1, ktest_expect_##suite##_##name, true)

/* Failure recording: called by the macros below. */
void ktest_fail(const char *file, int line, const char *expr,
		const char *lhs, long long a, const char *rhs, long long b);
void ktest_fail_msg(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
__noreturn void ktest_abort(void);

/* Printed as a KTAP diagnostic ("# ...") line inside the current test. */
void ktest_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The operands are stringified by the outer macros, before expansion, so
 * a failure shows what the test wrote, not what a macro made of it. */
#define KTEST_CMP_(fatal, op, a, b, sa, sb)                                  \
	do {                                                                 \
		long long ktest_a_ = (long long)(a);                         \
		long long ktest_b_ = (long long)(b);                         \
		if (!(ktest_a_ op ktest_b_)) {                               \
			ktest_fail(__FILE__, __LINE__, #op, sa, ktest_a_,    \
				   sb, ktest_b_);                            \
			if (fatal)                                           \
				ktest_abort();                               \
		}                                                            \
	} while (0)

#define KEXPECT_EQ(a, b) KTEST_CMP_(0, ==, a, b, #a, #b)
#define KEXPECT_NE(a, b) KTEST_CMP_(0, !=, a, b, #a, #b)
#define KEXPECT_LT(a, b) KTEST_CMP_(0, <, a, b, #a, #b)
#define KEXPECT_LE(a, b) KTEST_CMP_(0, <=, a, b, #a, #b)
#define KEXPECT_GT(a, b) KTEST_CMP_(0, >, a, b, #a, #b)
#define KEXPECT_GE(a, b) KTEST_CMP_(0, >=, a, b, #a, #b)
#define KEXPECT_TRUE(x) KTEST_CMP_(0, !=, !!(x), 0, "!!(" #x ")", "0")
#define KEXPECT_FALSE(x) KTEST_CMP_(0, ==, !!(x), 0, "!!(" #x ")", "0")

#define KASSERT_EQ(a, b) KTEST_CMP_(1, ==, a, b, #a, #b)
#define KASSERT_NE(a, b) KTEST_CMP_(1, !=, a, b, #a, #b)
#define KASSERT_LT(a, b) KTEST_CMP_(1, <, a, b, #a, #b)
#define KASSERT_LE(a, b) KTEST_CMP_(1, <=, a, b, #a, #b)
#define KASSERT_GT(a, b) KTEST_CMP_(1, >, a, b, #a, #b)
#define KASSERT_GE(a, b) KTEST_CMP_(1, >=, a, b, #a, #b)
#define KASSERT_TRUE(x) KTEST_CMP_(1, !=, !!(x), 0, "!!(" #x ")", "0")
#define KASSERT_FALSE(x) KTEST_CMP_(1, ==, !!(x), 0, "!!(" #x ")", "0")

/* String equality, with both strings in the failure message. */
#define KEXPECT_STREQ(a, b)                                                  \
	do {                                                                 \
		const char *ktest_sa_ = (a), *ktest_sb_ = (b);               \
		if (strcmp(ktest_sa_, ktest_sb_) != 0)                       \
			ktest_fail_msg(__FILE__, __LINE__,                   \
				       "KEXPECT_STREQ(%s, %s): \"%s\" != \"%s\"", \
				       #a, #b, ktest_sa_, ktest_sb_);        \
	} while (0)

/*
 * For helper tasks: the number of the test now running, and whether test
 * number n has ended (returned, or a KASSERT ended it). A helper that
 * loops until its test tells it to stop also stops once its test has
 * ended, which can then no longer tell it: a failed test leaves nothing
 * running behind it, and no helper needs a deadline of its own, which a
 * busy host could make a correct test outlive.
 */
unsigned long ktest_number(void);
bool ktest_ended(unsigned long n);

/* Run fn(arg) in hard-interrupt context on the calling CPU (a self-IPI)
 * and return when it has run. Needs interrupts on. */
void ktest_in_hardirq(void (*fn)(void *), void *arg);

/* Run fn(arg) in softirq context (a tasklet) on the calling CPU and
 * return when it has run. Needs interrupts on and BHs enabled, and on
 * PREEMPT_RT a preemptible caller (the softirq runs in its
 * local_bh_enable()). */
void ktest_in_softirq(void (*fn)(void *), void *arg);

/* A test outside the lockdep suites that provokes validator reports on
 * purpose: n reports of kind were made since the test began (0 expected
 * when LOCKDEP=0; a failure, whatever n, when the validator is built but
 * switched itself off), and the validator forgets them (lockdep_reset()),
 * so the runner does not count them as unexpected. */
#define KEXPECT_LOCKDEP_REPORTS(kind, n)                                      \
	ktest_expect_lockdep_reports(__FILE__, __LINE__, #kind, kind, n)
void ktest_expect_lockdep_reports(const char *file, int line, const char *name,
				  enum lockdep_report_kind kind,
				  unsigned long n);

/* Runs the tests selected by glob; returns the number of failed tests.
 * Called from a kernel task (each test runs in a task of its own). */
int ktest_run_all(const char *glob);

#endif
