/*
 * Lab 10's per-CPU softirq users (docs/labs/lab10.md, docs/softirq.md):
 * flow statistics that the NET_RX softirq updates and a task collects,
 * and an event log that softirqs and tasks append to and a task drains.
 * Each was written for a kernel where "BHs off" meant "nothing else of
 * this CPU touches softirq data": true without PREEMPT_RT, and on
 * PREEMPT_RT as long as every BH section took the BH lock. Booted
 * without it (softirq.bh_lock=0), that is no longer so.
 */
#include <stdbool.h>

#include "bottom_half.h"
#include "lab10_users.h"
#include "local_lock.h"
#include "net/netdevice.h"
#include "percpu.h"

/* ---- flows: counted by NET_RX, collected by a task ---- */

struct flow_stats {
	/* LAB10 BEGIN */
	local_lock_t bh_lock;
	/* LAB10 END */
	unsigned long packets[LAB10_FLOWS], bytes[LAB10_FLOWS];
};

static DEFINE_PER_CPU(struct flow_stats, flow_stats) = {
	/* LAB10 BEGIN */
	.bh_lock = INIT_LOCAL_LOCK(bh_lock),
	/* LAB10 END */
};

void lab10_flow_receive(struct sk_buff *skb)
{
	int flow = skb->data % LAB10_FLOWS;
	unsigned long len = skb->data / LAB10_FLOWS;
	struct flow_stats *s;

	/* LAB10 BEGIN */
	local_lock_nested_bh(&flow_stats.bh_lock);
	s = this_cpu_ptr(&flow_stats);
	s->packets[flow]++;
	s->bytes[flow] += len;
	local_unlock_nested_bh(&flow_stats.bh_lock);
	/* LAB10 STUB: @flow_receive counted with BHs off, as NET_RX runs */
	/* LAB10 END */
}

unsigned long lab10_flows_collect(lab10_export_fn *export, void *arg)
{
	unsigned long total = 0;
	struct flow_stats *s;

	/* LAB10 BEGIN */
	local_bh_disable();
	local_lock_nested_bh(&flow_stats.bh_lock);
	s = this_cpu_ptr(&flow_stats);
	for (int f = 0; f < LAB10_FLOWS; f++) {
		export(f, s->packets[f], s->bytes[f], arg);
		total += s->packets[f];
		s->packets[f] = s->bytes[f] = 0;
	}
	local_unlock_nested_bh(&flow_stats.bh_lock);
	local_bh_enable();
	/* LAB10 STUB: @flows_collect handed on and reset with BHs off */
	/* LAB10 END */
	return total;
}

/* ---- events: logged in softirq context and BH sections, drained ---- */

/* head - tail events wait, at ev[tail % LAB10_EVENTS] onwards; both only
 * grow (unsigned: they wrap). */
struct event_log {
	/* LAB10 BEGIN */
	local_lock_t bh_lock;
	/* LAB10 END */
	unsigned int head, tail;
	struct lab10_event ev[LAB10_EVENTS];
};

static DEFINE_PER_CPU(struct event_log, event_log) = {
	/* LAB10 BEGIN */
	.bh_lock = INIT_LOCAL_LOCK(bh_lock),
	/* LAB10 END */
};

bool lab10_event_log(int kind, long data)
{
	struct event_log *l;
	bool room;

	/* LAB10 BEGIN */
	local_lock_nested_bh(&event_log.bh_lock);
	l = this_cpu_ptr(&event_log);
	room = l->head - l->tail < LAB10_EVENTS;
	if (room)
		l->ev[l->head++ % LAB10_EVENTS] = (struct lab10_event){kind, data};
	local_unlock_nested_bh(&event_log.bh_lock);
	/* LAB10 STUB: @event_log appended with BHs off */
	/* LAB10 END */
	return room;
}

/* LAB10 BEGIN */
/* Takes this CPU's oldest event into *ev; false when there is none. BHs
 * off. */
static bool event_take(struct lab10_event *ev)
{
	struct event_log *l;
	bool any;

	local_lock_nested_bh(&event_log.bh_lock);
	l = this_cpu_ptr(&event_log);
	any = l->tail != l->head;
	if (any)
		*ev = l->ev[l->tail++ % LAB10_EVENTS];
	local_unlock_nested_bh(&event_log.bh_lock);
	return any;
}

long lab10_events_drain(void (*fn)(const struct lab10_event *ev, void *arg),
			void *arg)
{
	struct lab10_event ev;
	long n = 0;

	/* The event is copied out, and the lock dropped, before fn() runs:
	 * fn() may log an event, which takes the lock. */
	local_bh_disable();
	while (event_take(&ev)) {
		fn(&ev, arg);
		n++;
	}
	local_bh_enable();
	return n;
}
/* LAB10 STUB: @events_drain handed on from the log with BHs off */
/* LAB10 END */
