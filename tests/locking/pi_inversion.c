/*
 * The classic three-task priority inversion on one rt_mutex, with and
 * without priority inheritance (rt_mutex_pi_enabled): PI bounds the time
 * the high task waits; without it a medium task that only spins keeps it
 * waiting for as long as it spins. pi_actor.h sets the stage.
 *
 * Who waits for whom is an order of events, and the medium task's spin is
 * counted in ticks of its CPU, not in time: with PI the medium task is
 * preempted within a tick or two of its start and sees high through;
 * without, it spins all its ticks first. A vCPU the host does not run
 * takes no ticks, so that only makes the test longer.
 */
#include "asm/processor.h"
#include "cpumask.h"
#include "pi_actor.h"
#include "time.h"

#define MEDIUM_SPIN_TICKS 200

static struct {
	struct rt_mutex lock;
	volatile int low_held, go_work, high_got, medium_started, medium_done;
	volatile int seq;
	int high_seq, medium_done_seq;
	bool medium_saw_high;
	unsigned long medium_spun_ticks;
	int high_prio_acq;
} inv;

static int inv_low(void *arg)
{
	uint64_t t0;

	rt_mutex_lock(&inv.lock);
	store_int(&inv.low_held, 1);
	ktest_helper_wait(load_int(&inv.go_work) || load_int(&pi_abort),
			  POLL_SPIN);
	t0 = ktime_get_ns();
	while (ns_since(t0) < 2 * NS_PER_MS) /* the work under the lock */
		cpu_relax();
	rt_mutex_unlock(&inv.lock);
	return 0;
}

static int inv_high(void *arg)
{
	rt_mutex_lock(&inv.lock);
	inv.high_prio_acq = task_prio(current);
	inv.high_seq = __atomic_fetch_add(&inv.seq, 1, __ATOMIC_ACQ_REL);
	store_int(&inv.high_got, 1);
	rt_mutex_unlock(&inv.lock);
	return 0;
}

static int inv_medium(void *arg)
{
	unsigned long t0 = this_cpu_read(cpu_ticks); /* bound: one CPU */

	store_int(&inv.medium_started, 1);
	while (this_cpu_read(cpu_ticks) - t0 < MEDIUM_SPIN_TICKS) {
		if (load_int(&inv.high_got)) {
			inv.medium_saw_high = true;
			break;
		}
		cpu_relax();
	}
	inv.medium_spun_ticks = this_cpu_read(cpu_ticks) - t0;
	inv.medium_done_seq = __atomic_fetch_add(&inv.seq, 1, __ATOMIC_ACQ_REL);
	store_int(&inv.medium_done, 1);
	return 0;
}

/* low (10) holds the lock, medium (30) spins, high (50) blocks on the
 * lock, all on one CPU. Returns low's priority while high waits. */
static int run_inversion(bool pi)
{
	struct task_struct *low, *medium, *high;
	int low_prio = -1;

	rt_mutex_init(&inv.lock);
	inv.low_held = inv.go_work = inv.high_got = 0;
	inv.medium_started = inv.medium_done = 0;
	inv.seq = 0;
	inv.high_seq = inv.medium_done_seq = -1;
	inv.medium_saw_high = false;
	inv.medium_spun_ticks = 0;
	inv.high_prio_acq = -1;
	rt_mutex_pi_enabled = pi;
	orchestrate_begin();
	low = pi_start(inv_low, 0, "low", 10);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.low_held)));
	medium = pi_start(inv_medium, 0, "medium", 30);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.medium_started)));
	high = pi_start(inv_high, 0, "high", 50);
	KEXPECT_TRUE(POLL_UNTIL(task_blocked(high)));
	if (low)
		low_prio = task_prio(low);
	store_int(&inv.go_work, 1);
	KEXPECT_TRUE(POLL_UNTIL(load_int(&inv.medium_done) &&
				load_int(&inv.high_got)));
	store_int(&pi_abort, 1);
	become_normal();
	if (high)
		kthread_join(high);
	if (medium)
		kthread_join(medium);
	if (low)
		kthread_join(low);
	rt_mutex_pi_enabled = true;
	set_cpus_allowed(current, cpumask_of(0));
	ktest_log("PI %s: low at %d while high waits; high got the lock as "
		  "event %d (at %d), medium ended as event %d after %lu ticks, "
		  "%s", pi ? "on" : "off", low_prio, inv.high_seq,
		  inv.high_prio_acq, inv.medium_done_seq, inv.medium_spun_ticks,
		  inv.medium_saw_high ? "having seen high through"
				      : "never seeing high through");
	return low_prio;
}

/* With PI, low runs at high's priority above medium, releases, and high
 * gets the lock while medium is still spinning: medium sees it done. */
KTEST(pi, inversion_bounded_by_inheritance)
{
	int low_prio = run_inversion(true);

	KEXPECT_TRUE(rt_mutex_pi_enabled);
	KEXPECT_EQ(low_prio, 50);
	KEXPECT_TRUE(inv.medium_saw_high);
	KEXPECT_EQ(inv.high_seq, 0);
	KEXPECT_EQ(inv.medium_done_seq, 1);
	KEXPECT_EQ(inv.high_prio_acq, 50);
	KEXPECT_FALSE(rt_mutex_is_locked(&inv.lock));
}

/* Without PI, low stays at 10 below medium, so high (above medium!)
 * waits for all of medium's spin: the unbounded inversion that PI
 * prevents, shown with a spin of MEDIUM_SPIN_TICKS. */
KTEST(pi, inversion_unbounded_without_inheritance)
{
	int low_prio = run_inversion(false);

	KEXPECT_TRUE(rt_mutex_pi_enabled); /* restored */
	KEXPECT_EQ(low_prio, 10);
	KEXPECT_FALSE(inv.medium_saw_high);
	KEXPECT_EQ(inv.medium_done_seq, 0);
	KEXPECT_EQ(inv.high_seq, 1);
	KEXPECT_FALSE(rt_mutex_is_locked(&inv.lock));
}
