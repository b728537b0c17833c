/*
 * Running a user program from a test (tests/user/user.c): spawned, waited
 * for, its output captured.
 */
#ifndef USER_RUN_H
#define USER_RUN_H

#include "process.h"

/* The last program's output (run_user()). */
extern struct process_output *user_out;

/* Run program argv[0] with its output captured in user_out; its status,
 * or the spawn error (negative). The output is shown when status differs
 * from want. */
int run_user(int want, int argc, char *const argv[]);

#define RUN_USER(want, ...)                                                   \
	({                                                                    \
		char *argv_[] = {__VA_ARGS__};                                \
		run_user(want, ARRAY_SIZE(argv_), argv_);                     \
	})

#endif
