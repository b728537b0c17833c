/*
 * rcutorture, small (after Linux's kernel/rcu/rcutorture.c; docs/rcu.md,
 * section 8): readers check that no element they reach has been freed,
 * or has passed two grace periods since it was removed, while a writer
 * replaces the element they read and frees the old one after grace
 * periods (synchronize_rcu() and call_rcu() in turn), and CPUs go offline
 * and come back. The busted control's "grace period" returns at once:
 * it must be caught. `make torture` runs it as the types rcu and
 * rcu_busted (torture.c), a KTEST as a short run bounded by counts.
 */
#ifndef RCUTORTURE_H
#define RCUTORTURE_H

#include <stdbool.h>
#include <stdint.h>

/* Pipe stages, as Linux's RCU_TORTURE_PIPE_LEN: an element removed from
 * the readers' view is freed after this many grace periods. */
#define RCU_TORTURE_PIPE_LEN 10

struct rcu_torture_cfg {
	uint64_t seed;
	unsigned long max_updates;  /* stop after this many (0: no limit) */
	unsigned long ms;           /* ... or this long (0: no limit) */
	bool busted;                /* grace periods that do not wait */
	bool hotplug;               /* a CPU down and up, over and over */
	bool stop_on_error;         /* end at the first error (the control) */
};

struct rcu_torture_result {
	unsigned long updates;      /* elements replaced */
	unsigned long reads;        /* read-side sections that found one */
	/* Reads by the pipe stage of the element read: any read past
	 * stage 1 saw an element two grace periods after its removal. */
	unsigned long pipe[RCU_TORTURE_PIPE_LEN + 1];
	unsigned long freed_seen;   /* reads of an element already freed */
	unsigned long pool_empty;   /* updates that waited for a free element */
	unsigned long hotplugs;     /* CPU down+up cycles */
	unsigned long errors;       /* pipe[2..] + freed_seen */
};

/* 0, or -1 if the readers and the writer could not be started. */
int rcu_torture(const struct rcu_torture_cfg *cfg, struct rcu_torture_result *r);
/* Linux's statistics lines, as "name-torture: ...". */
void rcu_torture_print(const char *name, const struct rcu_torture_result *r);

#endif
