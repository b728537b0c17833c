/*
 * The BH lock and local_lock_nested_bh() (docs/softirq.md). On
 * PREEMPT_RT a BH section is preemptible; with the BH lock (the default)
 * a second task's local_bh_disable() on the same CPU waits for the first
 * section to end, without it (softirq.bh_lock=0, Linux 6.18) it does
 * not. local_lock_nested_bh() is checked to be called in softirq
 * context, and on PREEMPT_RT excludes the other softirq users of this
 * CPU's copy.
 */
#include <stdbool.h>

#include "bottom_half.h"
#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "percpu.h"
#include "sched.h"

struct nbh_data {
	local_lock_t bh_lock;
	long count;
};
static DEFINE_PER_CPU(struct nbh_data, nbh_pcp) = {
	.bh_lock = INIT_LOCAL_LOCK(bh_lock)};

static void nbh_count(void *unused)
{
	local_lock_nested_bh(&nbh_pcp.bh_lock);
	this_cpu_ptr(&nbh_pcp)->count++;
	local_unlock_nested_bh(&nbh_pcp.bh_lock);
}

/* This CPU's count, read as its softirq users write it. */
static long nbh_read(void)
{
	long v;

	local_bh_disable();
	local_lock_nested_bh(&nbh_pcp.bh_lock);
	v = this_cpu_ptr(&nbh_pcp)->count;
	local_unlock_nested_bh(&nbh_pcp.bh_lock);
	local_bh_enable();
	return v;
}

KTEST(softirq, nested_bh_in_softirq_is_quiet)
{
	long before;

	migrate_disable();
	before = nbh_read();
	ktest_in_softirq(nbh_count, 0);
	local_bh_disable(); /* a BH-disabled section counts as softirq */
	nbh_count(0);
	local_bh_enable();
	KEXPECT_EQ(nbh_read() - before, 2);
	migrate_enable();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_NOT_IN_SOFTIRQ, 0);
}

KTEST(softirq, nested_bh_outside_softirq_is_reported)
{
	migrate_disable(); /* the task's own copy, for the count */
	nbh_count(0);
	migrate_enable();
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_NOT_IN_SOFTIRQ, 1);
}

static void nbh_in_hardirq(void *unused)
{
	local_lock_nested_bh(&nbh_pcp.bh_lock);
	local_unlock_nested_bh(&nbh_pcp.bh_lock);
}

/* RT=0 only: on PREEMPT_RT the lock sleeps and has no business in a
 * hard interrupt at all. Both checks say so: not softirq context, and a
 * lock that sleeps on PREEMPT_RT in a hard interrupt. */
KTEST(softirq, nested_bh_in_hardirq_is_reported)
{
	unsigned long wait0 = lockdep_reports(LOCKDEP_WAIT_CONTEXT);

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	ktest_in_hardirq(nbh_in_hardirq, 0);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_WAIT_CONTEXT) - wait0,
		   IS_ENABLED(CONFIG_LOCKDEP) ? 1ul : 0ul);
	KEXPECT_LOCKDEP_REPORTS(LOCKDEP_NOT_IN_SOFTIRQ, 1);
}

#ifdef CONFIG_PREEMPT_RT
/* A second BH section on the CPU of an open one, from a task of higher
 * priority that preempts the first at once. */
static struct {
	int cpu;
	int trying, in;
} bh2;

static int second_section(void *unused)
{
	smp_store_release(&bh2.trying, 1);
	local_bh_disable();
	smp_store_release(&bh2.in, 1);
	local_bh_enable();
	return 0;
}

KTEST(softirq, bh_lock_serialises_bh_sections)
{
	struct task_struct *t;
	int in_while_open;

	bh2 = (typeof(bh2)){0};
	local_bh_disable(); /* preemptible, migration off */
	bh2.cpu = raw_smp_processor_id();
	t = ktest_spawn(second_section, 0, "bh2", bh2.cpu, SCHED_FIFO, 50,
			true);
	KASSERT_TRUE(t);
	/* It preempts us as soon as it is woken, and either passes or
	 * blocks on the BH lock (lending us its priority). */
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&bh2.trying),
				      KTEST_WAIT_MS, POLL_SPIN));
	in_while_open = smp_load_acquire(&bh2.in);
	local_bh_enable();
	ktest_join(t);
	KEXPECT_EQ(bh2.in, 1);
	KEXPECT_EQ(in_while_open, softirq_needs_bh_lock() ? 0 : 1);
}
#endif
