/*
 * The lockdep suite's set-up and tear-down: every test starts and ends
 * with a clean validator (its scenarios are tests/lockdep/lockdep_*.c; the rules
 * they keep are in lockdep_suite.h).
 */
#include "ktest.h"
#include "lockdep.h"

KTEST_SUITE(lockdep, .init = lockdep_reset, .exit = lockdep_reset);
