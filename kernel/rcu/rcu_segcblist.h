/*
 * Segmented callback lists, as Linux's kernel/rcu/rcu_segcblist.h: one
 * CPU's call_rcu() callbacks in one singly linked list, cut by four tail
 * pointers into segments that wait for different grace periods
 * (docs/rcu.md, section 4). A list belongs to its CPU and is used there
 * with interrupts off, or, once the CPU is dead, by the CPU that took it
 * down (rcutree_dead_cpu()).
 *
 * And struct rcu_cblist, a plain counted list: the callbacks taken out
 * of a segmented list to be invoked, or to be merged into another.
 */
#ifndef RCU_SEGCBLIST_H
#define RCU_SEGCBLIST_H

#include <stdbool.h>
#include "rcu/rcu_types.h"
#include "rwonce.h"

/* The segments, oldest first. tails[i] points at the next field of the
 * last callback of segment i (at head when segments 0..i are empty). */
#define RCU_DONE_TAIL 0        /* grace period over: ready to invoke */
#define RCU_WAIT_TAIL 1        /* waiting for gp_seq[RCU_WAIT_TAIL] */
#define RCU_NEXT_READY_TAIL 2  /* waiting for gp_seq[RCU_NEXT_READY_TAIL] */
#define RCU_NEXT_TAIL 3        /* new: no grace period assigned yet */
#define RCU_CBLIST_NSEGS 4

struct rcu_segcblist {
	struct rcu_head *head;
	struct rcu_head **tails[RCU_CBLIST_NSEGS];
	/* The grace period (an rcu_seq_snap() value) whose end makes the
	 * WAIT and NEXT_READY segments ready. */
	unsigned long gp_seq[RCU_CBLIST_NSEGS];
	/* Callbacks queued and not yet invoked: those in the list, and
	 * those taken out for invocation (rcu_do_batch() subtracts them once
	 * they ran), so that memory is counted until it is freed. Written
	 * by the owning CPU with interrupts off, or by the CPU that merges a
	 * dead CPU's list under the hotplug lock; read by rcu_barrier() from
	 * any CPU, under that lock too. On x86 a read that sees a callback's
	 * count gone sees what the callback wrote (stores are seen in order). */
	long len;
	long seglen[RCU_CBLIST_NSEGS];
};

struct rcu_cblist {
	struct rcu_head *head;
	struct rcu_head **tail;
	long len;
};

void rcu_cblist_init(struct rcu_cblist *rclp);
/* The first callback of rclp, taken off it; NULL when empty. */
struct rcu_head *rcu_cblist_dequeue(struct rcu_cblist *rclp);

void rcu_segcblist_init(struct rcu_segcblist *rsclp);
void rcu_segcblist_enqueue(struct rcu_segcblist *rsclp, struct rcu_head *rhp);

static inline long rcu_segcblist_n_cbs(const struct rcu_segcblist *rsclp)
{
	return READ_ONCE(rsclp->len);
}

/* Whether segment seg, or every segment after seg, holds no callback. */
static inline bool rcu_segcblist_segempty(const struct rcu_segcblist *rsclp,
					  int seg)
{
	return seg == RCU_DONE_TAIL ? &rsclp->head == rsclp->tails[seg]
				    : rsclp->tails[seg - 1] == rsclp->tails[seg];
}

static inline bool rcu_segcblist_restempty(const struct rcu_segcblist *rsclp,
					   int seg)
{
	return !*rsclp->tails[seg];
}

/* Callbacks whose grace period is over: ready to invoke. */
static inline bool rcu_segcblist_ready_cbs(const struct rcu_segcblist *rsclp)
{
	return !rcu_segcblist_segempty(rsclp, RCU_DONE_TAIL);
}

/* Callbacks still waiting for a grace period (or for one to be assigned). */
static inline bool rcu_segcblist_pend_cbs(const struct rcu_segcblist *rsclp)
{
	return !rcu_segcblist_restempty(rsclp, RCU_DONE_TAIL);
}

/* New callbacks no grace period has been asked for yet. */
static inline bool rcu_segcblist_new_cbs(const struct rcu_segcblist *rsclp)
{
	return !rcu_segcblist_segempty(rsclp, RCU_NEXT_TAIL);
}

/* seq is the grace-period counter now (rcu_state.gp_seq): every callback
 * whose grace period has ended by seq is ready to invoke, and the list
 * keeps its invariants (docs/rcu.md, section 4). */
void rcu_segcblist_advance(struct rcu_segcblist *rsclp, unsigned long seq);
/* Give the callbacks that arrived since the last call the grace period
 * seq, the first whose end covers them: merged into the oldest waiting
 * segment already due for seq, or into a free one. True when some
 * callbacks now wait for seq (the caller asks for that grace period). */
bool rcu_segcblist_accelerate(struct rcu_segcblist *rsclp, unsigned long seq);

/* The DONE segment into rclp (len stays counted, see above); and the
 * callbacks of rclp back in front of the DONE segment. */
void rcu_segcblist_extract_done_cbs(struct rcu_segcblist *rsclp,
				    struct rcu_cblist *rclp);
void rcu_segcblist_insert_done_cbs(struct rcu_segcblist *rsclp,
				   struct rcu_cblist *rclp);
/* n callbacks taken out earlier were invoked (a negative n). */
void rcu_segcblist_add_len(struct rcu_segcblist *rsclp, long n);
/* Every callback of src into dst (a dead CPU's list into a live one's):
 * the ready ones stay ready, the others wait anew in dst's NEXT segment.
 * src ends empty. */
void rcu_segcblist_merge(struct rcu_segcblist *dst, struct rcu_segcblist *src);

#endif
