/*
 * Lab 10's tests (docs/labs/lab10.md): the softirq users of
 * tests/labs/lab10_users.c stay right with several tasks of one CPU
 * receiving, logging, collecting and draining at once, preempting each
 * other inside their BH sections on PREEMPT_RT, and the validator stays
 * quiet (a test outside the lockdep suites fails on any report). With
 * the BH lock (the default) the BH sections of a CPU take turns; booted
 * with softirq.bh_lock=0 they do not, and only the data's own
 * protection keeps these counts right and the per-CPU checker quiet.
 */
#include "atomic.h"
#include "bottom_half.h"
#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab10_users.h"
#include "net/netdevice.h"
#include "sched.h"

#define RT_WORLD IS_ENABLED(CONFIG_PREEMPT_RT)

/* ---- flows ---- */

#define FEEDERS 2
#define FEED_PACKETS 240
#define FEED_BATCH 16

static struct {
	struct sk_buff skb[FEEDERS][FEED_PACKETS];
	atomic_t received, dropped;
	volatile int feeders_done, stop;
	unsigned long packets[LAB10_FLOWS], bytes[LAB10_FLOWS];
	int exports;
} fl;

static void count_receive(struct sk_buff *skb)
{
	lab10_flow_receive(skb);
	atomic_inc(&fl.received);
}

static int packet_flow(int feeder, int i)
{
	return (i + feeder) % LAB10_FLOWS;
}

static unsigned long packet_len(int i)
{
	return 64 + i;
}

/* Queues its packets in batches, each with BHs off, so that NET_RX runs
 * at the batch's local_bh_enable(), in this task on PREEMPT_RT. */
static int feeder(void *arg)
{
	int f = (int)(long)arg;

	for (int i = 0; i < FEED_PACKETS; i += FEED_BATCH) {
		local_bh_disable();
		for (int j = i; j < i + FEED_BATCH && j < FEED_PACKETS; j++) {
			struct sk_buff *skb = &fl.skb[f][j];

			skb->receive = count_receive;
			skb->data = packet_flow(f, j) +
				    LAB10_FLOWS * packet_len(j);
			if (netif_rx(skb) != NET_RX_SUCCESS)
				atomic_inc(&fl.dropped);
		}
		local_bh_enable();
		yield();
	}
	return 0;
}

/* Inside the collection: on PREEMPT_RT, let this CPU's feeders run in
 * the middle of it. */
static void export_sum(int flow, unsigned long packets, unsigned long bytes,
		       void *arg)
{
	fl.packets[flow] += packets;
	fl.bytes[flow] += bytes;
	fl.exports++;
	if (RT_WORLD)
		yield();
}

static int collector(void *arg)
{
	while (!load_int(&fl.stop)) {
		lab10_flows_collect(export_sum, 0);
		yield();
	}
	return 0;
}

/* Two feeders and a collector on one CPU; every packet collected once,
 * in its flow, with its length. */
KTEST(lab10, flows_count_every_packet)
{
	int cpu = last_cpu();
	struct task_struct *feed[FEEDERS], *coll;
	unsigned long want_bytes[LAB10_FLOWS] = {0}, total = 0;

	fl = (typeof(fl)){0};
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	lab10_flows_collect(export_sum, 0); /* what earlier tests left */
	set_cpus_allowed(current, cpumask_of(0));
	fl = (typeof(fl)){0};
	coll = ktest_spawn(collector, 0, "lab10-collect", cpu, SCHED_NORMAL,
			   0, true);
	for (int f = 0; f < FEEDERS; f++)
		feed[f] = ktest_spawn(feeder, (void *)(long)f, "lab10-feed", cpu,
				      SCHED_NORMAL, 0, true);
	ktest_join_all(feed, FEEDERS);
	KEXPECT_TRUE(ktest_poll_until(atomic_read(&fl.received) +
					      atomic_read(&fl.dropped) >=
				      FEEDERS * FEED_PACKETS,
				      KTEST_WAIT_MS, POLL_SLEEP));
	store_int(&fl.stop, 1);
	ktest_join(coll);
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	lab10_flows_collect(export_sum, 0); /* the rest */
	set_cpus_allowed(current, cpumask_of(0));

	KEXPECT_EQ(atomic_read(&fl.dropped), 0);
	for (int f = 0; f < FEEDERS; f++)
		for (int i = 0; i < FEED_PACKETS; i++)
			want_bytes[packet_flow(f, i)] += packet_len(i);
	for (int flow = 0; flow < LAB10_FLOWS; flow++) {
		KEXPECT_EQ(fl.packets[flow], FEEDERS * FEED_PACKETS / LAB10_FLOWS);
		KEXPECT_EQ(fl.bytes[flow], want_bytes[flow]);
		total += fl.packets[flow];
	}
	ktest_log("%lu packets collected in %d exports", total, fl.exports);
}

/* ---- events ---- */

enum { EV_REQUEST = 1, EV_REPLY };

#define LOGGERS 2
#define DRAINERS 2
#define REQUESTS 48 /* per logger; with the replies, within LAB10_EVENTS */

static struct {
	int seen[LOGGERS * REQUESTS], replied[LOGGERS * REQUESTS];
	int strange;
	atomic_t replies;
	volatile int stop;
} ev;

/* A request is answered by a reply logged from the drain's fn(). */
static void handle(const struct lab10_event *e, void *arg)
{
	if (e->data < 0 || e->data >= LOGGERS * REQUESTS) {
		ev.strange++;
		return;
	}
	if (e->kind == EV_REQUEST) {
		ev.seen[e->data]++;
		if (RT_WORLD)
			yield();
		if (!lab10_event_log(EV_REPLY, e->data))
			ev.strange++;
	} else if (e->kind == EV_REPLY) {
		ev.replied[e->data]++;
		atomic_inc(&ev.replies);
	} else {
		ev.strange++;
	}
}

static void log_request(void *id)
{
	lab10_event_log(EV_REQUEST, (long)id);
}

/* Half of its requests from softirq context, half from a BH section. */
static int logger(void *arg)
{
	for (int i = 0; i < REQUESTS; i++) {
		long id = (long)arg * REQUESTS + i;

		if (i % 2) {
			ktest_in_softirq(log_request, (void *)id);
		} else {
			local_bh_disable();
			log_request((void *)id);
			local_bh_enable();
		}
		yield();
	}
	return 0;
}

static int drainer(void *arg)
{
	while (!load_int(&ev.stop)) {
		lab10_events_drain(handle, 0);
		yield();
	}
	return 0;
}

/* Two loggers and two drainers on one CPU: each request drained once and
 * answered once (a lost one would never be). The log is empty at the
 * end, as it was at the start. */
KTEST(lab10, events_drained_once_each)
{
	int cpu = last_cpu();
	struct task_struct *log[LOGGERS], *drain[DRAINERS];
	int once = 0;

	ev = (typeof(ev)){0};
	for (int i = 0; i < DRAINERS; i++)
		drain[i] = ktest_spawn(drainer, 0, "lab10-drain", cpu,
				       SCHED_NORMAL, 0, true);
	for (int i = 0; i < LOGGERS; i++)
		log[i] = ktest_spawn(logger, (void *)(long)i, "lab10-log", cpu,
				     SCHED_NORMAL, 0, true);
	ktest_join_all(log, LOGGERS);
	KEXPECT_TRUE(ktest_poll_until(atomic_read(&ev.replies) >=
					      LOGGERS * REQUESTS,
				      KTEST_WAIT_MS, POLL_SLEEP));
	store_int(&ev.stop, 1);
	ktest_join_all(drain, DRAINERS);

	for (int id = 0; id < LOGGERS * REQUESTS; id++)
		once += ev.seen[id] == 1 && ev.replied[id] == 1;
	KEXPECT_EQ(once, LOGGERS * REQUESTS);
	KEXPECT_EQ(ev.strange, 0);
}
