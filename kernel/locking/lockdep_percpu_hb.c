/*
 * Happens-before for the per-CPU checker (docs/lockdep.md): which accesses
 * to a per-CPU copy can really run at the same time. Two accesses can, and
 * must then share a protection, unless an ordering the kernel itself
 * creates lies between them: creating and waking a task, a wake-up, a
 * completion, kthread_join(), a cross-CPU call that is waited for, a CPU's
 * bring-up.
 *
 * Vector clocks, as in the race detectors that descend from Lamport's
 * "Time, clocks, and the ordering of events" (1978) and FastTrack (2009):
 * each context (a task, or a CPU's hardirq context) that reaches per-CPU
 * data gets a slot, and its clock is its own entry. An access is stamped
 * (slot, clock); a later access by context X is ordered after it when
 * X's clock has seen that slot's clock value: X.c[slot] >= clock. A
 * release publishes the releaser's whole clock into the sync object (or
 * straight into the task it wakes) and then ticks its own entry; an
 * acquire takes the entry-wise maximum.
 *
 * Slots are few (HB_SLOTS) and go back to the pool when a task exits.
 * Each slot's clock only grows (slot_clock), and a context may take over
 * a freed slot only if it has already seen everything the slot's earlier
 * owners did (its entry for the slot is at the slot's clock): then its own
 * values stand for its own history and theirs, and whoever learns them
 * rightly learns both. Everything is forgotten at lockdep_reset().
 */
#ifdef CONFIG_LOCKDEP

#include "locking/lockdep.h"
#include "locking/lockdep_internal.h"
#include "locking/lockdep_fast.h"
#include "locking/lockdep_percpu.h"
#include "string.h"
#include "asm/spinlock.h"

#define HB_SYNC_OBJS 512         /* sync objects remembered at once */
#define HB_SYNC_PROBE 8

/* A sync object's clock: what was released into it. Under hb_lock. */
struct hb_sync {
	const void *obj;         /* 0: free */
	unsigned int gen;
	struct hb_clock vc;
};

/* hb_lock, below the graph lock, guards every clock, the slot pool and the
 * sync table; taken with interrupts off (contexts include hardirqs). */
static arch_spinlock_t hb_lock;
static unsigned int hb_gen = 1;
static uint32_t slot_clock[HB_SLOTS];   /* the last value handed out */
static bool slot_used[HB_SLOTS];
static struct hb_sync sync_objs[HB_SYNC_OBJS];
/* Each CPU's hardirq context; reached by CPU number, under hb_lock. */
static struct hb_task irq_ctx[NR_CPUS];
/* Each CPU's RT=0 softirq context (lockdep_softirq_ctx()). */
static struct hb_task softirq_ctx[NR_CPUS];

/* The running context's clock: its task's, or this CPU's hardirq or
 * RT=0 softirq one. */
static struct hb_task *hb_context(void)
{
	if (in_hardirq())
		return &irq_ctx[raw_smp_processor_id()];
	if (lockdep_softirq_ctx())
		return &softirq_ctx[raw_smp_processor_id()];
	return &current->lockdep.hb;
}

static unsigned long hb_lock_irqsave(void)
{
	unsigned long flags;

	raw_local_irq_save(flags);
	arch_spin_lock(&hb_lock);
	return flags;
}

/* The running context's clock may have ticked or restarted: a task
 * tells its shadow key (lockdep_percpu.h), a hardirq context has none. */
static void hb_unlock_irqrestore(unsigned long flags)
{
	arch_spin_unlock(&hb_lock);
	if (!in_hardirq() && !lockdep_softirq_ctx() && current)
		lockdep_percpu_key_refresh(current);
	raw_local_irq_restore(flags);
}

/* A clock from before the last reset is empty. */
static void hb_fresh(struct hb_task *h)
{
	if (h->gen == hb_gen)
		return;
	memset(&h->vc, 0, sizeof(h->vc));
	h->slot = 0;
	h->gen = hb_gen;
}

static void hb_join_clock(struct hb_clock *dst, const struct hb_clock *src)
{
	for (int i = 0; i < HB_SLOTS; i++)
		if (src->c[i] > dst->c[i])
			dst->c[i] = src->c[i];
}

/* The running context's clock: its task's, or this CPU's hardirq one. */
static struct hb_task *hb_current(void)
{
	struct hb_task *h = hb_context();

	hb_fresh(h);
	return h;
}

/* The context ticks past everything it has published. */
static void hb_tick(struct hb_task *h)
{
	int s = h->slot - 1;

	if (s >= 0)
		h->vc.c[s] = ++slot_clock[s];
}

static bool hb_take_slot(struct hb_task *h)
{
	for (int s = 0; s < HB_SLOTS; s++) {
		if (slot_used[s] || h->vc.c[s] < slot_clock[s])
			continue;
		slot_used[s] = true;
		h->slot = s + 1;
		hb_tick(h);
		return true;
	}
	return false;
}

/* The running context's clock, read without the lock: only hb_lock
 * holders write it, and an entry only grows. */
static const struct hb_task *hb_peek(void)
{
	return hb_context();
}

bool lockdep_hb_stamp(struct hb_stamp *st)
{
	const struct hb_task *p = hb_peek();
	unsigned long flags;
	struct hb_task *h;
	bool ok = true;

	if (p->gen == hb_gen && p->slot) {
		/* Its own entry changes only when it ticks itself. */
		st->slot = p->slot - 1;
		st->clock = p->vc.c[st->slot];
		return true;
	}
	flags = hb_lock_irqsave();
	h = hb_current();
	if (!h->slot)
		ok = hb_take_slot(h);
	if (ok) {
		st->slot = h->slot - 1;
		st->clock = h->vc.c[h->slot - 1];
	}
	hb_unlock_irqrestore(flags);
	if (!ok)
		lockdep_overflow("HB_SLOTS");
	return ok;
}

bool lockdep_hb_peek(const struct task_struct *t, struct hb_stamp *st)
{
	const struct hb_task *h = &t->lockdep.hb;

	if (h->gen != hb_gen || !h->slot)
		return false;
	st->slot = h->slot - 1;
	st->clock = h->vc.c[st->slot];
	return true;
}

const struct hb_clock *lockdep_hb_clock(void)
{
	const struct hb_task *h = hb_peek();

	return h->gen == hb_gen ? &h->vc : 0;
}

void lockdep_hb_snapshot(struct hb_clock *dst)
{
	const struct hb_clock *now = lockdep_hb_clock();

	if (now)
		*dst = *now; /* entry by entry: each only grows meanwhile */
	else
		memset(dst, 0, sizeof(*dst));
}

bool lockdep_hb_ordered(const struct hb_clock *seen,
			const struct hb_stamp *before)
{
	/* Read without the lock: an entry only grows, and a stale value
	 * can only make an ordered pair look concurrent. */
	return seen && READ_ONCE(seen->c[before->slot]) >= before->clock;
}

static struct hb_sync *sync_find(const void *obj, bool create)
{
	unsigned int start = ((uintptr_t)obj >> 4) % HB_SYNC_OBJS;
	struct hb_sync *free = 0;

	for (int i = 0; i < HB_SYNC_PROBE; i++) {
		struct hb_sync *y = &sync_objs[(start + i) % HB_SYNC_OBJS];

		if (y->obj == obj && y->gen == hb_gen)
			return y;
		if (!free && (!y->obj || y->gen != hb_gen))
			free = y;
	}
	if (!create)
		return 0;
	/* Full window: forget the oldest guess, the first. An ordering
	 * lost this way can only make a pair look concurrent. */
	if (!free)
		free = &sync_objs[start];
	free->obj = obj;
	free->gen = hb_gen;
	memset(&free->vc, 0, sizeof(free->vc));
	return free;
}

void lockdep_hb_release(const void *obj)
{
	unsigned long flags;
	struct hb_task *h;

	if (!lockdep_on || in_nmi())
		return;
	flags = hb_lock_irqsave();
	h = hb_current();
	hb_join_clock(&sync_find(obj, true)->vc, &h->vc);
	hb_tick(h);
	hb_unlock_irqrestore(flags);
}

void lockdep_hb_acquire(const void *obj)
{
	unsigned long flags;
	struct hb_sync *y;

	if (!lockdep_on || in_nmi())
		return;
	flags = hb_lock_irqsave();
	y = sync_find(obj, false);
	if (y)
		hb_join_clock(&hb_current()->vc, &y->vc);
	hb_unlock_irqrestore(flags);
}

/* The waker, from inside the wake-up of p (p is not running). */
void lockdep_hb_wake(struct task_struct *p)
{
	unsigned long flags;
	struct hb_task *h;

	if (!lockdep_on || in_nmi() || p == current)
		return;
	flags = hb_lock_irqsave();
	h = hb_current();
	hb_fresh(&p->lockdep.hb);
	hb_join_clock(&p->lockdep.hb.vc, &h->vc);
	hb_tick(h);
	hb_unlock_irqrestore(flags);
}

/* The joiner, once dead has exited: dead's clock stays in its task. */
void lockdep_hb_join(struct task_struct *dead)
{
	unsigned long flags;

	if (!lockdep_on)
		return;
	flags = hb_lock_irqsave();
	if (dead->lockdep.hb.gen == hb_gen)
		hb_join_clock(&hb_current()->vc, &dead->lockdep.hb.vc);
	hb_unlock_irqrestore(flags);
}

/* The exiting task gives its slot back; its clock stays for the joiner. */
void lockdep_hb_exit(struct task_struct *t)
{
	unsigned long flags = hb_lock_irqsave();

	if (t->lockdep.hb.gen == hb_gen && t->lockdep.hb.slot)
		slot_used[t->lockdep.hb.slot - 1] = false;
	hb_unlock_irqrestore(flags);
}

/* lockdep_reset(): every clock, slot and sync object is forgotten (the
 * tasks' and the hardirq contexts' lazily, by generation). */
void lockdep_hb_reset(void)
{
	unsigned long flags = hb_lock_irqsave();

	hb_gen++;
	memset(slot_used, 0, sizeof(slot_used));
	memset(slot_clock, 0, sizeof(slot_clock)); /* no stamp survives */
	hb_unlock_irqrestore(flags);
}

#endif /* CONFIG_LOCKDEP */
