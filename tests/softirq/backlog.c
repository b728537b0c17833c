/*
 * The per-CPU backlog and NET_RX (kernel/net/dev.c), fed from hard
 * interrupts: a self-IPI (ktest_in_hardirq()) and a cross-CPU call on
 * every CPU. Each buffer is received once, on the CPU whose interrupt
 * queued it, in softirq context; a burst over the budget is squeezed.
 */
#include <stdbool.h>

#include "interrupt.h"
#include "kmalloc.h"
#include "ktest.h"
#include "ktest_util.h"
#include "net/netdevice.h"
#include "percpu.h"
#include "sched.h"
#include "smp.h"

#define BURST 500 /* over NETDEV_BUDGET: two NET_RX runs at least */

/* BURST buffers per online CPU, from kmalloc (NR_CPUS of them would make
 * a large .bss); a burst's buffers are all received before the next. */
static struct sk_buff (*skbs)[BURST];
static atomic_long_t received[NR_CPUS];
static atomic_long_t wrong_context;

static void receive(struct sk_buff *skb)
{
	int cpu = raw_smp_processor_id();

	if (!in_serving_softirq() || in_hardirq() || (int)skb->data != cpu)
		atomic_long_inc(&wrong_context);
	atomic_long_inc(&received[cpu]);
}

/* In a hard interrupt: queue this CPU's burst. */
static void inject_burst(void *unused)
{
	int cpu = raw_smp_processor_id();

	for (int i = 0; i < BURST; i++) {
		skbs[cpu][i] = (struct sk_buff){.receive = receive,
						.data = (unsigned long)cpu};
		netif_rx(&skbs[cpu][i]);
	}
}

static bool reset_counts(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		atomic_long_set(&received[cpu], 0);
	atomic_long_set(&wrong_context, 0);
	if (!skbs)
		skbs = kmalloc(sizeof(*skbs) * nr_cpu_ids);
	return skbs;
}

KTEST(softirq, backlog_burst_from_hardirq)
{
	struct softnet_stat s0, s1;
	int cpu;

	KASSERT_TRUE(reset_counts());
	migrate_disable();
	cpu = raw_smp_processor_id();
	softnet_stat_cpu(cpu, &s0);
	ktest_in_hardirq(inject_burst, 0);
	migrate_enable();
	KEXPECT_TRUE(ktest_poll_until(atomic_long_read(&received[cpu]) ==
					      BURST,
				      KTEST_WAIT_MS, POLL_SLEEP));
	softnet_stat_cpu(cpu, &s1);
	KEXPECT_EQ(s1.processed - s0.processed, BURST);
	KEXPECT_EQ(s1.dropped - s0.dropped, 0);
	KEXPECT_GE(s1.time_squeeze - s0.time_squeeze, 1);
	KEXPECT_EQ(atomic_long_read(&wrong_context), 0);
}

static bool all_received(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (atomic_long_read(&received[cpu]) != BURST)
			return false;
	return true;
}

KTEST(softirq, backlog_burst_on_every_cpu_by_ipi)
{
	KASSERT_TRUE(reset_counts());
	migrate_disable(); /* "this CPU", which the call leaves out */
	smp_call_function_many(cpu_online_mask, inject_burst, 0, true);
	ktest_in_hardirq(inject_burst, 0);
	migrate_enable();
	KEXPECT_TRUE(ktest_poll_until(all_received(), KTEST_WAIT_MS,
				      POLL_SLEEP));
	KEXPECT_EQ(atomic_long_read(&wrong_context), 0);
}

/* RT=0 runs the softirq on the interrupt's exit, on top of a task that
 * has preemption off: the softirq's own locks are checked as its own
 * context's (no "sleeping lock with preemption off" for the nested-BH
 * lock it takes). */
KTEST(softirq, backlog_burst_on_top_of_preempt_off)
{
	int cpu;

	KASSERT_TRUE(reset_counts());
	preempt_disable();
	cpu = raw_smp_processor_id();
	ktest_in_hardirq(inject_burst, 0);
	preempt_enable();
	KEXPECT_TRUE(ktest_poll_until(atomic_long_read(&received[cpu]) ==
					      BURST,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(atomic_long_read(&wrong_context), 0);
}
