/*
 * What a CPU leaves queued for its softirqs when it goes down: its
 * tasklets and its backlog move to the CPU that took it down, in the
 * DEAD steps (takeover_tasklets(), dev_cpu_dead(), as Linux's), and run
 * there, once each, in softirq context. They are queued in the dying
 * CPU's last moments (a DYING callback, interrupts off), where they can
 * no longer run on it; without the move they would wait for the CPU to
 * come back.
 */
#include <stdbool.h>

#include "bottom_half.h"
#include "cpuhotplug.h"
#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "net/netdevice.h"
#include "smp.h"

#define NR_SKBS 8

static struct {
	struct tasklet_struct tasklet;
	struct sk_buff skbs[NR_SKBS];
	int queued_on;               /* the CPU the DYING callback ran on */
	atomic_t tasklet_runs, received, wrong;
	int tasklet_cpu;
	unsigned long order;         /* received data, in order, as digits */
} cd;

static void cd_tasklet(struct tasklet_struct *t)
{
	cd.tasklet_cpu = raw_smp_processor_id();
	if (!in_serving_softirq())
		atomic_inc(&cd.wrong);
	atomic_inc(&cd.tasklet_runs);
}

static void cd_receive(struct sk_buff *skb)
{
	if (!in_serving_softirq() || raw_smp_processor_id() == cd.queued_on)
		atomic_inc(&cd.wrong);
	cd.order = cd.order * 10 + skb->data;
	atomic_inc(&cd.received);
}

/* DYING, on the CPU going down, interrupts off: its last softirq work. */
static int cd_queue_dying(unsigned int cpu)
{
	cd.queued_on = raw_smp_processor_id();
	tasklet_schedule(&cd.tasklet);
	for (int i = 0; i < NR_SKBS; i++) {
		cd.skbs[i] = (struct sk_buff){.receive = cd_receive,
					      .data = (unsigned long)i + 1};
		netif_rx(&cd.skbs[i]);
	}
	return 0;
}

KTEST_CPUS(softirq, dead_cpu_tasklets_and_backlog_move, 2)
{
	int d = last_cpu(), state;

	cd = (typeof(cd)){.tasklet_cpu = -1, .queued_on = -1};
	tasklet_setup(&cd.tasklet, cd_tasklet);
	state = cpuhp_setup_state_nocalls(CPUHP_AP_STARTING_DYN,
					  "test:softirq_dying", 0,
					  cd_queue_dying);
	KASSERT_GT(state, 0);
	KEXPECT_EQ(cpu_down(d), 0);
	KEXPECT_EQ(cd.queued_on, d);
	/* The DEAD steps ran here (CPU 0) and raised the softirqs: they run
	 * at the latest when BHs come back on in this task. */
	local_bh_disable();
	local_bh_enable();
	KEXPECT_TRUE(ktest_poll_until(atomic_read(&cd.received) == NR_SKBS &&
				      atomic_read(&cd.tasklet_runs) == 1,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(atomic_read(&cd.tasklet_runs), 1);
	KEXPECT_EQ(cd.tasklet_cpu, raw_smp_processor_id());
	KEXPECT_EQ(atomic_read(&cd.received), NR_SKBS);
	KEXPECT_EQ(cd.order, 12345678ul); /* in the order queued */
	KEXPECT_EQ(atomic_read(&cd.wrong), 0);
	cpuhp_remove_state_nocalls(state);
	KEXPECT_EQ(cpu_up(d), 0);
	/* Back up, it finds nothing left to run twice. */
	KEXPECT_EQ(atomic_read(&cd.tasklet_runs), 1);
	KEXPECT_EQ(atomic_read(&cd.received), NR_SKBS);
}
