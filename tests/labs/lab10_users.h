/*
 * Lab 10's per-CPU softirq users (tests/labs/lab10_users.c,
 * docs/labs/lab10.md): two structures of this CPU that softirq context
 * and tasks with BHs off share, as Linux's softirq users shared theirs
 * before the BH lock could go.
 */
#ifndef LAB10_USERS_H
#define LAB10_USERS_H

#include <stdbool.h>

struct sk_buff;

/* Flows a buffer can belong to. A buffer's data is
 * flow + LAB10_FLOWS * length. */
#define LAB10_FLOWS 8

/* A buffer's receive function (sk_buff.receive), called by NET_RX on the
 * CPU whose backlog it was queued on: counts it in that CPU's flow
 * statistics. */
void lab10_flow_receive(struct sk_buff *skb);

/* What a collection hands on for one flow. */
typedef void lab10_export_fn(int flow, unsigned long packets,
			     unsigned long bytes, void *arg);

/* From a task with BHs on: hands this CPU's count of each flow to
 * export(), flow 0 first, and resets the counts, so that every buffer
 * received is handed on once, by one collection. export() is called
 * inside the collection, with this CPU's flows kept from every other
 * user (as a device's statistics are read out while they cannot move);
 * it must not receive buffers or collect. Returns the packets handed
 * on. */
unsigned long lab10_flows_collect(lab10_export_fn *export, void *arg);

/* An event of this CPU's event log. */
struct lab10_event {
	int kind;
	long data;
};

/* Size of a CPU's log: events logged and not yet drained. */
#define LAB10_EVENTS 256

/* Logs an event on this CPU, in softirq context or with BHs off. False,
 * and the event dropped, when the log is full. */
bool lab10_event_log(int kind, long data);

/* From a task with BHs on: hands each of this CPU's logged events to
 * fn(), each to one drain only, until the log is empty; a drain takes
 * the oldest event left each time (two drains of a CPU share the events
 * out). fn() runs with BHs off, as in softirq context, and may log
 * events, which this drain hands on too. Returns the events handed on. */
long lab10_events_drain(void (*fn)(const struct lab10_event *ev, void *arg),
			void *arg);

#endif
