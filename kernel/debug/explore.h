/*
 * The seeded interleaving explorer (docs/debugging.md). Races hide in
 * windows a few instructions wide that plain runs almost never split; the
 * explorer splits them on purpose. At the kernel's scheduling points (lock
 * and unlock, preempt_enable() reaching zero, the outermost
 * migrate_enable(), this_cpu_ptr(), wake_up_process()) each visit is a
 * numbered decision, and a pseudo-random function of (seed, decision
 * number) says whether to inject something there: a preemption, a delay,
 * a reschedule IPI or a migration. In the scheduler's windows (a task
 * looked at with no lock or reference keeping it, interrupts off) a delay
 * is the only legal injection: another CPU gets in meanwhile. The same
 * seed on the same schedule makes the same decisions, so under
 * DETERMINISTIC=1 a failure replays.
 *
 * Built only with EXPLORE=1 (CONFIG_EXPLORE); otherwise explore_point()
 * is empty and the scheduling points compile to what they were. At run
 * time it is armed for each test when the command line has ktest_seed=N.
 */
#ifndef EXPLORE_H
#define EXPLORE_H

#include "compiler.h"
#include <stdbool.h>
#include <stdint.h>
#include "rwonce.h"

enum explore_site {
	EXPLORE_RAW_SPIN_LOCK,
	EXPLORE_RAW_SPIN_UNLOCK,
	EXPLORE_SPIN_LOCK,           /* PREEMPT_RT's sleeping spinlock_t */
	EXPLORE_SPIN_UNLOCK,
	EXPLORE_MUTEX_LOCK,
	EXPLORE_MUTEX_UNLOCK,
	EXPLORE_RT_MUTEX_LOCK,
	EXPLORE_RT_MUTEX_UNLOCK,
	EXPLORE_PREEMPT_ENABLE,      /* the count back at zero */
	EXPLORE_MIGRATE_ENABLE,      /* the outermost one */
	EXPLORE_THIS_CPU_PTR,        /* just after the pointer is formed */
	EXPLORE_WAKE_UP,
	/* Windows (explore_window()): interrupts off, a delay only. */
	EXPLORE_PUT_DEAD_TASK,       /* its reference dropped, joiner not woken */
	EXPLORE_PUSH_QUEUED,         /* hotplug's push: task picked, lock dropped */
	EXPLORE_PUSH_RT,             /* RT push: the same */
	EXPLORE_MOVABLE_CURR,        /* another CPU's rq->curr loaded */
	EXPLORE_NR_SITES
};

enum explore_action {
	EXPLORE_NONE,
	EXPLORE_YIELD,     /* preempt now (later, at the section's end, if
			    * preemption is off) */
	EXPLORE_DELAY,     /* busy-wait 1..1000 us: an interrupt may land */
	EXPLORE_IPI,       /* a reschedule IPI to another CPU (or this one) */
	EXPLORE_MIGRATE,   /* move to another CPU, if the task may */
	EXPLORE_DEMOTE,    /* PCT: the task's priority drops below the rest */
	EXPLORE_NR_ACTIONS
};

struct task_struct;

#ifdef CONFIG_EXPLORE
/* What seed's explorer does at decision number idx, when it is free to
 * choose (no explore_only= list): a pure function, for replay. */
enum explore_action explore_decide(uint64_t seed, unsigned long idx);
/* The delay, in microseconds, of a delay decision. */
unsigned int explore_delay_us(uint64_t seed, unsigned long idx);
/*
 * PCT (explore_mode=pct, explore_depth=d, explore_steps=k): the test's
 * tasks get random distinct priorities (task n, counted from the test's
 * own, gets explore_pct_prio(seed, n)), and at d-1 decisions drawn among
 * the first k (change point i at explore_pct_change(seed, i, k), i =
 * 1..d-1) the deciding task drops to priority d-i, below every first
 * one. At each scheduling point a task waits while a higher one can
 * run: a pure function of the seed and the task numbers again.
 */
uint64_t explore_pct_prio(uint64_t seed, unsigned int task);
unsigned long explore_pct_change(uint64_t seed, unsigned int i,
				 unsigned long k);

extern bool explore_armed;
void __explore_point(enum explore_site site);

static __always_inline void explore_point(enum explore_site site)
{
	if (unlikely(READ_ONCE(explore_armed)))
		__explore_point(site);
}

static __always_inline void explore_window(enum explore_site site)
{
	explore_point(site);
}

/* From the test runner: once per boot (with the ktest_seed= option, which
 * the runner reads: seeded, the explorer is on), and around each test (in
 * the test's task). */
void explore_init(bool seeded, unsigned long seed);
void explore_test_start(const struct task_struct *t);
void explore_test_end(void);
/* A test failed: print the seed, the decisions injected and the command
 * that replays the run. */
void explore_report_failure(const char *suite, const char *name);
/* An explore_only= list ("3,17,40-42"; "none" is empty) into v, sorted:
 * the count, or -1 if it is malformed or longer than max. */
int explore_parse_list(const char *s, unsigned long *v, int max);
/* Is idx in the sorted v[0..n)? */
bool explore_list_has(const unsigned long *v, int n, unsigned long idx);
#else
static __always_inline void explore_point(enum explore_site site)
{
}
static __always_inline void explore_window(enum explore_site site)
{
}
static inline void explore_init(bool seeded, unsigned long seed)
{
}
static inline void explore_test_start(const struct task_struct *t)
{
}
static inline void explore_test_end(void)
{
}
static inline void explore_report_failure(const char *suite, const char *name)
{
}
#endif

/* Planted bugs for measuring the explorer (EXPLORE_BUGS=1): a test turns
 * one on for its own run. Without the switch they are constants, and the
 * code they guard folds away. */
#ifdef CONFIG_EXPLORE_BUGS
extern bool explore_bug_pi_chain;  /* rtmutex.c: the walk stops early */
#else
static const bool explore_bug_pi_chain = false;
#endif

#endif
