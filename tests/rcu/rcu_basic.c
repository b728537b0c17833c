/*
 * RCU's readers, grace periods and callbacks (docs/rcu.md, sections 2 to
 * 4): a reader holds synchronize_rcu() off for as long as it stays in its
 * section, however many times the grace-period kthread looks; callbacks
 * run once each, after a grace period, on the CPU that queued them;
 * rcu_barrier() waits for all of them; an idle CPU is reported by the
 * kthread's scan, not woken. Each wait counts kernel events (scans, grace
 * periods); the time bounds only end a broken test.
 */
#include "ktest_util.h"
#include "kmalloc.h"
#include "rcupdate.h"
#include "rcutree.h"

static struct rcu_counters counters(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c;
}

KTEST(rcu, read_lock_nests_and_is_held)
{
	KEXPECT_FALSE(rcu_read_lock_held());
	rcu_read_lock();
	KEXPECT_TRUE(rcu_read_lock_held());
	rcu_read_lock();
	KEXPECT_EQ(rcu_preempt_depth(), IS_ENABLED(CONFIG_PREEMPT_RT) ? 2 : 0);
	rcu_read_unlock();
	KEXPECT_TRUE(rcu_read_lock_held());
	rcu_read_unlock();
	KEXPECT_FALSE(rcu_read_lock_held());
	KEXPECT_EQ(rcu_preempt_depth(), 0);
	/* RT=0's reader is preemption off; RT=1's leaves it on. */
	rcu_read_lock();
	KEXPECT_EQ(preemptible(), IS_ENABLED(CONFIG_PREEMPT_RT));
	rcu_read_unlock();
}

struct pub {
	int a, b;
};

/* rcu_assign_pointer() publishes a whole object: a reader that loads the
 * pointer sees the fields written before, never a half-built one. */
KTEST(rcu, assign_and_dereference)
{
	static struct pub first = {1, 2}, second = {3, 4};
	static struct pub *gp;
	struct pub *p;

	RCU_INIT_POINTER(gp, &first);
	rcu_read_lock();
	p = rcu_dereference(gp);
	KEXPECT_EQ(p->a + p->b, 3);
	rcu_read_unlock();
	rcu_assign_pointer(gp, &second);
	KEXPECT_TRUE(rcu_access_pointer(gp) == &second);
	rcu_read_lock();
	p = rcu_dereference(gp);
	KEXPECT_EQ(p->a + p->b, 7);
	rcu_read_unlock();
	synchronize_rcu(); /* first is no reader's any more */
}

/* ---- a reader holds a grace period off ---- */

static struct {
	int in_section;
	int release;
	int synced;           /* the updater's synchronize_rcu() returned */
	int synced_inside;    /* ... while the reader was still inside */
} rd;

static int reader_fn(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(rd.in_section, 1);
	/* Preemption is off on RT=0: spin, as any long reader would. */
	while (!READ_ONCE(rd.release))
		cpu_relax();
	WRITE_ONCE(rd.synced_inside, READ_ONCE(rd.synced));
	rcu_read_unlock();
	return 0;
}

static int updater_fn(void *arg)
{
	synchronize_rcu();
	WRITE_ONCE(rd.synced, 1);
	return 0;
}

/* The reader spins on its own CPU; the updater waits on CPU 0 while the
 * grace-period kthread scans ten times (each at least its period apart):
 * the grace period cannot end, and ends once the reader leaves. */
KTEST_CPUS(rcu, reader_holds_off_synchronize_rcu, 2)
{
	struct task_struct *r, *u;
	struct rcu_counters c;

	rd = (typeof(rd)){0};
	r = ktest_spawn_on(last_cpu(), reader_fn, 0, "rcu_reader");
	KASSERT_TRUE(ktest_poll_until(READ_ONCE(rd.in_section), KTEST_WAIT_MS,
				      POLL_SLEEP));
	u = ktest_spawn_on(0, updater_fn, 0, "rcu_updater");
	c = counters();
	KEXPECT_TRUE(ktest_poll_until(counters().fqs >= c.fqs + 10,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_FALSE(READ_ONCE(rd.synced));
	WRITE_ONCE(rd.release, 1);
	ktest_join(r);
	ktest_join(u);
	KEXPECT_TRUE(READ_ONCE(rd.synced));
	KEXPECT_FALSE(rd.synced_inside);
}

/* ---- callbacks ---- */

#define NR_OBJS 64

struct obj {
	struct rcu_head rcu;
	unsigned long cookie;  /* the grace period it waits for */
	int invoked;
	int cpu_queued, cpu_ran;
	bool after_gp;
};

static void obj_cb(struct rcu_head *head)
{
	struct obj *o = container_of(head, struct obj, rcu);

	o->cpu_ran = raw_smp_processor_id();
	o->after_gp = poll_state_synchronize_rcu(o->cookie);
	WRITE_ONCE(o->invoked, o->invoked + 1);
}

static void queue_obj(void *arg)
{
	struct obj *o = arg;

	o->cpu_queued = raw_smp_processor_id();
	o->cookie = get_state_synchronize_rcu();
	call_rcu(&o->rcu, obj_cb);
}

/* Callbacks from every CPU (queued in hard-interrupt context there), then
 * rcu_barrier(): each ran once, after its grace period, on its CPU. */
KTEST(rcu, call_rcu_runs_once_after_a_grace_period)
{
	static struct obj objs[NR_OBJS];
	struct rcu_counters c0 = counters(), c1;
	int n = num_online_cpus(), once = 0, after = 0, here = 0;

	for (int i = 0; i < NR_OBJS; i++) {
		objs[i] = (struct obj){.invoked = 0};
		KEXPECT_EQ(smp_call_function_single(i % n, queue_obj, &objs[i],
						    true), 0);
	}
	rcu_barrier();
	c1 = counters();
	for (int i = 0; i < NR_OBJS; i++) {
		once += objs[i].invoked == 1;
		after += objs[i].after_gp;
		here += objs[i].cpu_ran == objs[i].cpu_queued;
	}
	KEXPECT_EQ(once, NR_OBJS);
	KEXPECT_EQ(after, NR_OBJS);
	KEXPECT_EQ(here, NR_OBJS);
	KEXPECT_GE(c1.gps_completed, c0.gps_completed + 1);
	KEXPECT_GE(c1.cbs_invoked, c0.cbs_invoked + NR_OBJS);
}

struct kobj {
	long payload[6];
	struct rcu_head rcu;
};

/* kfree_rcu() frees the object around the head: the objects in use are
 * back to their count once the callbacks ran. */
KTEST(rcu, kfree_rcu_frees_the_object)
{
	int cls = 0;
	long before;

	while (kmalloc_class_size(cls) < sizeof(struct kobj))
		cls++;
	rcu_barrier();
	before = kmalloc_objects_in_use(cls);
	for (int i = 0; i < NR_OBJS; i++) {
		struct kobj *k = kmalloc(sizeof(*k));

		KASSERT_TRUE(k);
		kfree_rcu(k, rcu);
	}
	KEXPECT_EQ(kmalloc_objects_in_use(cls), before + NR_OBJS);
	rcu_barrier();
	KEXPECT_EQ(kmalloc_objects_in_use(cls), before);
}

/* A cookie names a grace period: not over at first, over after one. */
KTEST(rcu, polled_grace_period)
{
	unsigned long s = start_poll_synchronize_rcu();

	KEXPECT_FALSE(poll_state_synchronize_rcu(s));
	KEXPECT_TRUE(ktest_poll_until(poll_state_synchronize_rcu(s),
				      KTEST_WAIT_MS, POLL_SLEEP));
	cond_synchronize_rcu(s); /* returns at once */
	s = get_state_synchronize_rcu();
	synchronize_rcu();
	KEXPECT_TRUE(poll_state_synchronize_rcu(s));
}

/* ---- idle CPUs ---- */

/* A CPU that idles is reported by the kthread's scan from its dynticks
 * counter, not by itself: the scans report quiescent states while the
 * other CPUs idle through grace periods. */
KTEST_CPUS(rcu, idle_cpus_reported_by_the_scan, 2)
{
	struct rcu_counters c0 = counters();
	int gps = 0;

	while (gps < 50 && counters().qs_fqs == c0.qs_fqs) {
		synchronize_rcu();
		msleep(2); /* the other CPUs go back to idle */
		gps++;
	}
	ktest_log("%d grace periods until a scan reported an idle CPU", gps);
	KEXPECT_GT(counters().qs_fqs, c0.qs_fqs);
}
