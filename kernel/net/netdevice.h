/*
 * A network-like receive path in the small, after Linux's
 * net/core/dev.c (docs/softirq.md): netif_rx() queues a buffer on this
 * CPU's backlog (Linux's softnet_data) from any context, a hard
 * interrupt included, and the NET_RX softirq hands each to its receive
 * function on that CPU, at most netdev_budget per run.
 */
#ifndef NETDEVICE_H
#define NETDEVICE_H

/* A received buffer: what the receiver gets, and who receives it (a
 * protocol handler, in Linux's terms). */
struct sk_buff {
	struct sk_buff *next;
	void (*receive)(struct sk_buff *skb);
	unsigned long data;
};

/* A queue of buffers, Linux's sk_buff_head; all zero is empty, so that
 * per-CPU queues need no initialisation. */
struct sk_buff_head {
	struct sk_buff *head, *tail;
	unsigned int qlen;
};

enum { NET_RX_SUCCESS = 0, NET_RX_DROP = 1 };

/* Linux's defaults for the backlog's length and one run's budget. */
#define NETDEV_MAX_BACKLOG 1000
#define NETDEV_BUDGET 300

/* Queue skb on this CPU's backlog and raise NET_RX; NET_RX_DROP (skb
 * untouched, counted) when the backlog is full. */
int netif_rx(struct sk_buff *skb);

/* A CPU's counts, as Linux's /proc/net/softnet_stat: buffers received,
 * dropped, and runs that ended with work left (time_squeeze). */
struct softnet_stat {
	unsigned long processed, dropped, time_squeeze;
};
void softnet_stat_cpu(int cpu, struct softnet_stat *st);

/* Opens NET_RX. */
void net_dev_init(void);
/* Hotplug's DEAD step for the backlog (CPUHP_NET_DEV_DEAD): a dead CPU's
 * queued buffers move to the calling CPU and are received there. Always
 * 0. */
int dev_cpu_dead(unsigned int cpu);

#endif
