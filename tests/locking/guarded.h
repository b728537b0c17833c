/*
 * The data a lock test protects, and the steps of a critical section
 * over it that notice when mutual exclusion fails: somebody else inside,
 * entries and exits out of step, or a load-then-store update that lost
 * another's. The tests of locks_exclusion.c, locks_local.c and
 * locks_rt_sleeping.c run their sections through these.
 */
#ifndef GUARDED_H
#define GUARDED_H

#include "asm/processor.h"
#include "delay.h"
#include "ktest.h"

struct guarded {
	volatile long counter;    /* load, a window, store */
	volatile long a, b;       /* entries and exits: equal outside */
	volatile int inside;      /* 1 while someone is inside */
	volatile long violations; /* times the above were found broken */
};

static inline void guarded_violation(struct guarded *g)
{
	__atomic_fetch_add(&g->violations, 1, __ATOMIC_RELAXED);
}

/* Entering: nobody else inside, and as many exits as entries. */
static inline void guarded_enter(struct guarded *g)
{
	if (g->inside)
		guarded_violation(g);
	g->inside = 1;
	if (g->a != g->b)
		guarded_violation(g);
	g->a = g->a + 1;
}

/* counter + 1, with relax pauses and delay_us between the load and the
 * store: another update in that window is lost. */
static inline void guarded_update(struct guarded *g, int relax,
				  unsigned int delay_us)
{
	long v = g->counter;

	for (int j = 0; j < relax; j++)
		cpu_relax();
	if (delay_us)
		udelay(delay_us);
	g->counter = v + 1;
}

/* Leaving: still the one inside. */
static inline void guarded_leave(struct guarded *g)
{
	g->b = g->b + 1;
	if (!g->inside)
		guarded_violation(g);
	g->inside = 0;
}

static inline void guarded_reset(struct guarded *g)
{
	g->counter = g->a = g->b = g->violations = 0;
	g->inside = 0;
}

/* After n sections: each counted once, and none found anything broken. */
#define KEXPECT_GUARDED(g, n)                                                 \
	do {                                                                  \
		KEXPECT_EQ((g)->counter, (n));                                \
		KEXPECT_EQ((g)->a, (n));                                      \
		KEXPECT_EQ((g)->b, (n));                                      \
		KEXPECT_EQ((g)->violations, 0);                               \
		KEXPECT_EQ((g)->inside, 0);                                   \
	} while (0)

#endif
