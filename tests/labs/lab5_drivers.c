/*
 * Lab 5's drivers (docs/labs/lab5.md): seven small users of locks and
 * per-CPU data, each written the way drivers are, each run by one test
 * of tests/labs/lab5.c. In the lab's starter every one of them has one bug of
 * the kind the lock validator and the per-CPU checker exist to find, and
 * none of the bugs shows in a run: the results come out right, nothing
 * hangs. Only the validator's report gives each away. In the solution
 * tree the regions hold the fixed lines; in the lab's starter tree they
 * hold the buggy ones, between `LAB5: your code here` lines.
 */
#include <stdbool.h>

#include "irqflags.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab5_drivers.h"
#include "local_lock.h"
#include "mutex.h"
#include "percpu.h"
#include "preempt.h"
#include "sched.h"
#include "spinlock.h"
#include "uapi.h"

/* ---- devtable: devices in a table, each with a lock ---- */

#define DEV_COUNT 4
#define DEV_ROUNDS 100

struct lab5_dev {
	spinlock_t lock;
	long rx;                      /* bytes received; under lock */
};

static struct lab5_dev devs[DEV_COUNT];
static DEFINE_SPINLOCK(dev_table_lock);
static int dev_count;                 /* under dev_table_lock */
static long dev_total_rx;             /* under dev_table_lock */

static void dev_register(struct lab5_dev *d)
{
	spin_lock(&dev_table_lock);
	spin_lock(&d->lock);
	d->rx = 0;
	dev_count++;
	spin_unlock(&d->lock);
	spin_unlock(&dev_table_lock);
}

/* n bytes arrived at d: its count and the table's total. */
static void dev_receive(struct lab5_dev *d, long n)
{
	/* LAB5 BEGIN */
	spin_lock(&dev_table_lock);
	spin_lock(&d->lock);
	d->rx += n;
	dev_total_rx += n;
	spin_unlock(&d->lock);
	spin_unlock(&dev_table_lock);
	/* LAB5 STUB: @dev_receive the driver as its users reported it */
	/* LAB5 END */
}

long lab5_devtable_run(void)
{
	long sum = 0, want = 0;

	dev_count = 0;
	dev_total_rx = 0;
	for (int i = 0; i < DEV_COUNT; i++) {
		spin_lock_init(&devs[i].lock);
		dev_register(&devs[i]);
	}
	for (int round = 0; round < DEV_ROUNDS; round++)
		for (int i = 0; i < DEV_COUNT; i++)
			dev_receive(&devs[i], i + 1);
	for (int i = 0; i < DEV_COUNT; i++) {
		sum += devs[i].rx;
		want += DEV_ROUNDS * (i + 1);
	}
	return (dev_count != DEV_COUNT) + (sum != want) +
	       (dev_total_rx != want);
}

/* ---- pktstats: per-CPU packet statistics ---- */

#define PKT_SENDERS 2
#define PKT_ROUNDS 200
#define PKT_LEN 64

struct pkt_stats {
	local_lock_t lock;
	long packets, bytes;
};

static DEFINE_PER_CPU(struct pkt_stats, pkt_stats) = {
	.lock = INIT_LOCAL_LOCK(lock)};

/* One packet sent from this CPU. */
static void pkt_account(long len)
{
	/* LAB5 BEGIN */
	struct pkt_stats *s;

	local_lock(&pkt_stats.lock);
	s = this_cpu_ptr(&pkt_stats);
	s->packets++;
	s->bytes += len;
	local_unlock(&pkt_stats.lock);
	/* LAB5 STUB: @pkt_account this CPU's stats with nothing held */
	/* LAB5 END */
}

static int pkt_sender(void *arg)
{
	for (int i = 0; i < PKT_ROUNDS; i++)
		pkt_account(PKT_LEN);
	return 0;
}

/* Two senders on one CPU; then the totals, read by the test task alone. */
long lab5_pktstats_run(void)
{
	struct task_struct *t[PKT_SENDERS];
	long packets = 0, bytes = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		per_cpu(pkt_stats, cpu).packets = 0;
		per_cpu(pkt_stats, cpu).bytes = 0;
	}
	for (int i = 0; i < PKT_SENDERS; i++)
		t[i] = ktest_spawn(pkt_sender, 0, "pkt-sender", last_cpu(),
				   SCHED_NORMAL, 0, true);
	for (int i = 0; i < PKT_SENDERS; i++)
		ktest_join(t[i]);
	for_each_online_cpu(cpu) {
		packets += per_cpu(pkt_stats, cpu).packets;
		bytes += per_cpu(pkt_stats, cpu).bytes;
	}
	return (packets != PKT_SENDERS * PKT_ROUNDS) +
	       (bytes != PKT_SENDERS * PKT_ROUNDS * PKT_LEN);
}

/* ---- hwlog: device registers and a message log ---- */

#define HWLOG_SIZE 16
#define HWLOG_WRITES 40

static DEFINE_RAW_SPINLOCK(hw_lock);   /* the registers: never sleeps */
static DEFINE_SPINLOCK(hwlog_lock);    /* the log: sleeps on PREEMPT_RT */
static long hw_reg;                    /* under hw_lock */
static long hwlog[HWLOG_SIZE];         /* under hwlog_lock */
static int hwlog_len;                  /* under hwlog_lock */

/* Write v to the device and note it in the log. */
static void hw_write(long v)
{
	/* LAB5 BEGIN */
	raw_spin_lock(&hw_lock);
	hw_reg = v;
	raw_spin_unlock(&hw_lock);
	spin_lock(&hwlog_lock);
	hwlog[hwlog_len++ % HWLOG_SIZE] = v;
	spin_unlock(&hwlog_lock);
	/* LAB5 STUB: @hw_write sleeping log lock inside raw hw_lock */
	/* LAB5 END */
}

long lab5_hwlog_run(void)
{
	hwlog_len = 0;
	for (long v = 1; v <= HWLOG_WRITES; v++)
		hw_write(v);
	return (hw_reg != HWLOG_WRITES) + (hwlog_len != HWLOG_WRITES) +
	       (hwlog[(HWLOG_WRITES - 1) % HWLOG_SIZE] != HWLOG_WRITES);
}

/* ---- events: posted by an interrupt, drained by a task ---- */

#define EV_ROUNDS 50
#define EV_PER_ROUND 2

static DEFINE_RAW_SPINLOCK(ev_lock);
static long ev_pending;                /* under ev_lock */

/* The interrupt handler: one more event. */
static void ev_irq(void *arg)
{
	raw_spin_lock(&ev_lock);
	ev_pending++;
	raw_spin_unlock(&ev_lock);
}

/* Task context: take every pending event. */
static long ev_drain(void)
{
	/* LAB5 BEGIN */
	unsigned long flags;
	long n;

	raw_spin_lock_irqsave(&ev_lock, flags);
	n = ev_pending;
	ev_pending = 0;
	raw_spin_unlock_irqrestore(&ev_lock, flags);
	return n;
	/* LAB5 STUB: @ev_drain ev_lock taken with interrupts on */
	/* LAB5 END */
}

long lab5_events_run(void)
{
	long seen = 0;

	ev_pending = 0;
	for (int round = 0; round < EV_ROUNDS; round++) {
		for (int i = 0; i < EV_PER_ROUND; i++)
			ktest_in_hardirq(ev_irq, 0);
		seen += ev_drain();
	}
	return seen != EV_ROUNDS * EV_PER_ROUND;
}

/* ---- workqueue: per-CPU work queues ---- */

#define WQ_PRODUCERS 2
#define WQ_ITEMS 200

struct work_queue {
	spinlock_t lock;
	long items;                   /* under lock */
};

static DEFINE_PER_CPU(struct work_queue, work_queues);

/* Queue one item on a queue near the caller: its CPU's, usually. */
static void queue_item(void)
{
	/* LAB5 BEGIN */
	/* Which queue is only a hint (each has its own lock), and the task
	 * may move to another CPU right after: the unchecked read. */
	struct work_queue *q = per_cpu_ptr(&work_queues, raw_smp_processor_id());
	/* LAB5 STUB: struct work_queue *q = per_cpu_ptr(&work_queues, smp_processor_id()); */
	/* LAB5 END */

	spin_lock(&q->lock);
	q->items++;
	spin_unlock(&q->lock);
}

static int wq_producer(void *arg)
{
	for (int i = 0; i < WQ_ITEMS; i++) {
		queue_item();
		if (i % 32 == 0)
			yield();
	}
	return 0;
}

/* Unbound producers: on two or more CPUs they may run anywhere. */
long lab5_workqueue_run(void)
{
	struct task_struct *t[WQ_PRODUCERS];
	long items = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		struct work_queue *q = per_cpu_ptr(&work_queues, cpu);

		spin_lock_init(&q->lock);
		q->items = 0;
	}
	for (int i = 0; i < WQ_PRODUCERS; i++)
		t[i] = ktest_spawn(wq_producer, 0, "wq-producer", -1,
				   SCHED_NORMAL, 0, true);
	for (int i = 0; i < WQ_PRODUCERS; i++)
		ktest_join(t[i]);
	for_each_online_cpu(cpu)
		items += per_cpu_ptr(&work_queues, cpu)->items;
	return items != WQ_PRODUCERS * WQ_ITEMS;
}

/* ---- rxcount: a per-CPU count bumped by an interrupt ---- */

#define RX_ROUNDS 50
#define RX_PER_ROUND 3

static DEFINE_PER_CPU(long, rx_count);

/* The interrupt handler: one more frame on this CPU. */
static void rx_irq(void *arg)
{
	(*this_cpu_ptr(&rx_count))++;
}

/* Task context: take this CPU's count and start it again. */
static long rx_take(void)
{
	/* LAB5 BEGIN */
	unsigned long flags;
	long *c, n;

	local_irq_save(flags);
	c = this_cpu_ptr(&rx_count);
	n = *c;
	*c = 0;
	local_irq_restore(flags);
	return n;
	/* LAB5 STUB: @rx_take preemption off, interrupts on */
	/* LAB5 END */
}

static volatile long rx_seen;

/* On one CPU, so that the interrupts and the task meet on one copy. */
static int rx_task(void *arg)
{
	long seen = 0;

	for (int round = 0; round < RX_ROUNDS; round++) {
		for (int i = 0; i < RX_PER_ROUND; i++)
			ktest_in_hardirq(rx_irq, 0);
		seen += rx_take();
	}
	rx_seen = seen;
	return 0;
}

/* rx_count is not reset from here: an interrupt is never ordered after
 * a task (the checker would see the reset race with rx_irq()), and
 * every round of rx_task() leaves it at 0. */
long lab5_rxcount_run(void)
{
	rx_seen = 0;
	ktest_run_on(last_cpu(), rx_task, 0, "rx-task");
	return rx_seen != RX_ROUNDS * RX_PER_ROUND;
}

/* ---- config: a worker thread that applies a setting ---- */

static DEFINE_MUTEX(config_lock);
static int config_value;              /* under config_lock */

/* Apply the setting arg (negative: invalid, refused). */
static int config_worker(void *arg)
{
	long v = (long)arg;

	mutex_lock(&config_lock);
	if (v < 0) {
		/* LAB5 BEGIN */
		mutex_unlock(&config_lock);
		/* LAB5 END */
		return -EINVAL;
	}
	config_value = v;
	mutex_unlock(&config_lock);
	return 0;
}

/* A refused setting, then a good one; the lock must be free after each. */
long lab5_config_run(void)
{
	long wrong = 0;

	config_value = 0;
	wrong += ktest_run_on(0, config_worker, (void *)-1L, "config") !=
		 -EINVAL;
	if (!mutex_trylock(&config_lock))
		return wrong + 1;     /* still held: nobody may ever take it */
	mutex_unlock(&config_lock);
	wrong += ktest_run_on(0, config_worker, (void *)7L, "config") != 0;
	return wrong + (config_value != 7);
}
