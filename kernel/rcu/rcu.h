/*
 * Grace-period sequence numbers, as Linux's kernel/rcu/rcu.h: a counter
 * whose two low bits are a state (0: idle, 1: a grace period in
 * progress) and whose upper bits count grace periods. rcu_seq_start()
 * adds one, rcu_seq_end() rounds up to the next idle value, so each
 * grace period moves the counter by 4 and a value names the end of one.
 */
#ifndef RCU_H
#define RCU_H

#include <stdbool.h>
#include "rwonce.h"
#include "asm/barrier.h"

#define RCU_SEQ_CTR_SHIFT 2
#define RCU_SEQ_STATE_MASK ((1ul << RCU_SEQ_CTR_SHIFT) - 1)

/* a < b and a >= b for counters that wrap (Linux's ULONG_CMP_*): the
 * difference decides, not the values. */
#define ULONG_CMP_GE(a, b) (__LONG_MAX__ >= (unsigned long)((a) - (b)))
#define ULONG_CMP_LT(a, b) (__LONG_MAX__ < (unsigned long)((a) - (b)))

static inline unsigned long rcu_seq_state(unsigned long s)
{
	return s & RCU_SEQ_STATE_MASK;
}

/* Start a grace period: the full barrier keeps the updates before it from
 * being seen after the start by whoever reads the new value. */
static inline void rcu_seq_start(unsigned long *sp)
{
	WRITE_ONCE(*sp, *sp + 1);
	smp_mb();
}

/* End one: the barrier first, so that the readers' sections it waited
 * for are complete before anyone sees it over. */
static inline void rcu_seq_end(unsigned long *sp)
{
	smp_mb();
	WRITE_ONCE(*sp, (*sp | RCU_SEQ_STATE_MASK) + 1);
}

/* The value *sp will have once a full grace period has passed from now:
 * the end of the next one to start (the one in progress, if any, may
 * have started before the caller's updates). */
static inline unsigned long rcu_seq_snap(unsigned long *sp)
{
	smp_mb();
	return (READ_ONCE(*sp) + 2 * RCU_SEQ_STATE_MASK + 1) &
	       ~RCU_SEQ_STATE_MASK;
}

/* Whether the grace period named by s (from rcu_seq_snap()) is over. */
static inline bool rcu_seq_done(unsigned long *sp, unsigned long s)
{
	return ULONG_CMP_GE(READ_ONCE(*sp), s);
}

#endif
