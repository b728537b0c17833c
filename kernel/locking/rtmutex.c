/*
 * rt_mutex: priority inheritance (PI). The design follows Linux's
 * rtmutex (Documentation/locking/rt-mutex-design.rst) with one
 * simplification for readability: all waiter lists, owners' lists of
 * waited-on locks and blocked-on links are under one global chain lock,
 * instead of a per-lock wait_lock plus per-task pi_locks taken hand over
 * hand along the chain. Only contended operations take it; the
 * uncontended lock and unlock are one compare-and-swap each. A contended
 * one spins first while the owner runs on another CPU (rtmutex_spin.c).
 *
 * PI in one paragraph: a task's effective priority is the highest of its
 * own and of the top waiter of every rt_mutex it owns (its pi_locks).
 * When a task blocks, its priority is donated to the owner; if that owner
 * is itself blocked on another rt_mutex, the donation continues to that
 * lock's owner, and so on (the chain). A chain that comes back to the
 * task that is blocking is a deadlock: reported, not slept in.
 */
#include "locking/rtmutex.h"
#include "atomic.h"
#include "errno.h"
#include "locking/lockdep_fast.h"
#include "asm/barrier.h"
#include "asm/spinlock.h"
#include "debug/explore.h"
#include "rcu/rcupdate.h"
#include "panic.h"
#include "printk.h"
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "trace/trace.h"

#define MAX_CHAIN 1024

/* One task waiting for one lock; lives on the waiter's stack. */
struct rt_mutex_waiter {
	struct task_struct *task;
	struct rt_mutex *lock;
	int prio;                    /* the task's, when (re)queued */
	struct list_head list;       /* on lock->waiters */
};

static arch_spinlock_t chain_lock = ARCH_SPIN_LOCK_UNLOCKED;
bool rt_mutex_pi_enabled = true;

void __rt_mutex_init(struct rt_mutex *lock, const char *name,
		     struct lock_class_key *key, int wait_type)
{
	if (!lockdep_init_ok(&lock->dep_map))
		return;
	*lock = (struct rt_mutex){.name = name};
	lockdep_init_map(&lock->dep_map, name, key, wait_type);
}

/* First contention: set up the lists (see __RT_MUTEX_INITIALIZER). */
static void lazy_init(struct rt_mutex *lock)
{
	if (!lock->waiters.next) {
		INIT_LIST_HEAD(&lock->waiters);
		INIT_LIST_HEAD(&lock->pi_node);
	}
}

static struct rt_mutex_waiter *top_waiter(struct rt_mutex *lock)
{
	return list_empty(&lock->waiters)
		       ? 0
		       : list_first_entry(&lock->waiters,
					  struct rt_mutex_waiter, list);
}

/* Sorted by priority, behind the equals: FIFO among the same priority. A
 * no_pi lock is FIFO outright. */
static void enqueue_waiter(struct rt_mutex *lock, struct rt_mutex_waiter *w)
{
	struct rt_mutex_waiter *pos;

	list_for_each_entry(pos, &lock->waiters, list)
		if (!lock->no_pi && pos->prio > w->prio)
			break;
	list_add_tail(&w->list, &pos->list);
}

int rt_mutex_effective_prio(struct task_struct *p)
{
	/* LAB4 BEGIN */
	struct rt_mutex *lock;
	int prio = p->normal_prio;

	if (!rt_mutex_pi_enabled)
		return prio;
	list_for_each_entry(lock, &p->pi_locks, pi_node) {
		struct rt_mutex_waiter *top = top_waiter(lock);

		if (!lock->no_pi && top && top->prio < prio)
			prio = top->prio;
	}
	return prio;
	/* LAB4 STUB: return p->normal_prio; */
	/* LAB4 END */
}

/*
 * The first thing every slow path does: set HAS_WAITERS, atomically. From
 * then on the fast paths' compare-and-swap (NULL -> task, task -> NULL)
 * fails for this lock, so every change of the owner word happens here,
 * under the chain lock, until update_pi_link() clears the bit again.
 */
static void mark_waiters(struct rt_mutex *lock)
{
	uintptr_t owner = READ_ONCE(lock->owner);

	/* As Linux's mark_rt_mutex_waiters(): a retry loop, as the owner
	 * may change under us (a fast-path lock or unlock). try_cmpxchg()
	 * is fully ordered: what we do next comes after the bit. */
	while (!try_cmpxchg(&lock->owner, &owner,
			    owner | RT_MUTEX_HAS_WAITERS))
		;
}

/* Keep lock on its owner's pi_locks exactly while it has waiters. */
static void update_pi_link(struct rt_mutex *lock)
{
	struct task_struct *owner = rt_mutex_owner(lock);
	bool waited = !list_empty(&lock->waiters);

	if (!list_empty(&lock->pi_node))
		list_del_init(&lock->pi_node);
	if (owner && waited)
		list_add_tail(&lock->pi_node, &owner->pi_locks);
	/* Release: a fast path that takes the lock once the bit is clear
	 * finds the waiter lists as we left them. */
	smp_store_release(&lock->owner, (uintptr_t)owner |
				       (waited ? RT_MUTEX_HAS_WAITERS : 0));
}

/*
 * A released lock with waiters belongs to whichever of them runs first and
 * is top. If the order changed after the release (a woken waiter lost
 * priority), the new top must be woken too, or nobody takes the lock.
 */
static void wake_top_of_free_lock(struct rt_mutex *lock)
{
	struct rt_mutex_waiter *top = top_waiter(lock);

	if (top)
		wake_up_process(top->task);
}

/* Set p's effective priority (requeueing it where it is queued). */
static void set_prio(struct task_struct *p, int prio)
{
	arch_spin_lock(&p->pi_lock);
	set_task_prio(p, prio);
	arch_spin_unlock(&p->pi_lock);
}

/*
 * Re-evaluate p's priority and carry any change along the chain: p's new
 * priority re-sorts it among its lock's waiters, which may change that
 * lock owner's priority, and so on. Chain lock held.
 */
static void propagate(struct task_struct *p)
{
	/* LAB4 BEGIN */
	for (int depth = 0; p && depth < MAX_CHAIN; depth++) {
		int prio = rt_mutex_effective_prio(p);
		struct rt_mutex_waiter *w = p->pi_blocked_on;

		if (prio == p->prio && depth > 0)
			break;
		set_prio(p, prio);
		/* explore_bug_pi_chain: a planted bug (EXPLORE_BUGS=1) that
		 * boosts only the first owner; else a constant false. */
		if (!w || explore_bug_pi_chain)
			break;
		list_del_init(&w->list);
		w->prio = prio;
		enqueue_waiter(w->lock, w);
		p = rt_mutex_owner(w->lock);
		if (!p)
			wake_top_of_free_lock(w->lock);
	}
	/* LAB4 STUB: if (p) set_prio(p, rt_mutex_effective_prio(p)); */
	/* LAB4 END */
}

/* Would current waiting on lock close a cycle? Walks the owners. */
static bool chain_has_cycle(struct rt_mutex *lock)
{
	struct task_struct *t = rt_mutex_owner(lock);

	for (int depth = 0; t && depth < MAX_CHAIN; depth++) {
		if (t == current)
			return true;
		t = t->pi_blocked_on ? rt_mutex_owner(t->pi_blocked_on->lock) : 0;
	}
	return false;
}

static void report_deadlock(struct rt_mutex *lock)
{
	struct task_struct *t = rt_mutex_owner(lock);
	unsigned long flags = console_lock();

	printk("\n============================================\n");
	printk("WARNING: rt_mutex deadlock detected\n");
	printk("%s/%d would wait for %s (%p), owned by %s/%d; the chain:\n",
	       current->comm, current->pid, lock->name, lock, t->comm, t->pid);
	for (int depth = 0; t && depth < MAX_CHAIN && t != current; depth++) {
		struct rt_mutex *next = t->pi_blocked_on->lock;

		t = rt_mutex_owner(next);
		printk("  which waits for %s (%p), owned by %s/%d\n",
		       next->name, next, t->comm, t->pid);
	}
	printk("  and that is %s/%d itself: deadlock; the lock is not "
	       "taken\n", current->comm, current->pid);
	dump_stack();
	console_unlock(flags);
}

/*
 * Take a free lock: the top waiter may, and so may a task of higher
 * priority than the top waiter (it "steals" the lock: a task that has
 * been woken but not yet run must not hold up a more urgent one).
 * Chain lock held; w is current's waiter if it is queued.
 */
static bool try_to_take(struct rt_mutex *lock, struct rt_mutex_waiter *w)
{
	struct rt_mutex_waiter *top = top_waiter(lock);

	if (rt_mutex_owner(lock))
		return false;
	if (top && top != w && (lock->no_pi || current->prio >= top->prio))
		return false;
	if (w)
		list_del_init(&w->list);
	/* With HAS_WAITERS set no fast path changes the word: only the
	 * release in update_pi_link() below publishes it. */
	WRITE_ONCE(lock->owner, (uintptr_t)current);
	update_pi_link(lock);
	return true;
}

static int rt_mutex_slowlock(struct rt_mutex *lock)
{
	struct rt_mutex_waiter w = {.task = current, .lock = lock};
	unsigned long flags;

	if (rt_mutex_optimistic_spin(lock))
		return 0;
	local_irq_save(flags);
	arch_spin_lock(&chain_lock);
	lazy_init(lock);
	mark_waiters(lock);
	if (try_to_take(lock, 0))
		goto out;
	if (chain_has_cycle(lock)) {
		update_pi_link(lock); /* the bit back as it was */
		arch_spin_unlock(&chain_lock);
		local_irq_restore(flags);
		report_deadlock(lock);
		return -EDEADLK;
	}
	w.prio = current->prio;
	INIT_LIST_HEAD(&w.list);
	enqueue_waiter(lock, &w);
	current->pi_blocked_on = &w;
	update_pi_link(lock);
	propagate(rt_mutex_owner(lock));
	for (;;) {
		struct task_struct *owner;
		bool changed;

		set_current_state(TASK_UNINTERRUPTIBLE);
		if (try_to_take(lock, &w))
			break;
		if (!rt_mutex_owner(lock))
			wake_top_of_free_lock(lock); /* not us: hand over */
		/* The top waiter spins while the (boosted) owner runs; the
		 * owner stays readable once the chain lock is dropped. */
		owner = top_waiter(lock) == &w ? rt_mutex_owner(lock) : 0;
		rcu_read_lock();
		arch_spin_unlock(&chain_lock);
		local_irq_restore(flags);
		changed = owner && rt_mutex_spin_on_owner(lock, owner);
		rcu_read_unlock();
		if (!changed)
			schedule();
		local_irq_save(flags);
		arch_spin_lock(&chain_lock);
	}
	set_current_state(TASK_RUNNING);
	current->pi_blocked_on = 0;
	/* The remaining waiters now donate to us. */
	propagate(current);
out:
	arch_spin_unlock(&chain_lock);
	local_irq_restore(flags);
	return 0;
}

/* No might_sleep() here: the validator's wait-context check covers a
 * sleeping lock taken where it may not sleep (lock_acquire()). */
int __rt_mutex_lock(struct rt_mutex *lock)
{
	uintptr_t free = 0;
	int ret;

	/* The fast path: a free lock with no waiters is ours by one
	 * compare-and-swap (fully ordered: an acquire and more). */
	if (try_cmpxchg(&lock->owner, &free, (uintptr_t)current))
		return 0;
	trace_event(TRACE_LOCK_CONTENDED, (uintptr_t)lock, 0, lock->name);
	ret = rt_mutex_slowlock(lock);
	if (!ret)
		trace_event(TRACE_LOCK_ACQUIRED, (uintptr_t)lock, 0, lock->name);
	return ret;
}

bool __rt_mutex_trylock(struct rt_mutex *lock)
{
	uintptr_t free = 0;
	unsigned long flags;
	bool taken;

	if (try_cmpxchg(&lock->owner, &free, (uintptr_t)current))
		return true;
	if (rt_mutex_owner(lock))
		return false;
	/* Free but with waiters: the slow path decides. */
	local_irq_save(flags);
	arch_spin_lock(&chain_lock);
	lazy_init(lock);
	mark_waiters(lock);
	taken = try_to_take(lock, 0);
	if (taken)
		propagate(current);
	else
		update_pi_link(lock); /* the bit back as it was */
	arch_spin_unlock(&chain_lock);
	local_irq_restore(flags);
	return taken;
}

/* Release with waiters: wake the top one (it takes the lock when it runs,
 * unless a higher-priority task takes it first) and give back what it
 * donated. */
static void rt_mutex_slowunlock(struct rt_mutex *lock)
{
	unsigned long flags;

	trace_event(TRACE_LOCK_RELEASED, (uintptr_t)lock, 0, lock->name);
	local_irq_save(flags);
	preempt_disable(); /* the deboost may ask for a switch: after unlock */
	arch_spin_lock(&chain_lock);
	lazy_init(lock);
	/* Free, but with the bit kept until update_pi_link() decides: a
	 * bare 0 would let a fast-path lock slip in under our feet. */
	smp_store_release(&lock->owner, RT_MUTEX_HAS_WAITERS);
	update_pi_link(lock);
	wake_top_of_free_lock(lock);
	propagate(current);
	arch_spin_unlock(&chain_lock);
	local_irq_restore(flags);
	preempt_enable();
}

void __rt_mutex_unlock(struct rt_mutex *lock)
{
	uintptr_t me = (uintptr_t)current;

	if (WARN_ON(rt_mutex_owner(lock) != current))
		return; /* not ours to release */
	/* The fast path: ours and no waiters, so free it in one step
	 * (fully ordered: a release and more). */
	if (try_cmpxchg(&lock->owner, &me, 0))
		return;
	rt_mutex_slowunlock(lock);
}

/* Inline in both callers: with LOCKDEP=1 the validator's inline fast
 * path makes it large enough that gcc would call it, one call more. */
static __always_inline int rt_mutex_lock_at(struct rt_mutex *lock,
					    unsigned int subclass,
					    unsigned long ip)
{
	int ret;

	explore_point(EXPLORE_RT_MUTEX_LOCK);
	lock_acquire(&lock->dep_map, subclass, 0, ip);
	ret = __rt_mutex_lock(lock);
	if (ret)
		lock_release(&lock->dep_map, ip); /* not taken */
	return ret;
}

int rt_mutex_lock_nested(struct rt_mutex *lock, unsigned int subclass)
{
	return rt_mutex_lock_at(lock, subclass, _RET_IP_);
}

int rt_mutex_lock(struct rt_mutex *lock)
{
	return rt_mutex_lock_at(lock, 0, _RET_IP_);
}

bool rt_mutex_trylock(struct rt_mutex *lock)
{
	lockdep_trylock(&lock->dep_map);
	if (!__rt_mutex_trylock(lock))
		return false;
	lock_acquire(&lock->dep_map, 0, LOCK_TRYLOCK, _RET_IP_);
	return true;
}

void rt_mutex_unlock(struct rt_mutex *lock)
{
	if (lock_release(&lock->dep_map, _RET_IP_))
		__rt_mutex_unlock(lock);
	explore_point(EXPLORE_RT_MUTEX_UNLOCK);
}

/* The caller keeps everyone else off the free lock meanwhile (RCU's
 * lock): no waiter can be queued, so the plain store is the fast path's
 * cmpxchg without its test. Release: the owner's later unlock sees the
 * lock as ours made it. */
void rt_mutex_init_proxy_locked(struct rt_mutex *lock, struct task_struct *owner)
{
	WARN_ON(rt_mutex_is_locked(lock));
	smp_store_release(&lock->owner, (uintptr_t)owner);
}

void rt_mutex_adjust_pi(struct task_struct *p)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_spin_lock(&chain_lock);
	propagate(p);
	arch_spin_unlock(&chain_lock);
	local_irq_restore(flags);
}
