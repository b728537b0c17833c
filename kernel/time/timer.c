/*
 * Timers (see timer.h) and sleeping. Each CPU keeps its pending timers in
 * a list sorted by expiry under its own lock, so the timer interrupt only
 * looks at the head. The interrupt runs the expired hard timers there,
 * under that lock, and moves the others to the base's expired list for
 * the TIMER softirq, which runs each with the lock dropped and interrupts
 * on, naming it the base's running_timer meanwhile. del_timer() waits
 * while its timer runs: on the lock for a hard one, on running_timer for
 * the others (on PREEMPT_RT by taking the base's expiry_lock, a sleeping
 * lock the softirq holds while it runs timers, so that the waiter boosts
 * a preempted softirq instead of spinning against it, as Linux's
 * timer_delete_sync()). When a CPU goes offline its pending timers move
 * to the CPU that took it down.
 */
#include "time/timer.h"
#include "interrupt.h"
#include "panic.h"
#include "percpu.h"
#include "sched/sched.h"
#include "locking/spinlock.h"
#include "time/time.h"

/* Reached with the unchecked raw_*_ptr accessors: a base is protected by
 * its own lock, taken after the pointer to it is formed. */
struct timer_base {
	raw_spinlock_t lock;
	struct list_head pending;    /* sorted by expires */
	struct list_head expired;    /* soft, for the TIMER softirq */
	struct timer_list *running_timer; /* a soft one's function runs */
	struct task_struct *running_task; /* ... in this task */
	spinlock_t expiry_lock;      /* PREEMPT_RT: held while soft run */
};

static DEFINE_PER_CPU_UNCHECKED(struct timer_base, timer_bases);

static void run_timer_softirq(void);

void timers_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct timer_base *base = raw_per_cpu_ptr(&timer_bases, cpu);

		raw_spin_lock_init(&base->lock);
		spin_lock_init(&base->expiry_lock);
		INIT_LIST_HEAD(&base->pending);
		INIT_LIST_HEAD(&base->expired);
	}
	open_softirq(TIMER_SOFTIRQ, run_timer_softirq);
}

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t))
{
	INIT_LIST_HEAD(&t->entry);
	t->function = fn;
	t->cpu = -1;
	t->hard = false;
}

void timer_setup_hard(struct timer_list *t, void (*fn)(struct timer_list *t))
{
	timer_setup(t, fn);
	t->hard = true;
}

/* Queue t on base (locked), in expiry order, as a timer of cpu. */
static void enqueue_timer(struct timer_base *base, struct timer_list *t,
			  int cpu)
{
	struct timer_list *pos;

	list_for_each_entry(pos, &base->pending, entry)
		if (pos->expires > t->expires)
			break;
	list_add_tail(&t->entry, &pos->entry); /* before the later one */
	/* del_timer() reads it unlocked, then locks that CPU's base. */
	smp_store_release(&t->cpu, cpu);
}

void add_timer(struct timer_list *t, uint64_t expires)
{
	unsigned long flags;
	struct timer_base *base;

	local_irq_save(flags); /* this CPU's base, and no tick in between */
	base = raw_cpu_ptr(&timer_bases);
	raw_spin_lock(&base->lock);
	t->expires = expires;
	enqueue_timer(base, t, raw_smp_processor_id());
	raw_spin_unlock(&base->lock);
	tick_event_before(expires);
	local_irq_restore(flags);
}

/* Wait until base's softirq is done with t's function: on PREEMPT_RT by
 * the expiry lock (the softirq may be preempted: its task is boosted),
 * else it runs on another CPU and ends on its own. */
static void wait_running_timer(struct timer_base *base)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		/* BHs off, as Linux's spin_lock_bh(): the softirq takes it. */
		local_bh_disable();
		spin_lock(&base->expiry_lock);
		spin_unlock(&base->expiry_lock);
		local_bh_enable();
	} else {
		cpu_relax();
	}
}

bool del_timer(struct timer_list *t)
{
	unsigned long flags;
	bool queued = false;

	for (;;) {
		int cpu = smp_load_acquire(&t->cpu);
		struct timer_base *base;
		bool running = false;

		if (cpu < 0)
			return queued;
		base = raw_per_cpu_ptr(&timer_bases, cpu);
		raw_spin_lock_irqsave(&base->lock, flags);
		if (t->cpu == cpu) {
			if (!list_empty(&t->entry)) {
				list_del_init(&t->entry);
				queued = true;
			}
			running = base->running_timer == t &&
				  base->running_task != current;
			if (!running) /* from its own function: stays -1 */
				WRITE_ONCE(t->cpu, -1);
		}
		raw_spin_unlock_irqrestore(&base->lock, flags);
		if (queued && !running)
			return true;
		if (running)
			wait_running_timer(base);
		else if (READ_ONCE(t->cpu) < 0)
			return queued;
	}
}

void run_local_timers(void)
{
	struct timer_base *base = raw_cpu_ptr(&timer_bases);
	uint64_t now = ktime_get_ns();
	bool soft = false;

	raw_spin_lock(&base->lock);
	while (!list_empty(&base->pending)) {
		struct timer_list *t = list_first_entry(&base->pending,
						       struct timer_list, entry);

		if (t->expires > now)
			break;
		if (!t->hard) {
			list_move_tail(&t->entry, &base->expired);
			soft = true;
			continue;
		}
		list_del_init(&t->entry);
		t->function(t);
		/* Only now: del_timer() waits on this lock while t->cpu names
		 * this CPU, so it cannot return while the function runs. */
		smp_store_release(&t->cpu, -1);
	}
	raw_spin_unlock(&base->lock);
	if (soft)
		__raise_softirq_irqoff(TIMER_SOFTIRQ); /* on this irq's exit */
}

/* The TIMER softirq (Linux's run_timer_softirq()): this CPU's expired
 * soft timers, each with the base unlocked. Softirq context keeps us on
 * this CPU. */
static void run_timer_softirq(void)
{
	struct timer_base *base = raw_cpu_ptr(&timer_bases);
	int cpu = raw_smp_processor_id();

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_lock(&base->expiry_lock);
	raw_spin_lock_irq(&base->lock);
	while (!list_empty(&base->expired)) {
		struct timer_list *t = list_first_entry(&base->expired,
						       struct timer_list, entry);

		list_del_init(&t->entry);
		base->running_timer = t;
		base->running_task = current;
		raw_spin_unlock_irq(&base->lock);
		t->function(t);
		raw_spin_lock_irq(&base->lock);
		base->running_timer = 0;
		base->running_task = 0;
		/* Re-armed by its function (queued again), or still ours. */
		if (list_empty(&t->entry) && t->cpu == cpu)
			smp_store_release(&t->cpu, -1);
	}
	raw_spin_unlock_irq(&base->lock);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		spin_unlock(&base->expiry_lock);
}

/* Hotplug (kernel/cpu.c): a CPU comes up with no timers... */
int timers_prepare_cpu(unsigned int cpu)
{
	WARN_ON(!list_empty(&raw_per_cpu_ptr(&timer_bases, cpu)->pending) ||
		!list_empty(&raw_per_cpu_ptr(&timer_bases, cpu)->expired));
	return 0;
}

/* Each timer of list to new (both bases locked), as here's. */
static void move_timers(struct list_head *list, struct timer_base *new,
			int here)
{
	while (!list_empty(list)) {
		struct timer_list *t = list_first_entry(list, struct timer_list,
						       entry);

		list_del_init(&t->entry);
		enqueue_timer(new, t, here);
	}
}

/* ...and the timers of one that has parked move here, in the controlling
 * CPU's task context, to fire when they would have. Nobody else holds
 * two bases, so taking the dead CPU's second (nested) cannot deadlock. */
int timers_dead_cpu(unsigned int cpu)
{
	struct timer_base *old = raw_per_cpu_ptr(&timer_bases, cpu), *new;
	unsigned long flags;
	uint64_t first = ~0ul;
	int here;

	local_irq_save(flags); /* "here" stays here until the timer is armed */
	here = raw_smp_processor_id();
	new = raw_per_cpu_ptr(&timer_bases, here);
	raw_spin_lock(&new->lock);
	raw_spin_lock_nested(&old->lock, 1);
	move_timers(&old->pending, new, here);
	move_timers(&old->expired, new, here);
	if (!list_empty(&new->pending))
		first = list_first_entry(&new->pending, struct timer_list,
					 entry)->expires;
	raw_spin_unlock(&old->lock);
	raw_spin_unlock(&new->lock);
	if (first != ~0ul)
		tick_event_before(first);
	local_irq_restore(flags);
	return 0;
}

uint64_t timers_next_expiry(void)
{
	struct timer_base *base = raw_cpu_ptr(&timer_bases);
	uint64_t when = ~0ul;

	raw_spin_lock(&base->lock);
	if (!list_empty(&base->pending))
		when = list_first_entry(&base->pending, struct timer_list,
					entry)->expires;
	raw_spin_unlock(&base->lock);
	return when;
}

/* ---- sleeping ---- */

struct sleeper {
	struct timer_list timer;
	struct task_struct *task;
};

static void sleeper_wake(struct timer_list *t)
{
	struct sleeper *s = (struct sleeper *)t;

	wake_up_process(s->task);
}

/* The caller has set its state (TASK_UNINTERRUPTIBLE, or as wait.h does);
 * returns the nanoseconds left when woken early, else 0. */
uint64_t schedule_timeout(uint64_t timeout_ns)
{
	struct sleeper s = {.task = current};
	uint64_t expires = ktime_get_ns() + timeout_ns, now;

	/* Hard, as Linux's hrtimer sleepers on PREEMPT_RT: a wake-up must
	 * not wait for a softirq thread that RT tasks keep off the CPU. */
	timer_setup_hard(&s.timer, sleeper_wake);
	add_timer(&s.timer, expires);
	schedule();
	del_timer(&s.timer);
	now = ktime_get_ns();
	return now < expires ? expires - now : 0;
}

static void sleep_ns(uint64_t ns)
{
	uint64_t end = ktime_get_ns() + ns, now;

	might_sleep();
	while ((now = ktime_get_ns()) < end) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_timeout(end - now);
	}
}

void msleep(unsigned long ms)
{
	sleep_ns((uint64_t)ms * 1000000);
}

void usleep(unsigned long us)
{
	sleep_ns((uint64_t)us * 1000);
}
