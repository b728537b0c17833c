/*
 * A lock validator whose table overflows switches itself off (lockdep.c):
 * that must fail the test run, naming the limit, and a test expecting
 * reports must see that the validator was off instead of passing
 * vacuously (kernel/debug/ktest.c). An expected-failure test: the host
 * runner boots it alone and checks that it failed, with these messages.
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* More classes than the validator's table holds (MAX_LOCKDEP_CLASSES,
 * 1024 less the ones the boot made); each lock its own class. */
#define OVERFLOW_CLASSES 1200

static struct lock_class_key overflow_keys[OVERFLOW_CLASSES];
static raw_spinlock_t overflow_locks[OVERFLOW_CLASSES];
static struct lock_class_key overflow_rec_key;
static DEFINE_RAW_SPINLOCK(overflow_rec_a);
static DEFINE_RAW_SPINLOCK(overflow_rec_b);

KTEST_XFAIL(lockdep_overflow, class_table_full,
	    "lockdep: BUG: MAX_LOCKDEP_CLASSES too low; the lock validator is off",
	    "expected 1 LOCKDEP_RECURSIVE report(s), but the lock validator is "
	    "off (MAX_LOCKDEP_CLASSES too low): got 0",
	    "the lock validator switched itself off during this test "
	    "(MAX_LOCKDEP_CLASSES too low)",
	    "not ok 1 class_table_full")
{
	lockdep_reset();
	for (int i = 0; i < OVERFLOW_CLASSES; i++) {
		raw_spin_lock_init(&overflow_locks[i]);
		lockdep_set_class(&overflow_locks[i], &overflow_keys[i]);
		raw_spin_lock(&overflow_locks[i]);
		raw_spin_unlock(&overflow_locks[i]);
	}
	/* A recursion the validator would report, were it on. */
	lockdep_set_class(&overflow_rec_a, &overflow_rec_key);
	lockdep_set_class(&overflow_rec_b, &overflow_rec_key);
	take_nested(R(overflow_rec_a), R(overflow_rec_b));
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RECURSIVE, 1);
}

#endif
