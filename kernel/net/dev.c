/*
 * The per-CPU backlog and NET_RX softirq (netdevice.h), after Linux's
 * net/core/dev.c. Each CPU has two queues, as Linux's softnet_data:
 * input_pkt_queue, filled by netif_rx() with interrupts off (a hard
 * interrupt may fill it), and process_queue, which only NET_RX takes
 * from, in softirq context. How process_queue stays one CPU's softirq's
 * alone on PREEMPT_RT once the BH lock is dropped (softirq.bh_lock=0) is
 * lab 10's (docs/labs/lab10.md). The two are two per-CPU variables here,
 * one per protection, so that the per-CPU checker can tell them apart
 * (it checks a variable as a whole).
 */
#include "net/netdevice.h"
#include "interrupt.h"
#include "irqflags.h"
#include "locking/local_lock.h"
#include "locking/lockdep.h"
#include "percpu.h"
#include "rwonce.h"

/* Interrupts off. */
struct softnet_input {
	struct sk_buff_head input_pkt_queue;
	unsigned long dropped;
};

/* Softirq context of its CPU. */
struct softnet_data {
	/* LAB10 BEGIN */
	local_lock_t process_queue_bh_lock;
	/* LAB10 END */
	struct sk_buff_head process_queue;
	unsigned long processed, time_squeeze;
};

static void skb_queue_tail(struct sk_buff_head *q, struct sk_buff *skb)
{
	skb->next = 0;
	if (q->tail)
		q->tail->next = skb;
	else
		q->head = skb;
	q->tail = skb;
	q->qlen++;
}

static struct sk_buff *skb_dequeue(struct sk_buff_head *q)
{
	struct sk_buff *skb = q->head;

	if (skb) {
		q->head = skb->next;
		if (!q->head)
			q->tail = 0;
		q->qlen--;
	}
	return skb;
}

/* Move all of from to the end of to. */
static void skb_queue_splice_tail_init(struct sk_buff_head *from,
				       struct sk_buff_head *to)
{
	if (!from->head)
		return;
	if (to->tail)
		to->tail->next = from->head;
	else
		to->head = from->head;
	to->tail = from->tail;
	to->qlen += from->qlen;
	*from = (struct sk_buff_head){0};
}

static DEFINE_PER_CPU(struct softnet_input, softnet_input);
static DEFINE_PER_CPU(struct softnet_data, softnet_data) = {
	/* LAB10 BEGIN */
	.process_queue_bh_lock = INIT_LOCAL_LOCK(process_queue_bh_lock),
	/* LAB10 END */
};

int netif_rx(struct sk_buff *skb)
{
	struct softnet_input *sd;
	unsigned long flags;
	int ret = NET_RX_SUCCESS;

	local_irq_save(flags);
	sd = this_cpu_ptr(&softnet_input);
	if (sd->input_pkt_queue.qlen >= NETDEV_MAX_BACKLOG) {
		sd->dropped++;
		ret = NET_RX_DROP;
	} else {
		skb_queue_tail(&sd->input_pkt_queue, skb);
		raise_softirq_irqoff(NET_RX_SOFTIRQ);
	}
	local_irq_restore(flags);
	return ret;
}

/* Take what the interrupts queued: the input queue, in one piece. */
static void backlog_splice(struct softnet_data *sd)
{
	struct softnet_input *in;

	local_irq_disable();
	in = this_cpu_ptr(&softnet_input);
	skb_queue_splice_tail_init(&in->input_pkt_queue, &sd->process_queue);
	local_irq_enable();
}

/* Linux's process_backlog(): up to budget buffers, each handed to its
 * receiver, which may queue more and takes its own data's locks. Returns
 * how many. */
static int process_backlog(int budget)
{
	struct softnet_data *sd;
	int work = 0;

	/* LAB10 BEGIN */
	local_lock_nested_bh(&softnet_data.process_queue_bh_lock);
	sd = this_cpu_ptr(&softnet_data);
	if (!sd->process_queue.head)
		backlog_splice(sd);
	while (work < budget && sd->process_queue.head) {
		struct sk_buff *skb = skb_dequeue(&sd->process_queue);

		sd->processed++;
		work++;
		local_unlock_nested_bh(&softnet_data.process_queue_bh_lock);
		skb->receive(skb);
		local_lock_nested_bh(&softnet_data.process_queue_bh_lock);
		if (!sd->process_queue.head)
			backlog_splice(sd);
	}
	local_unlock_nested_bh(&softnet_data.process_queue_bh_lock);
	/* LAB10 STUB: @process_backlog the process queue with BHs off alone */
	/* LAB10 END */
	return work;
}

/* Whether this CPU's backlog has buffers left; the process queue is the
 * caller's. */
static bool backlog_busy(struct softnet_data *sd)
{
	bool busy = sd->process_queue.head;

	local_irq_disable();
	busy |= this_cpu_ptr(&softnet_input)->input_pkt_queue.head != 0;
	local_irq_enable();
	return busy;
}

/* The NET_RX softirq: one budget's worth; what is left raises it again
 * (and counts as a squeeze), so that a flood yields to ksoftirqd. */
static void net_rx_action(void)
{
	struct softnet_data *sd;

	if (process_backlog(NETDEV_BUDGET) < NETDEV_BUDGET)
		return;
	/* LAB10 BEGIN */
	local_lock_nested_bh(&softnet_data.process_queue_bh_lock);
	sd = this_cpu_ptr(&softnet_data);
	if (!backlog_busy(sd)) {
		local_unlock_nested_bh(&softnet_data.process_queue_bh_lock);
		return;
	}
	sd->time_squeeze++;
	local_unlock_nested_bh(&softnet_data.process_queue_bh_lock);
	/* LAB10 STUB: @net_rx_squeeze the squeeze counted with BHs off alone */
	/* LAB10 END */
	raise_softirq(NET_RX_SOFTIRQ);
}

void softnet_stat_cpu(int cpu, struct softnet_stat *st)
{
	const struct softnet_data *sd = per_cpu_ptr(&softnet_data, cpu);

	st->processed = READ_ONCE(sd->processed);
	st->dropped = READ_ONCE(per_cpu_ptr(&softnet_input, cpu)->dropped);
	st->time_squeeze = READ_ONCE(sd->time_squeeze);
}

/* Hotplug (CPUHP_NET_DEV_DEAD), Linux's dev_cpu_dead(): what a CPU that
 * went down still had queued, its process queue and then its input
 * queue, joins the end of this CPU's input queue in that order, and
 * NET_RX receives it here. Past the backlog's length, if need be: a
 * buffer that was accepted is not dropped for being moved (Linux
 * re-queues through netif_rx(), which may drop). Nothing runs on cpu
 * any more, so its queues are ours: the checker cannot see that (hence
 * raw), and forgets the queues' history, as for a per-CPU variable freed
 * and made again, so that the CPU's next life is not held against this
 * hand-over. */
int dev_cpu_dead(unsigned int cpu)
{
	struct softnet_data *dsd = raw_per_cpu_ptr(&softnet_data, cpu);
	struct softnet_input *din = raw_per_cpu_ptr(&softnet_input, cpu);
	struct sk_buff_head moved = {0};
	struct softnet_input *in;

	skb_queue_splice_tail_init(&dsd->process_queue, &moved);
	skb_queue_splice_tail_init(&din->input_pkt_queue, &moved);
	lockdep_percpu_forget(&softnet_data, sizeof(softnet_data));
	lockdep_percpu_forget(&softnet_input, sizeof(softnet_input));
	if (!moved.head)
		return 0;
	local_irq_disable();
	in = this_cpu_ptr(&softnet_input);
	skb_queue_splice_tail_init(&moved, &in->input_pkt_queue);
	raise_softirq_irqoff(NET_RX_SOFTIRQ);
	local_irq_enable();
	return 0;
}

void net_dev_init(void)
{
	open_softirq(NET_RX_SOFTIRQ, net_rx_action);
}
