/*
 * The public task and delay names (docs/architecture.md, "The public
 * headers"), from sched.h alone (with the test framework): this file
 * stops compiling if one moves out of it.
 */
#include "ktest.h"
#include "sched.h"

static int api_child(void *arg)
{
	udelay(10);
	usleep(100);
	return task_cpu(current) == *(int *)arg ? 7 : -1;
}

KTEST(sched_api, names_from_sched_h)
{
	int cpu = (int)num_online_cpus() - 1;
	struct task_struct *t = kthread_create(api_child, &cpu, "api_child");

	KASSERT_TRUE(t != 0);
	kthread_bind(t, cpu);
	KEXPECT_EQ(sched_setscheduler(t, SCHED_FIFO, 10), 0);
	KEXPECT_EQ(task_prio(t), 10);
	wake_up_process(t);
	msleep(1);
	KEXPECT_EQ(kthread_join(t), 7);
	KEXPECT_FALSE(in_hardirq());
	KEXPECT_FALSE(in_interrupt());
	KEXPECT_TRUE(preemptible());
}
