/*
 * Lab 3's hidden checks (docs/labs/lab3.md). task_can_move() is checked
 * rule by rule on a task that is never run (a copy of the test task's
 * settings, queued on nothing: the function only reads the fields). Then
 * the deferred affinity change without load: a task pinned three deep on
 * CPU c is told to leave c; it stays through the two inner enables, with
 * migration_pending set, and runs on the new CPU as soon as the outermost
 * migrate_enable() returns. The starter generator leaves this file out of
 * the students' tree.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cpumask.h"
#include "ktest.h"
#include "ktest_util.h"
#include "preempt.h"
#include "sched.h"
#include "sched_internal.h"
#include "smp.h"

KTEST_CPUS(lab3_hidden, task_can_move_rules, 2)
{
	static struct task_struct fake;
	struct rq *rq = cpu_rq(0);
	int dest = last_cpu();

	fake = (struct task_struct){.on_rq = true};
	cpumask_copy(&fake.cpus_mask, cpu_online_mask);
	fake.nr_cpus_allowed = num_online_cpus();
	KEXPECT_TRUE(task_can_move(rq, &fake, dest));
	fake.migration_disabled = 1;
	KEXPECT_FALSE(task_can_move(rq, &fake, dest));  /* pinned */
	fake.migration_disabled = 0;
	cpumask_clear(&fake.cpus_mask);
	cpumask_set_cpu(0, &fake.cpus_mask);
	KEXPECT_FALSE(task_can_move(rq, &fake, dest));  /* not allowed there */
	cpumask_copy(&fake.cpus_mask, cpu_online_mask);
	cpumask_set_cpu(nr_cpu_ids, &fake.cpus_mask);
	KEXPECT_FALSE(task_can_move(rq, &fake, nr_cpu_ids)); /* offline */
	fake.on_rq = false;
	KEXPECT_FALSE(task_can_move(rq, &fake, dest));  /* not queued */
	KEXPECT_FALSE(task_can_move(rq, current, dest)); /* running there */
}

static struct {
	volatile int pinned, go, done;
	int cpu[4];
	bool pending[3];
} deferred;

static int deferred_fn(void *arg)
{
	migrate_disable();
	migrate_disable();
	migrate_disable();
	deferred.cpu[0] = raw_smp_processor_id();
	store_int(&deferred.pinned, 1);
	ktest_helper_wait(load_int(&deferred.go), POLL_SLEEP);
	for (int i = 1; i <= 3; i++) {
		deferred.pending[i - 1] = current->migration_pending;
		migrate_enable();
		deferred.cpu[i] = raw_smp_processor_id();
	}
	store_int(&deferred.done, 1);
	return 0;
}

KTEST_CPUS(lab3_hidden, affinity_change_waits_for_outermost_enable, 2)
{
	int c = last_cpu();
	struct task_struct *t;

	deferred = (typeof(deferred)){.cpu = {-1, -1, -1, -1}};
	t = ktest_spawn(deferred_fn, 0, "deferred", c, SCHED_NORMAL, 0, true);
	KASSERT_TRUE(t);
	KASSERT_TRUE(ktest_poll_int(&deferred.pinned, 1, KTEST_WAIT_MS));
	KEXPECT_EQ(set_cpus_allowed(t, cpumask_of(0)), 0);
	KEXPECT_EQ(task_cpu(t), c);           /* pinned: the change waits */
	KEXPECT_TRUE(t->migration_pending);
	store_int(&deferred.go, 1);
	KEXPECT_TRUE(ktest_poll_int(&deferred.done, 1, KTEST_WAIT_MS));
	ktest_join(t);
	KEXPECT_EQ(deferred.cpu[0], c);
	KEXPECT_TRUE(deferred.pending[0]);
	KEXPECT_EQ(deferred.cpu[1], c);       /* inner enables: still there */
	KEXPECT_TRUE(deferred.pending[1]);
	KEXPECT_EQ(deferred.cpu[2], c);
	KEXPECT_TRUE(deferred.pending[2]);
	KEXPECT_EQ(deferred.cpu[3], 0);       /* outermost: on CPU 0 at once */
}
