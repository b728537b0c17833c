/*
 * Lab 7's per-CPU users (docs/labs/lab7.md, and docs/locks.md,
 * "local_lock_t" and "Converting a get_cpu_var() user to local_lock"):
 * four pieces of code written the classic way, with get_cpu_var() or
 * get_cpu() around their use of this CPU's data (and, for the one a hard
 * interrupt shares, interrupts off). That is correct without PREEMPT_RT
 * and wrong with it: every section keeps the more urgent tasks of its
 * CPU waiting, and three of them take a spinlock_t, a sleeping lock
 * there, with preemption or interrupts off. Each structure carries a
 * local_lock_t, initialised in its definition, and the lab converts the
 * users, as the RT developers converted Linux one user at a time; the
 * one whose data a hard interrupt shares cannot simply take it. What each user must guarantee, on RT=0 and on RT=1, is the
 * handout's contract; tests/labs/lab7.c checks it. In the lab's starter
 * tree the places marked `LAB7: your code here` hold the classic code.
 */
#include <stdbool.h>

#include "delay.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lab7_users.h"
#include "local_lock.h"
#include "percpu.h"
#include "sched.h"
#include "spinlock.h"
#include "time.h"
#include "timer.h"

/* ---- rx: per-CPU receive statistics, batches handed on ---- */

#define RX_SENDERS 2
#define RX_PACKETS 640
#define RX_BATCH 64
#define RX_LEN 100

struct rx_stats {
	local_lock_t lock;
	unsigned long packets, bytes;
};

static DEFINE_PER_CPU(struct rx_stats, lab7_rx_stats) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(rx_batch_lock);
static unsigned long rx_batches;       /* under rx_batch_lock */

/* Hand a full batch on to shared code: a spinlock_t, so it sleeps on
 * PREEMPT_RT. */
static void rx_hand_batch(void)
{
	spin_lock(&rx_batch_lock);
	rx_batches++;
	spin_unlock(&rx_batch_lock);
}

static void rx_account(unsigned long len)
{
	struct rx_stats *s;

	/* LAB7 BEGIN */
	local_lock(&lab7_rx_stats.lock);
	s = this_cpu_ptr(&lab7_rx_stats);
	/* LAB7 STUB: s = &get_cpu_var(lab7_rx_stats); */
	/* LAB7 END */
	s->packets++;
	s->bytes += len;
	if (s->packets % RX_BATCH == 0)
		rx_hand_batch();
	/* LAB7 BEGIN */
	local_unlock(&lab7_rx_stats.lock);
	/* LAB7 STUB: put_cpu_var(lab7_rx_stats); */
	/* LAB7 END */
}

static int rx_sender(void *arg)
{
	for (int i = 0; i < RX_PACKETS; i++) {
		rx_account(RX_LEN);
		if (i % 16 == 0)
			yield();
	}
	return 0;
}

long lab7_rx_run(void)
{
	struct task_struct *t[RX_SENDERS];
	unsigned long packets = 0, bytes = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		per_cpu(lab7_rx_stats, cpu).packets = 0;
		per_cpu(lab7_rx_stats, cpu).bytes = 0;
	}
	rx_batches = 0;
	for (int i = 0; i < RX_SENDERS; i++)
		t[i] = ktest_spawn(rx_sender, 0, "rx-sender", last_cpu(),
				   SCHED_NORMAL, 0, true);
	for (int i = 0; i < RX_SENDERS; i++)
		ktest_join(t[i]);
	for_each_online_cpu(cpu) {
		packets += per_cpu(lab7_rx_stats, cpu).packets;
		bytes += per_cpu(lab7_rx_stats, cpu).bytes;
	}
	return (packets != RX_SENDERS * RX_PACKETS) +
	       (bytes != RX_SENDERS * RX_PACKETS * RX_LEN) +
	       (rx_batches != RX_SENDERS * RX_PACKETS / RX_BATCH);
}

/* ---- objcache: per-CPU caches in front of a global pool ---- */

#define OBJ_TOTAL 64
#define OBJ_CACHE_MAX 8
#define OBJ_USERS 2
#define OBJ_ROUNDS 200
#define OBJ_HELD 3

struct obj_cache {
	local_lock_t lock;
	int nr;
	int slot[OBJ_CACHE_MAX];
};

static DEFINE_PER_CPU(struct obj_cache, obj_caches) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(obj_pool_lock);
static int obj_pool[OBJ_TOTAL];       /* under obj_pool_lock */
static int obj_pool_nr;               /* under obj_pool_lock */
static volatile bool obj_in_use[OBJ_TOTAL];
static volatile int obj_double;       /* a slot handed out twice */

static int pool_get(void)
{
	int id;

	spin_lock(&obj_pool_lock);
	id = obj_pool_nr ? obj_pool[--obj_pool_nr] : -1;
	spin_unlock(&obj_pool_lock);
	return id;
}

static void pool_put(int id)
{
	spin_lock(&obj_pool_lock);
	obj_pool[obj_pool_nr++] = id;
	spin_unlock(&obj_pool_lock);
}

/* A free slot from this CPU's cache, else from the pool; -1 if none. */
static int obj_alloc(void)
{
	/* LAB7 BEGIN */
	struct obj_cache *c;
	int id;

	local_lock(&obj_caches.lock);
	c = this_cpu_ptr(&obj_caches);
	/* LAB7 STUB: @obj_alloc the cache through get_cpu(), as before */
	/* LAB7 END */

	id = c->nr ? c->slot[--c->nr] : pool_get();
	/* LAB7 BEGIN */
	local_unlock(&obj_caches.lock);
	/* LAB7 STUB: put_cpu(); */
	/* LAB7 END */
	return id;
}

/* Back to this CPU's cache, or to the pool when the cache is full. */
static void obj_free(int id)
{
	/* LAB7 BEGIN */
	struct obj_cache *c;

	local_lock(&obj_caches.lock);
	c = this_cpu_ptr(&obj_caches);
	/* LAB7 STUB: @obj_free the cache through get_cpu(), as before */
	/* LAB7 END */

	if (c->nr < OBJ_CACHE_MAX)
		c->slot[c->nr++] = id;
	else
		pool_put(id);
	/* LAB7 BEGIN */
	local_unlock(&obj_caches.lock);
	/* LAB7 STUB: put_cpu(); */
	/* LAB7 END */
}

static int obj_user(void *arg)
{
	int held[OBJ_HELD];

	for (int round = 0; round < OBJ_ROUNDS; round++) {
		for (int i = 0; i < OBJ_HELD; i++) {
			held[i] = obj_alloc();
			if (held[i] < 0)
				continue;
			if (obj_in_use[held[i]])
				obj_double = 1;
			obj_in_use[held[i]] = true;
		}
		yield();
		for (int i = 0; i < OBJ_HELD; i++) {
			if (held[i] < 0)
				continue;
			obj_in_use[held[i]] = false;
			obj_free(held[i]);
		}
	}
	return 0;
}

/* Every slot is somewhere after the run: in the pool or in a cache. */
long lab7_objcache_run(void)
{
	struct task_struct *t[OBJ_USERS];
	int cpu, total;

	for_each_online_cpu(cpu)
		per_cpu(obj_caches, cpu).nr = 0;
	for (int i = 0; i < OBJ_TOTAL; i++) {
		obj_pool[i] = i;
		obj_in_use[i] = false;
	}
	obj_pool_nr = OBJ_TOTAL;
	obj_double = 0;
	for (int i = 0; i < OBJ_USERS; i++)
		t[i] = ktest_spawn(obj_user, 0, "obj-user", last_cpu(),
				   SCHED_NORMAL, 0, true);
	for (int i = 0; i < OBJ_USERS; i++)
		ktest_join(t[i]);
	total = obj_pool_nr;
	for_each_online_cpu(cpu)
		total += per_cpu(obj_caches, cpu).nr;
	return (total != OBJ_TOTAL) + obj_double;
}

/* ---- csum: a long section over this CPU's buffer ---- */

#define CSUM_BLOCKS 4
#define CSUM_WORDS 16

struct csum_buf {
	local_lock_t lock;
	unsigned long word[CSUM_BLOCKS][CSUM_WORDS];
};

static DEFINE_PER_CPU(struct csum_buf, csum_bufs) = {
	.lock = INIT_LOCAL_LOCK(lock)};

long lab7_csum_run(void (*poll)(void *), void *arg, unsigned long *sum)
{
	const unsigned long n = CSUM_BLOCKS * CSUM_WORDS;
	struct csum_buf *b;
	unsigned long s = 0;

	/* LAB7 BEGIN */
	local_lock(&csum_bufs.lock);
	b = this_cpu_ptr(&csum_bufs);
	/* LAB7 STUB: b = &get_cpu_var(csum_bufs); */
	/* LAB7 END */
	for (int i = 0; i < CSUM_BLOCKS; i++) {
		for (int j = 0; j < CSUM_WORDS; j++) {
			b->word[i][j] = i * CSUM_WORDS + j; /* the device's */
			s += b->word[i][j];
		}
		poll(arg);
	}
	/* LAB7 BEGIN */
	local_unlock(&csum_bufs.lock);
	/* LAB7 STUB: put_cpu_var(csum_bufs); */
	/* LAB7 END */
	*sum = s;
	return s != n * (n - 1) / 2;
}

/* ---- irqstat: per-CPU counts a hard interrupt updates too ---- */

#define IRQ_EVENTS 400
#define IRQ_BATCH 32
#define IRQ_PERIOD_NS 100000

struct irq_stats {
	local_lock_t lock;
	/* Events of this CPU: the task's and the interrupt's. */
	unsigned long events;
	/* The task's events since its last batch was handed on. */
	unsigned long since_batch;
};

static DEFINE_PER_CPU(struct irq_stats, lab7_irq_stats) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_SPINLOCK(irq_batch_lock);
static unsigned long irq_batches;     /* under irq_batch_lock */
static struct timer_list irq_timer;
static volatile int irq_hits;         /* the timer's calls */

/* The device's hard interrupt (a hard timer here): one event on this
 * CPU's copy. */
static void irq_tick(struct timer_list *t)
{
	this_cpu_ptr(&lab7_irq_stats)->events++;
	irq_hits++;
}

static void irq_hand_batch(void)
{
	spin_lock(&irq_batch_lock);
	irq_batches++;
	spin_unlock(&irq_batch_lock);
}

/* One event of the task's; every IRQ_BATCH of them a batch is handed on
 * under a spinlock_t. */
static void irq_account(void)
{
	/* LAB7 BEGIN */
	struct irq_stats *s;
	unsigned long flags;
	bool hand;

	/* The interrupt updates events too: interrupts off around the
	 * update, in both worlds; the spinlock_t after they are back on. */
	local_irq_save(flags);
	s = this_cpu_ptr(&lab7_irq_stats);
	s->events++;
	hand = ++s->since_batch == IRQ_BATCH;
	if (hand)
		s->since_batch = 0;
	local_irq_restore(flags);
	if (hand)
		irq_hand_batch();
	/* LAB7 STUB: @irq_account get_cpu_var(), IRQs off around it all */
	/* LAB7 END */
}

/* Timers may not re-arm themselves while they run: the task arms the
 * next once the last has fired. */
static void irq_arm(void)
{
	if (READ_ONCE(irq_timer.cpu) < 0)
		add_timer(&irq_timer, ktime_get_ns() + IRQ_PERIOD_NS);
}

/* This CPU's counts: read with interrupts off, the timer's too. */
static unsigned long irq_events_here(bool reset)
{
	struct irq_stats *s;
	unsigned long flags, n;

	local_irq_save(flags);
	s = this_cpu_ptr(&lab7_irq_stats);
	n = s->events;
	if (reset)
		s->events = s->since_batch = 0;
	local_irq_restore(flags);
	return n;
}

static struct {
	unsigned long events;  /* the CPU's count after the run */
} irq_run;

/* The task's events, the timer armed all along; every 16th event waits
 * for the interrupt to have come, so that it comes between the task's
 * updates however fast the host runs the loop (at least 25 times). */
static int irq_sender(void *arg)
{
	irq_events_here(true);
	for (int i = 0; i < IRQ_EVENTS; i++) {
		int hits = irq_hits;

		irq_account();
		irq_arm();
		if (i % 16 == 15)
			ktest_helper_wait(irq_hits != hits, POLL_SPIN);
		else
			udelay(5);
	}
	del_timer(&irq_timer);
	irq_run.events = irq_events_here(false);
	return 0;
}

long lab7_irqstat_run(void)
{
	irq_batches = 0;
	irq_hits = 0;
	irq_run.events = 0;
	timer_setup_hard(&irq_timer, irq_tick);
	ktest_join(ktest_spawn(irq_sender, 0, "irq-sender", last_cpu(),
			       SCHED_NORMAL, 0, true));
	ktest_log("%d events from the interrupt", irq_hits);
	return (irq_run.events != IRQ_EVENTS + (unsigned long)irq_hits) +
	       (irq_batches != IRQ_EVENTS / IRQ_BATCH) +
	       (irq_hits < IRQ_EVENTS / 16);
}
