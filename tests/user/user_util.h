/*
 * What the user-mode tests share (defined in tests/user/user.c): running
 * a user program, spawned, waited for, its output captured; and the check
 * that every CPU's GS bases are the kernel's.
 */
#ifndef USER_UTIL_H
#define USER_UTIL_H

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

/* How many online CPUs have a GS base wrong, looked at from each CPU's
 * interrupt context: GS_BASE must be its per-CPU offset, KERNEL_GS_BASE
 * the user's 0. */
long gs_bases_wrong(void);

#endif
