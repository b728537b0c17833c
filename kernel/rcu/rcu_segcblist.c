/*
 * Segmented callback lists (rcu_segcblist.h), after Linux's
 * kernel/rcu/rcu_segcblist.c. The list is one chain; the segments are
 * only tail pointers into it, so moving callbacks from one segment to
 * the next is moving a pointer, whatever their number. Grace-period
 * numbers are compared with ULONG_CMP_LT(), which survives the counter's
 * wrap.
 */
#include "rcu/rcu_segcblist.h"
#include "rcu/rcu.h"

void rcu_cblist_init(struct rcu_cblist *rclp)
{
	rclp->head = 0;
	rclp->tail = &rclp->head;
	rclp->len = 0;
}

struct rcu_head *rcu_cblist_dequeue(struct rcu_cblist *rclp)
{
	struct rcu_head *rhp = rclp->head;

	if (!rhp)
		return 0;
	rclp->len--;
	rclp->head = rhp->next;
	if (!rclp->head)
		rclp->tail = &rclp->head;
	return rhp;
}

void rcu_segcblist_init(struct rcu_segcblist *rsclp)
{
	rsclp->head = 0;
	for (int i = 0; i < RCU_CBLIST_NSEGS; i++) {
		rsclp->tails[i] = &rsclp->head;
		rsclp->gp_seq[i] = 0;
		rsclp->seglen[i] = 0;
	}
	WRITE_ONCE(rsclp->len, 0);
}

void rcu_segcblist_enqueue(struct rcu_segcblist *rsclp, struct rcu_head *rhp)
{
	rhp->next = 0;
	*rsclp->tails[RCU_NEXT_TAIL] = rhp;
	rsclp->tails[RCU_NEXT_TAIL] = &rhp->next;
	rsclp->seglen[RCU_NEXT_TAIL]++;
	WRITE_ONCE(rsclp->len, rsclp->len + 1);
}

void rcu_segcblist_advance(struct rcu_segcblist *rsclp, unsigned long seq)
{
	/* LAB9 BEGIN */
	int i, j;

	if (!rcu_segcblist_pend_cbs(rsclp))
		return;
	/* Every waiting segment whose grace period is over joins DONE. */
	for (i = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++) {
		if (ULONG_CMP_LT(seq, rsclp->gp_seq[i]))
			break;
		rsclp->tails[RCU_DONE_TAIL] = rsclp->tails[i];
		rsclp->seglen[RCU_DONE_TAIL] += rsclp->seglen[i];
		rsclp->seglen[i] = 0;
	}
	if (i == RCU_WAIT_TAIL)
		return;
	/* The segments emptied that way end where DONE now ends. */
	for (j = RCU_WAIT_TAIL; j < i; j++)
		rsclp->tails[j] = rsclp->tails[RCU_DONE_TAIL];
	/* Slide the waiting segments left over down into the emptied ones,
	 * with their numbers, so that WAIT is the oldest again and the
	 * later segments are free for accelerate(). NEXT never moves. */
	for (j = RCU_WAIT_TAIL; i < RCU_NEXT_TAIL; i++, j++) {
		if (rsclp->tails[j] == rsclp->tails[RCU_NEXT_TAIL])
			break; /* nothing more waits */
		rsclp->tails[j] = rsclp->tails[i];
		rsclp->seglen[j] = rsclp->seglen[i];
		rsclp->seglen[i] = 0;
		rsclp->gp_seq[j] = rsclp->gp_seq[i];
	}
	/* LAB9 END */
}

bool rcu_segcblist_accelerate(struct rcu_segcblist *rsclp, unsigned long seq)
{
	int i, j;

	if (!rcu_segcblist_pend_cbs(rsclp))
		return false;
	/* The newest non-empty waiting segment due before seq: everything
	 * after it can wait for seq. */
	for (i = RCU_NEXT_READY_TAIL; i > RCU_DONE_TAIL; i--)
		if (!rcu_segcblist_segempty(rsclp, i) &&
		    ULONG_CMP_LT(rsclp->gp_seq[i], seq))
			break;
	/* Nothing after it, or no free segment left: nothing to do (the
	 * next advance() frees one). */
	if (rcu_segcblist_restempty(rsclp, i) || ++i >= RCU_NEXT_TAIL)
		return false;
	for (j = i + 1; j <= RCU_NEXT_TAIL; j++) {
		rsclp->seglen[i] += rsclp->seglen[j];
		rsclp->seglen[j] = 0;
	}
	/* Segments i..NEXT_READY become one, ending where NEXT ends, due
	 * at seq; NEXT is left empty. */
	for (; i < RCU_NEXT_TAIL; i++) {
		rsclp->tails[i] = rsclp->tails[RCU_NEXT_TAIL];
		rsclp->gp_seq[i] = seq;
	}
	return true;
}

void rcu_segcblist_extract_done_cbs(struct rcu_segcblist *rsclp,
				    struct rcu_cblist *rclp)
{
	if (!rcu_segcblist_ready_cbs(rsclp))
		return;
	rclp->len = rsclp->seglen[RCU_DONE_TAIL];
	rsclp->seglen[RCU_DONE_TAIL] = 0;
	*rclp->tail = rsclp->head;
	rsclp->head = *rsclp->tails[RCU_DONE_TAIL];
	*rsclp->tails[RCU_DONE_TAIL] = 0;
	rclp->tail = rsclp->tails[RCU_DONE_TAIL];
	/* Every tail that pointed at the end of DONE (DONE's own last)
	 * now points at head. */
	for (int i = RCU_CBLIST_NSEGS - 1; i >= RCU_DONE_TAIL; i--)
		if (rsclp->tails[i] == rsclp->tails[RCU_DONE_TAIL])
			rsclp->tails[i] = &rsclp->head;
}

void rcu_segcblist_insert_done_cbs(struct rcu_segcblist *rsclp,
				   struct rcu_cblist *rclp)
{
	if (!rclp->head)
		return;
	rsclp->seglen[RCU_DONE_TAIL] += rclp->len;
	*rclp->tail = rsclp->head;
	rsclp->head = rclp->head;
	/* The tails that pointed at head (empty segments in front) now
	 * point at the end of what was put back. */
	for (int i = RCU_DONE_TAIL; i < RCU_CBLIST_NSEGS; i++) {
		if (rsclp->tails[i] != &rsclp->head)
			break;
		rsclp->tails[i] = rclp->tail;
	}
	rcu_cblist_init(rclp);
}

void rcu_segcblist_add_len(struct rcu_segcblist *rsclp, long n)
{
	WRITE_ONCE(rsclp->len, rsclp->len + n);
}

/* The callbacks after DONE into rclp, and src's waiting segments empty. */
static void extract_pend_cbs(struct rcu_segcblist *rsclp,
			     struct rcu_cblist *rclp)
{
	if (!rcu_segcblist_pend_cbs(rsclp))
		return;
	for (int i = RCU_WAIT_TAIL; i < RCU_CBLIST_NSEGS; i++) {
		rclp->len += rsclp->seglen[i];
		rsclp->seglen[i] = 0;
	}
	*rclp->tail = *rsclp->tails[RCU_DONE_TAIL];
	rclp->tail = rsclp->tails[RCU_NEXT_TAIL];
	*rsclp->tails[RCU_DONE_TAIL] = 0;
	for (int i = RCU_DONE_TAIL + 1; i < RCU_CBLIST_NSEGS; i++)
		rsclp->tails[i] = rsclp->tails[RCU_DONE_TAIL];
}

/* rclp's callbacks at the end of NEXT: they wait for a grace period to be
 * assigned again. */
static void insert_pend_cbs(struct rcu_segcblist *rsclp,
			    struct rcu_cblist *rclp)
{
	if (!rclp->head)
		return;
	rsclp->seglen[RCU_NEXT_TAIL] += rclp->len;
	*rsclp->tails[RCU_NEXT_TAIL] = rclp->head;
	rsclp->tails[RCU_NEXT_TAIL] = rclp->tail;
	rcu_cblist_init(rclp);
}

void rcu_segcblist_merge(struct rcu_segcblist *dst, struct rcu_segcblist *src)
{
	struct rcu_cblist done, pend;
	long n = src->len;

	rcu_cblist_init(&done);
	rcu_cblist_init(&pend);
	rcu_segcblist_extract_done_cbs(src, &done);
	extract_pend_cbs(src, &pend);
	WRITE_ONCE(dst->len, dst->len + n);
	rcu_segcblist_insert_done_cbs(dst, &done);
	insert_pend_cbs(dst, &pend);
	rcu_segcblist_init(src);
}
