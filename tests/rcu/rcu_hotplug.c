/*
 * RCU across CPU hotplug (docs/rcu.md, section 3): an offline CPU is not
 * waited for, and the callbacks a CPU had queued when it went down run
 * once each, on the CPU that took it down (rcutree_dead_cpu()).
 */
#include "cpuhotplug.h"
#include "ktest_util.h"
#include "hotplug/hotplug_util.h"
#include "rcupdate.h"
#include "rcutree.h"

KTEST_SUITE(rcu_hotplug, .exit = hotplug_all_online);

static struct rcu_counters counters(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c;
}

/* Grace periods go on while a CPU leaves and comes back, twenty times:
 * none waits for a CPU that is not there. */
KTEST_CPUS(rcu_hotplug, grace_periods_across_cpu_down_up, 2)
{
	struct rcu_counters c0 = counters();
	int cpu = last_cpu(), cycles = 20;

	for (int i = 0; i < cycles; i++) {
		KASSERT_EQ(cpu_down(cpu), 0);
		synchronize_rcu();
		KASSERT_EQ(cpu_up(cpu), 0);
		synchronize_rcu();
	}
	KEXPECT_GE(counters().gps_completed, c0.gps_completed + 2 * cycles);
}

#define NR_CBS 32

static struct {
	int in_section;
	int release;
	int invoked[NR_CBS];
	int cpu_ran[NR_CBS];
	struct rcu_head heads[NR_CBS];
} hp;

/* Holds every grace period off, spinning on its CPU. */
static int reader_fn(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(hp.in_section, 1);
	while (!READ_ONCE(hp.release))
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

static void cb(struct rcu_head *head)
{
	int i = head - hp.heads;

	hp.cpu_ran[i] = raw_smp_processor_id();
	WRITE_ONCE(hp.invoked[i], hp.invoked[i] + 1);
}

static void queue_all(void *arg)
{
	for (int i = 0; i < NR_CBS; i++)
		call_rcu(&hp.heads[i], cb);
}

/* CPU 1 queues callbacks while a reader on the last CPU holds the grace
 * period off, then goes down: its callbacks move to CPU 0, which took it
 * down, and run there once the reader has left. */
KTEST_CPUS(rcu_hotplug, callbacks_of_a_dead_cpu_move, 3)
{
	struct task_struct *r;
	int once = 0, on0 = 0, waiting = 0;

	hp = (typeof(hp)){0};
	r = ktest_spawn_on(last_cpu(), reader_fn, 0, "rcu_reader");
	KASSERT_TRUE(ktest_poll_until(READ_ONCE(hp.in_section), KTEST_WAIT_MS,
				      POLL_SLEEP));
	KEXPECT_EQ(smp_call_function_single(1, queue_all, 0, true), 0);
	KEXPECT_EQ(cpu_down(1), 0);
	for (int i = 0; i < NR_CBS; i++)
		waiting += !READ_ONCE(hp.invoked[i]);
	WRITE_ONCE(hp.release, 1);
	ktest_join(r);
	rcu_barrier();
	for (int i = 0; i < NR_CBS; i++) {
		once += hp.invoked[i] == 1;
		on0 += hp.cpu_ran[i] == 0;
	}
	KEXPECT_EQ(waiting, NR_CBS);
	KEXPECT_EQ(once, NR_CBS);
	KEXPECT_EQ(on0, NR_CBS);
	KEXPECT_EQ(cpu_up(1), 0);
}
