/*
 * A call_rcu() flood is bounded (docs/rcu.md, section 4): past rcu_qovld
 * callbacks on its CPU, a caller that may sleep waits for a grace period
 * instead of queueing more. To make that a count rather than a race with
 * the grace periods, a reader on another CPU holds every grace period off
 * while a task floods: the flood must stop at rcu_qovld + 1 callbacks
 * (a kernel without the bound would queue all FLOOD of them) and stay
 * stopped however many times the grace-period kthread scans; once the
 * reader leaves, grace periods end, the flood finishes and each callback
 * runs once.
 */
#include "ktest_util.h"
#include "kmalloc.h"
#include "rcupdate.h"
#include "rcutree.h"

struct flood_obj {
	struct rcu_head rcu;
	atomic_t *invoked;
};

static struct {
	int in_section;
	int release;
	long queued;         /* call_rcu()s returned */
	long n;              /* callbacks to queue */
	atomic_t invoked;
} fl;

static struct rcu_counters counters(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c;
}

static int holder_fn(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(fl.in_section, 1);
	ktest_helper_wait(READ_ONCE(fl.release), POLL_SPIN);
	rcu_read_unlock();
	return 0;
}

static void flood_cb(struct rcu_head *rhp)
{
	struct flood_obj *o = container_of(rhp, struct flood_obj, rcu);

	atomic_inc(o->invoked);
	kfree(o);
}

static int flooder_fn(void *arg)
{
	for (long i = 0; i < fl.n; i++) {
		struct flood_obj *o = kmalloc(sizeof(*o));

		if (!o)
			return -1;
		o->invoked = &fl.invoked;
		call_rcu(&o->rcu, flood_cb);
		WRITE_ONCE(fl.queued, i + 1);
	}
	return 0;
}

KTEST_CPUS(rcu, call_rcu_flood_is_bounded, 2)
{
	struct rcu_counters c0, c1;
	struct task_struct *h, *f;
	long stalled;

	rcu_barrier();
	fl = (typeof(fl)){.n = 5 * rcu_qovld};
	atomic_set(&fl.invoked, 0);
	h = ktest_spawn_on(last_cpu(), holder_fn, 0, "rcu_holder");
	KASSERT_TRUE(h);
	KASSERT_TRUE(ktest_poll_until(READ_ONCE(fl.in_section), KTEST_WAIT_MS,
				      POLL_SLEEP));
	c0 = counters();
	f = ktest_spawn(flooder_fn, 0, "rcu_flooder", 0, SCHED_NORMAL, 0, true);
	KEXPECT_TRUE(f != 0);
	/* The flooder waits for a grace period the reader holds off. */
	KEXPECT_TRUE(ktest_poll_until(counters().throttled > c0.throttled,
				      KTEST_WAIT_MS, POLL_SLEEP));
	stalled = READ_ONCE(fl.queued);
	c1 = counters();
	KEXPECT_TRUE(ktest_poll_until(counters().fqs >= c1.fqs + 10,
				      KTEST_WAIT_MS, POLL_SLEEP));
	ktest_log("%ld of %ld callbacks queued while grace periods wait "
		  "(qovld %ld)", stalled, fl.n, rcu_qovld);
	KEXPECT_LE(stalled, rcu_qovld + 1);
	KEXPECT_EQ(READ_ONCE(fl.queued), stalled);
	WRITE_ONCE(fl.release, 1);
	KEXPECT_EQ(ktest_join(h), 0);
	KEXPECT_EQ(ktest_join(f), 0);
	rcu_barrier();
	c1 = counters();
	KEXPECT_EQ(READ_ONCE(fl.queued), fl.n);
	KEXPECT_EQ(atomic_read(&fl.invoked), fl.n);
	KEXPECT_GT(c1.gps_completed, c0.gps_completed);
}
