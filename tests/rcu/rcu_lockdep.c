/*
 * What the validator knows of RCU (docs/rcu.md, section 6): the reader
 * is a held lock of class rcu_read_lock, which takes part in no
 * dependency; rcu_dereference() outside a reader and outside its _check
 * condition is suspicious RCU usage; a sleep inside a reader, a mutex
 * taken inside one, synchronize_rcu() inside one (which returns instead
 * of waiting for itself) and a task that exits inside one are reported.
 * Each test counts its reports (KEXPECT_LOCKDEP_REPORTS: none with
 * LOCKDEP=0).
 */
#include "ktest_util.h"
#include "lockdep.h"
#include "mutex.h"
#include "printk.h"
#include "rcupdate.h"
#include "spinlock.h"

static int value = 7;
static int *gp = &value;
static DEFINE_SPINLOCK(gp_lock);
static DEFINE_MUTEX(rcu_test_mutex);

KTEST(rcu_lockdep, reader_is_a_held_lock)
{
	KEXPECT_EQ(lock_is_held(&rcu_lock_map), !IS_ENABLED(CONFIG_LOCKDEP));
	rcu_read_lock();
	rcu_read_lock();
	KEXPECT_TRUE(lock_is_held(&rcu_lock_map));
	rcu_read_unlock();
	KEXPECT_TRUE(lock_is_held(&rcu_lock_map));
	rcu_read_unlock();
	KEXPECT_EQ(lock_is_held(&rcu_lock_map), !IS_ENABLED(CONFIG_LOCKDEP));
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RECURSIVE, 0);
}

/* A spinlock_t inside a reader and a reader inside it: both orders are
 * fine (a reader waits for nobody), and no cycle is reported. */
KTEST(rcu_lockdep, reader_and_lock_in_both_orders)
{
	rcu_read_lock();
	spin_lock(&gp_lock);
	spin_unlock(&gp_lock);
	rcu_read_unlock();
	spin_lock(&gp_lock);
	rcu_read_lock();
	rcu_read_unlock();
	spin_unlock(&gp_lock);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_CIRCULAR, 0);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 0);
}

static void reader_in_hardirq(void *arg)
{
	rcu_read_lock();
	rcu_read_unlock();
}

/* A reader never waits: it may begin under a raw spinlock, with
 * interrupts off, in hard-interrupt context. */
KTEST(rcu_lockdep, reader_anywhere)
{
	static DEFINE_RAW_SPINLOCK(raw);

	raw_spin_lock(&raw);
	rcu_read_lock();
	rcu_read_unlock();
	raw_spin_unlock(&raw);
	local_irq_disable();
	rcu_read_lock();
	rcu_read_unlock();
	local_irq_enable();
	ktest_in_hardirq(reader_in_hardirq, 0);
	rcu_read_lock();
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 0);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_IRQ_STATE, 0);
}

KTEST(rcu_lockdep, dereference_outside_a_reader)
{
	int *p;

	rcu_read_lock();
	p = rcu_dereference(gp);
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 0);
	p = rcu_dereference(gp);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 1);
	KEXPECT_EQ(*p, 7);
}

/* _check accepts its condition as well as a reader; _protected only its
 * condition. */
KTEST(rcu_lockdep, dereference_check_and_protected)
{
	int *p;

	spin_lock(&gp_lock);
	p = rcu_dereference_check(gp, lockdep_is_held(&gp_lock));
	p = rcu_dereference_protected(gp, lockdep_is_held(&gp_lock));
	spin_unlock(&gp_lock);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 0);
	p = rcu_dereference_check(gp, lockdep_is_held(&gp_lock));
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 1);
	rcu_read_lock();
	p = rcu_dereference_protected(gp, lockdep_is_held(&gp_lock));
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 1);
	KEXPECT_EQ(*p, 7);
}

/* A mutex always sleeps: not inside a reader, on either RT value. The
 * report names the reader as the lock held, and lists it among the held
 * locks, as Linux's does ("#0: (rcu_read_lock), at: ..."). */
KTEST(rcu_lockdep, mutex_inside_a_reader)
{
	unsigned long pos = printk_log_pos();

	rcu_read_lock();
	mutex_lock(&rcu_test_mutex);
	mutex_unlock(&rcu_test_mutex);
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_WAIT_CONTEXT, 1);
	KEXPECT_TRUE(printk_log_contains(pos, "RCU reader (rcu_read_lock)"));
	KEXPECT_TRUE(printk_log_contains(pos, "#0: (rcu_read_lock), at: "));
}

/* RT=0: preemption is off; RT=1: the RCU nest depth says so. */
KTEST(rcu_lockdep, sleep_inside_a_reader)
{
	rcu_read_lock();
	msleep(1);
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_SLEEP_IN_ATOMIC, 1);
}

/* It would wait for itself: reported, and it returns. */
KTEST(rcu_lockdep, synchronize_rcu_inside_a_reader)
{
	rcu_read_lock();
	synchronize_rcu();
	rcu_read_unlock();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_RCU_SUSPICIOUS, 1);
	synchronize_rcu(); /* and grace periods go on */
}

static int exit_in_reader(void *arg)
{
	rcu_read_lock();
	return 0;
}

/* A task that exits inside a reader holds rcu_read_lock at exit; its
 * section is closed for it, so grace periods go on. */
KTEST(rcu_lockdep, exit_inside_a_reader)
{
	KEXPECT_EQ(ktest_run_on(0, exit_in_reader, 0, "rcu_exit"), 0);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_HELD_AT_EXIT, 1);
	synchronize_rcu();
}
