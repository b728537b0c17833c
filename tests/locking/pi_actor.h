/*
 * The stage the priority-inheritance tests (pi*.c) play on: actors,
 * helper tasks that take a lock and maybe a second one under it, the log
 * of who acquired in which order at which priority, and the test task
 * directing them from above.
 *
 * Every scenario runs on one CPU (the last online one), so that who runs
 * is decided by priority alone: the actors are bound there with their
 * SCHED_FIFO priorities, and the test task moves there too, at
 * SCHED_FIFO 90, above all of them. It wakes one actor at a time and
 * sleeps (1 ms polls) until that actor has reached a given point (holds
 * its lock, or is blocked on one); since nothing of lower priority runs
 * while it is awake, what it reads (task_prio() of each actor, the lock
 * word) is a stable snapshot. The test task drops back to SCHED_NORMAL
 * before joining (kthread_join() must not out-prioritise a task on its own
 * CPU that still has to switch out for the last time).
 */
#ifndef PI_ACTOR_H
#define PI_ACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "ktest.h"
#include "ktest_util.h"
#include "lock_kind.h"
#include "rtmutex.h"
#include "sched.h"

#define MAIN_PRIO 90                /* the test task, above every actor */

/* Poll (the test task sleeps, the actors run) until cond, or until
 * KTEST_WAIT_MS says the kernel is stuck. */
#define POLL_UNTIL(cond) ktest_poll_until(cond, KTEST_WAIT_MS, POLL_SLEEP)

enum { ST_NEW, ST_OWN_HELD, ST_WAITING, ST_NEXT_HELD, ST_DONE };

/*
 * An actor takes own (if any) and says so; then, after go if wait_go,
 * takes next (if any) and logs it; then, after release if wait_release,
 * releases next and own and exits. A lock taken with no next to follow is
 * logged as the acquisition. Its locks are of one kind (rt_mutex unless
 * set).
 */
struct actor {
	const char *name;
	int id, prio;             /* log id; SCHED_FIFO priority */
	enum lock_kind kind;
	void *own, *next;
	bool wait_go, wait_release;
	volatile int go, release, state;
	int ret;                  /* of taking next */
	uintptr_t next_word;      /* next's owner word when that failed */
	bool blocked_after_fail;
	int prio_after;
	struct task_struct *task;
};

/* Actor i of the scenario: name at prio (also its log id), holding own
 * and then wanting next (either may be NULL), rt_mutex locks. One that
 * holds a lock and wants another waits for go first; one that only holds
 * waits for release. */
struct actor *actor(int i, const char *name, int prio, void *own,
		    void *next);

extern volatile int pi_abort;       /* set on clean-up: actors stop waiting */
extern struct rt_mutex lock_a, lock_b, lock_c;

/* The test task moves to the scenario's CPU, above every actor; the log
 * is emptied. */
void orchestrate_begin(void);
/* fn(arg) as a task bound to that CPU, at SCHED_FIFO prio (0: NORMAL). */
struct task_struct *pi_start(int (*fn)(void *), void *arg, const char *name,
		      int prio);
/* Start the actor, and wait until it holds its own lock, or, if it goes
 * for next at once, until it is blocked on it (a failure is recorded). */
void actor_enter(struct actor *a);
bool actor_reached(struct actor *a, int st);
bool actor_blocked(struct actor *a);
bool task_blocked(struct task_struct *t);
int prio_of(struct actor *a);
/* Release everything, wait for the actors to finish, drop back to
 * SCHED_NORMAL and join them. */
void finish(struct actor **a, int n);

/* Log an acquisition by who, at the caller's priority. */
void acq_log(int who);
/* The log must read who[0] at prio[0], who[1] at prio[1], ... */
void expect_log(int n, const int *who, const int *prio);
/* got[i] == want[i] for each i < n, after logging both under what. */
void expect_ints(const char *what, const int *got, const int *want, int n);

/* L (10) holds lock (of kind), then waiters of the given priorities block
 * one after the other (ids 100, 101, ...): owner_prio[0] is L's priority
 * before, owner_prio[1 + i] after the i-th blocked. Returns L. */
struct actor *run_waiters(enum lock_kind kind, void *lock, const int *prios,
			  int n, int *owner_prio);

#endif
