/*
 * The scene the GDB test (tests/host/gdb.sh) stops in: one task per CPU
 * (up to four), bound to it at its own FIFO priority, reaches
 * gdb_probe_point() in turn, CPU 0's first, while the first one holds two
 * mutexes taken in a known order (a lockdep edge). Before each stop the
 * kernel prints what the debugger's helpers must then show: the task's
 * id, CPU, priority and the locks it holds. Without a debugger attached
 * this is an ordinary test of the same facts.
 */
#include "completion.h"
#include "ktest.h"
#include "ktest_util.h"
#include "mutex.h"
#include "preempt.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"

#define PROBE_TASKS 4

static DEFINE_MUTEX(gdb_probe_outer);
static DEFINE_MUTEX(gdb_probe_inner);

static struct {
	struct completion turn[PROBE_TASKS + 1];
	int hits;
} probe;

/* The debugger's breakpoint. noinline and a side effect, so that the
 * call stays where it is and the argument is live. */
__attribute__((noinline)) void gdb_probe_point(int cpu)
{
	__atomic_fetch_add(&probe.hits, 1, __ATOMIC_SEQ_CST);
	__asm__ volatile("" : : "r"(cpu) : "memory");
}

static int probe_fn(void *arg)
{
	int i = (int)(long)arg;

	wait_for_completion(&probe.turn[i]);
	if (i == 0) {
		mutex_lock(&gdb_probe_outer);
		mutex_lock(&gdb_probe_inner);
	}
	printk("gdb_probe: task %d \"%s\" on CPU %d prio %d preempt_count %d "
	       "migration_disabled %d holds %s\n", current->pid, current->comm,
	       raw_smp_processor_id(), task_prio(current), preempt_count(),
	       current->migration_disabled,
	       i == 0 ? "gdb_probe_outer gdb_probe_inner" : "nothing");
	gdb_probe_point(raw_smp_processor_id());
	if (i == 0) {
		mutex_unlock(&gdb_probe_inner);
		mutex_unlock(&gdb_probe_outer);
	}
	complete(&probe.turn[i + 1]);
	return 0;
}

KTEST(gdb, probe_on_each_cpu)
{
	struct task_struct *t[PROBE_TASKS];
	int n = (int)num_online_cpus();

	if (n > PROBE_TASKS)
		n = PROBE_TASKS;
	probe.hits = 0;
	for (int i = 0; i <= n; i++)
		init_completion(&probe.turn[i]);
	for (int i = 0; i < n; i++) {
		static const char *const names[PROBE_TASKS] = {
			"gdb_probe0", "gdb_probe1", "gdb_probe2", "gdb_probe3"};

		t[i] = ktest_spawn(probe_fn, (void *)(long)i, names[i], i,
				   SCHED_FIFO, 10 + i, true);
	}
	printk("gdb_probe: edge gdb_probe_outer -> gdb_probe_inner\n");
	complete(&probe.turn[0]);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(ktest_join(t[i]), 0);
	KEXPECT_EQ(probe.hits, n);
}
