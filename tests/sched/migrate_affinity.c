/*
 * Affinity changes of sleeping tasks (kernel/sched/sched.c
 * set_cpus_allowed(), kernel/sched/migrate.c): the new mask takes effect
 * at the wakeup, and for a task that went to sleep with migration disabled
 * only at its outermost migrate_enable().
 */
#include "ktest_util.h"
#include "wait.h"

/* One task's record: it sleeps on wq until go (or, !sleeps, runs
 * through), with migration disabled around the sleep if pinned. */
static struct sleeper {
	bool sleeps, pinned;
	struct wait_queue_head wq;
	volatile int go;
	volatile int slept_on;           /* CPU before sleeping */
	volatile int woke_on;            /* CPU right after waking */
	volatile int enabled_on;         /* after migrate_enable() */
	volatile int pending_before, pending_after;
	volatile int done;
} zz[3];

static int sleeper_fn(void *arg)
{
	struct sleeper *z = arg;

	if (z->pinned)
		migrate_disable();
	z->slept_on = raw_smp_processor_id();
	if (z->sleeps)
		wait_event(z->wq, load_int(&z->go));
	z->woke_on = raw_smp_processor_id();
	if (z->pinned) {
		z->pending_before = current->migration_pending;
		migrate_enable();
		z->enabled_on = raw_smp_processor_id();
		z->pending_after = current->migration_pending;
	}
	store_int(&z->done, 1);
	return 0;
}

/* Asleep: off every run queue and switched out for good. */
static bool asleep(struct task_struct *t)
{
	return READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE &&
	       !__atomic_load_n(&t->on_rq, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
}

static bool wait_asleep(struct task_struct *t)
{
	return ktest_poll_until(asleep(t), KTEST_WAIT_MS, POLL_SLEEP);
}

/*
 * set_cpus_allowed() on a task that sleeps takes effect at its wakeup: it
 * wakes on the new CPU. On a task that went to sleep migrate-disabled it
 * takes effect at its migrate_enable(): it wakes pinned on its old CPU,
 * with migration_pending set, and moves when it enables. On a task never
 * woken, it applies to its first run.
 */
KTEST_CPUS(migrate, affinity_of_sleeping_tasks, 2)
{
	int a = last_cpu(), b = 0;
	struct task_struct *s, *p, *n;
	bool s_asleep, p_asleep;
	int s_cpu_asleep, p_cpu_asleep;

	for (int i = 0; i < 3; i++) {
		zz[i] = (struct sleeper){.sleeps = i < 2, .pinned = i == 1,
					 .slept_on = -1, .woke_on = -1,
					 .enabled_on = -1, .pending_before = -1,
					 .pending_after = -1};
		init_waitqueue_head(&zz[i].wq);
	}
	s = ktest_spawn_on(a, sleeper_fn, &zz[0], "sleeper");
	p = ktest_spawn(sleeper_fn, &zz[1], "pinned-sleeper", -1,
			SCHED_NORMAL, 0, false);
	KASSERT_TRUE(s && p);
	/* p is not bound: it is migrate_disable() that keeps it on a. */
	KEXPECT_EQ(set_cpus_allowed(p, cpumask_of(a)), 0);
	wake_up_process(p);
	s_asleep = wait_asleep(s);
	p_asleep = wait_asleep(p);
	KEXPECT_EQ(set_cpus_allowed(p, cpu_online_mask), 0);
	KEXPECT_EQ(set_cpus_allowed(s, cpumask_of(b)), 0);
	KEXPECT_EQ(set_cpus_allowed(p, cpumask_of(b)), 0);
	/* Neither was woken by it. */
	KEXPECT_TRUE(asleep(s));
	KEXPECT_TRUE(asleep(p));
	KEXPECT_TRUE(p->migration_pending);
	s_cpu_asleep = task_cpu(s);
	p_cpu_asleep = task_cpu(p);

	n = ktest_spawn(sleeper_fn, &zz[2], "new", -1, SCHED_NORMAL, 0, false);
	if (n) {
		KEXPECT_EQ(set_cpus_allowed(n, cpumask_of(a)), 0);
		wake_up_process(n);
	}

	for (int i = 0; i < 2; i++) {
		store_int(&zz[i].go, 1);
		wake_up(&zz[i].wq);
	}
	for (int i = 0; i < 3; i++)
		KEXPECT_TRUE(ktest_poll_int(&zz[i].done, 1, KTEST_WAIT_MS));
	ktest_join(s);
	ktest_join(p);
	ktest_join(n);
	ktest_log("sleeper: slept on %d (asleep %d, cpu %d), woke on %d "
		  "(allowed: %d)", zz[0].slept_on, s_asleep, s_cpu_asleep,
		  zz[0].woke_on, b);
	ktest_log("pinned sleeper: slept on %d (asleep %d, cpu %d), woke on %d "
		  "pending %d, after enable on %d pending %d (allowed: %d)",
		  zz[1].slept_on, p_asleep, p_cpu_asleep, zz[1].woke_on,
		  zz[1].pending_before, zz[1].enabled_on, zz[1].pending_after,
		  b);
	ktest_log("new task: ran on %d (allowed: %d)", zz[2].woke_on, a);
	KEXPECT_TRUE(s_asleep);
	KEXPECT_TRUE(p_asleep);
	KEXPECT_EQ(zz[0].slept_on, a);
	KEXPECT_EQ(zz[0].woke_on, b);
	KEXPECT_EQ(zz[1].slept_on, a);
	KEXPECT_EQ(zz[1].woke_on, a);
	KEXPECT_EQ(zz[1].pending_before, 1);
	KEXPECT_EQ(zz[1].enabled_on, b);
	KEXPECT_EQ(zz[1].pending_after, 0);
	KEXPECT_EQ(zz[2].woke_on, a);
}
