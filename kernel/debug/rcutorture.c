/*
 * rcutorture, small (rcutorture.h), after Linux's: one writer replaces
 * the element that rcu_torture_current points at, over and over; the
 * element it removed moves down a pipe one stage per grace period
 * (synchronize_rcu() then a step for every removed element, or call_rcu()
 * of a callback that takes a step and queues itself again) and is freed
 * at stage RCU_TORTURE_PIPE_LEN. Readers load the current element inside
 * rcu_read_lock(), sometimes dawdle, and note the stage it has reached:
 * stage 2 or more means the element was removed, then a whole grace
 * period passed, both while the reader held it; a freed element
 * (mbtest 0) is worse. Elements come from a fixed pool, so the busted
 * control's reads of "freed" ones touch nothing gone.
 */
#include "cpuhotplug.h"
#include "list.h"
#include "debug/rcutorture.h"
#include "locking/spinlock.h"
#include "panic.h"
#include "prandom.h"
#include "printk.h"
#include "rcu/rcupdate.h"
#include "sched/sched.h"
#include "time/time.h"

#define RCU_TORTURE_POOL 64
#define RCU_TORTURE_MAX_READERS 16

struct rcu_torture {
	struct rcu_head rtort_rcu;
	int rtort_pipe_count;
	int rtort_mbtest;              /* 1 while in use, 0 once freed */
	struct list_head rtort_free;   /* on the free or removed list */
};

struct rcu_torture_reader {
	struct task_struct *task;
	struct rnd_state rnd;
	unsigned long reads, freed_seen;
	unsigned long pipe[RCU_TORTURE_PIPE_LEN + 1];
};

static struct rcu_torture pool[RCU_TORTURE_POOL];
static struct rcu_torture *rcu_torture_current;
/* The free list and the removed list: the writer's and the callbacks'. */
static DEFINE_RAW_SPINLOCK(rcu_torture_lock);
static LIST_HEAD(rcu_torture_freelist);
static LIST_HEAD(rcu_torture_removed);

static struct {
	const struct rcu_torture_cfg *cfg;
	int stop;
	int error_seen;                /* a reader saw one (stop_on_error) */
	atomic_t in_flight;            /* elements waiting in callbacks */
	int nreaders;
	struct rcu_torture_reader r[RCU_TORTURE_MAX_READERS];
	struct rcu_torture_result *res;
} rt;

/* ---- the grace periods under test, and the busted control's ---- */

static void busted_sync(void)
{
}

static void busted_call(struct rcu_head *head, rcu_callback_t func)
{
	func(head); /* at once: no grace period */
}

static void torture_sync(void)
{
	if (rt.cfg->busted)
		busted_sync();
	else
		synchronize_rcu();
}

static void torture_call(struct rcu_head *head, rcu_callback_t func)
{
	if (rt.cfg->busted)
		busted_call(head, func);
	else
		call_rcu(head, func);
}

/* ---- the pipe ---- */

static void rcu_torture_free(struct rcu_torture *p)
{
	unsigned long flags;

	WRITE_ONCE(p->rtort_mbtest, 0);
	raw_spin_lock_irqsave(&rcu_torture_lock, flags);
	list_add_tail(&p->rtort_free, &rcu_torture_freelist);
	raw_spin_unlock_irqrestore(&rcu_torture_lock, flags);
}

/* One stage further; true (and freed) at the end of the pipe. */
static bool rcu_torture_pipe_update_one(struct rcu_torture *p)
{
	int i = p->rtort_pipe_count + 1;

	WRITE_ONCE(p->rtort_pipe_count, i);
	if (i < RCU_TORTURE_PIPE_LEN)
		return false;
	rcu_torture_free(p);
	return true;
}

/* After a grace period: every element removed so far moves one stage. */
static void rcu_torture_pipe_update(void)
{
	struct rcu_torture *p, *n;
	unsigned long flags;
	LIST_HEAD(done);

	raw_spin_lock_irqsave(&rcu_torture_lock, flags);
	list_for_each_entry_safe(p, n, &rcu_torture_removed, rtort_free) {
		if (p->rtort_pipe_count + 1 >= RCU_TORTURE_PIPE_LEN) {
			list_del_init(&p->rtort_free);
			list_add(&p->rtort_free, &done);
		} else {
			WRITE_ONCE(p->rtort_pipe_count, p->rtort_pipe_count + 1);
		}
	}
	raw_spin_unlock_irqrestore(&rcu_torture_lock, flags);
	list_for_each_entry_safe(p, n, &done, rtort_free) {
		list_del_init(&p->rtort_free);
		rcu_torture_pipe_update_one(p);
	}
}

static void rcu_torture_cb(struct rcu_head *head)
{
	struct rcu_torture *p = container_of(head, struct rcu_torture,
					     rtort_rcu);

	if (rcu_torture_pipe_update_one(p))
		atomic_dec(&rt.in_flight);
	else
		torture_call(&p->rtort_rcu, rcu_torture_cb);
}

static struct rcu_torture *rcu_torture_alloc(void)
{
	struct rcu_torture *p = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&rcu_torture_lock, flags);
	if (!list_empty(&rcu_torture_freelist)) {
		p = list_first_entry(&rcu_torture_freelist, struct rcu_torture,
				     rtort_free);
		list_del_init(&p->rtort_free);
	}
	raw_spin_unlock_irqrestore(&rcu_torture_lock, flags);
	return p;
}

/* ---- the tasks ---- */

static bool rcu_torture_done(uint64_t t0)
{
	const struct rcu_torture_cfg *cfg = rt.cfg;

	return READ_ONCE(rt.stop) ||
	       (cfg->max_updates && rt.res->updates >= cfg->max_updates) ||
	       (cfg->ms && ktime_get_ns() - t0 >= cfg->ms * 1000000ull);
}

/* Replace the current element; the old one goes down the pipe by
 * synchronize_rcu() or by call_rcu(), chosen at random. */
static int rcu_torture_writer(void *arg)
{
	struct rnd_state rnd;
	uint64_t t0 = ktime_get_ns();

	prandom_seed_state(&rnd, rt.cfg->seed ^ 0x3117e);
	while (!rcu_torture_done(t0)) {
		struct rcu_torture *p = rcu_torture_alloc(), *old;
		unsigned long flags;

		if (!p) {
			rt.res->pool_empty++;
			torture_sync();
			rcu_torture_pipe_update();
			continue;
		}
		p->rtort_pipe_count = 0;
		WRITE_ONCE(p->rtort_mbtest, 1);
		old = rcu_dereference_protected(rcu_torture_current, 1);
		rcu_assign_pointer(rcu_torture_current, p);
		rt.res->updates++;
		if (!old)
			continue;
		if (prandom_u32_state(&rnd) % 2) {
			raw_spin_lock_irqsave(&rcu_torture_lock, flags);
			list_add_tail(&old->rtort_free, &rcu_torture_removed);
			raw_spin_unlock_irqrestore(&rcu_torture_lock, flags);
			torture_sync();
			rcu_torture_pipe_update();
		} else {
			atomic_inc(&rt.in_flight);
			torture_call(&old->rtort_rcu, rcu_torture_cb);
		}
		if (rt.cfg->stop_on_error && READ_ONCE(rt.error_seen))
			break;
		if (prandom_u32_state(&rnd) % 16 == 0)
			msleep(1);
	}
	WRITE_ONCE(rt.stop, 1);
	return 0;
}

/* A read-side section: the element's stage, read after a dawdle now and
 * then (on RT=1 the reader may also be preempted there). */
static void rcu_torture_read_one(struct rcu_torture_reader *r)
{
	struct rcu_torture *p;
	int stage;

	rcu_read_lock();
	p = rcu_dereference(rcu_torture_current);
	if (p) {
		if (!READ_ONCE(p->rtort_mbtest))
			r->freed_seen++;
		if (prandom_u32_state(&r->rnd) % 16 == 0)
			udelay(prandom_u32_state(&r->rnd) % 100);
		stage = READ_ONCE(p->rtort_pipe_count);
		if (stage > RCU_TORTURE_PIPE_LEN)
			stage = RCU_TORTURE_PIPE_LEN;
		r->pipe[stage]++;
		if (stage >= 2 || !READ_ONCE(p->rtort_mbtest))
			WRITE_ONCE(rt.error_seen, 1);
		r->reads++;
	}
	rcu_read_unlock();
}

static int rcu_torture_reader(void *arg)
{
	struct rcu_torture_reader *r = arg;

	while (!READ_ONCE(rt.stop)) {
		rcu_torture_read_one(r);
		if (prandom_u32_state(&r->rnd) % 256 == 0)
			msleep(1);
	}
	return 0;
}

/* A random CPU but the boot CPU down, then up, again and again. */
static int rcu_torture_onoff(void *arg)
{
	struct rnd_state rnd;
	int n = nr_cpu_ids;

	prandom_seed_state(&rnd, rt.cfg->seed ^ 0x0ff0);
	while (!READ_ONCE(rt.stop)) {
		int cpu = 1 + prandom_u32_state(&rnd) % (n - 1);

		if (cpu_online(cpu) && cpu_down(cpu) == 0) {
			msleep(1 + prandom_u32_state(&rnd) % 4);
			if (cpu_up(cpu) == 0)
				rt.res->hotplugs++;
		}
		msleep(1 + prandom_u32_state(&rnd) % 4);
	}
	return 0;
}

/* ---- a run ---- */

static void rcu_torture_reset(void)
{
	INIT_LIST_HEAD(&rcu_torture_freelist);
	INIT_LIST_HEAD(&rcu_torture_removed);
	for (int i = 0; i < RCU_TORTURE_POOL; i++) {
		pool[i] = (struct rcu_torture){.rtort_mbtest = 0};
		list_add_tail(&pool[i].rtort_free, &rcu_torture_freelist);
	}
	RCU_INIT_POINTER(rcu_torture_current, 0);
	atomic_set(&rt.in_flight, 0);
}

static void rcu_torture_collect(struct rcu_torture_result *res)
{
	for (int i = 0; i < rt.nreaders; i++) {
		const struct rcu_torture_reader *r = &rt.r[i];

		res->reads += r->reads;
		res->freed_seen += r->freed_seen;
		for (int s = 0; s <= RCU_TORTURE_PIPE_LEN; s++)
			res->pipe[s] += r->pipe[s];
	}
	res->errors = res->freed_seen;
	for (int s = 2; s <= RCU_TORTURE_PIPE_LEN; s++)
		res->errors += res->pipe[s];
}

static struct task_struct *start(int (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = kthread_run(fn, arg, name);

	if (!t)
		WRITE_ONCE(rt.stop, 1);
	return t;
}

int rcu_torture(const struct rcu_torture_cfg *cfg, struct rcu_torture_result *res)
{
	struct task_struct *writer, *onoff = 0;
	int err = 0;

	*res = (struct rcu_torture_result){0};
	rt.cfg = cfg;
	rt.res = res;
	rt.stop = 0;
	rt.error_seen = 0;
	rcu_torture_reset();
	rt.nreaders = (int)num_online_cpus() + 1;
	if (rt.nreaders > RCU_TORTURE_MAX_READERS)
		rt.nreaders = RCU_TORTURE_MAX_READERS;
	for (int i = 0; i < rt.nreaders; i++) {
		rt.r[i] = (struct rcu_torture_reader){0};
		prandom_seed_state(&rt.r[i].rnd, cfg->seed * 1000003ull + i);
		rt.r[i].task = start(rcu_torture_reader, &rt.r[i],
				     "rcu_torture_rd");
	}
	writer = start(rcu_torture_writer, 0, "rcu_torture_wr");
	if (cfg->hotplug && num_online_cpus() > 1)
		onoff = start(rcu_torture_onoff, 0, "rcu_torture_oo");
	for (int i = 0; i < rt.nreaders; i++)
		if (rt.r[i].task)
			kthread_join(rt.r[i].task);
		else
			err = -1;
	if (writer)
		kthread_join(writer);
	if (onoff)
		kthread_join(onoff);
	/* The elements still in callbacks go down the pipe to its end. */
	while (atomic_read(&rt.in_flight))
		rcu_barrier();
	rcu_torture_collect(res);
	return writer ? err : -1;
}

void rcu_torture_print(const char *name, const struct rcu_torture_result *r)
{
	printk("%s-torture: Writes: Total: %lu Reads: %lu Fail: %lu\n", name,
	       r->updates, r->reads, r->errors);
	printk("%s-torture: Reader Pipe: %lu %lu %lu %lu %lu %lu %lu %lu %lu "
	       "%lu %lu\n", name, r->pipe[0], r->pipe[1], r->pipe[2],
	       r->pipe[3], r->pipe[4], r->pipe[5], r->pipe[6], r->pipe[7],
	       r->pipe[8], r->pipe[9], r->pipe[10]);
	printk("%s-torture: freed elements read %lu, pool empty %lu, CPU "
	       "offline/online cycles %lu\n", name, r->freed_seen,
	       r->pool_empty, r->hotplugs);
}
