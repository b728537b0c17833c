/*
 * Timers (see timer.h) and sleeping. Each CPU keeps its pending timers in
 * a list sorted by expiry under its own lock, so the timer interrupt only
 * looks at the head. A timer's function runs with that lock held: del_timer(),
 * which takes the same lock, then knows the function is not running, and
 * a timer on the sleeper's stack can go away safely. When a CPU goes
 * offline its pending timers move to the CPU that took it down.
 */
#include "time/timer.h"
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
};

static DEFINE_PER_CPU_UNCHECKED(struct timer_base, timer_bases);

void timers_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct timer_base *base = raw_per_cpu_ptr(&timer_bases, cpu);

		raw_spin_lock_init(&base->lock);
		INIT_LIST_HEAD(&base->pending);
	}
}

void timer_setup(struct timer_list *t, void (*fn)(struct timer_list *t))
{
	INIT_LIST_HEAD(&t->entry);
	t->function = fn;
	t->cpu = -1;
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

bool del_timer(struct timer_list *t)
{
	unsigned long flags;
	bool queued = false;

	local_irq_save(flags);
	for (;;) {
		int cpu = smp_load_acquire(&t->cpu);
		struct timer_base *base;

		if (cpu < 0)
			break;
		base = raw_per_cpu_ptr(&timer_bases, cpu);
		raw_spin_lock(&base->lock);
		if (t->cpu == cpu) {
			list_del_init(&t->entry);
			WRITE_ONCE(t->cpu, -1);
			queued = true;
		}
		raw_spin_unlock(&base->lock);
		if (queued || READ_ONCE(t->cpu) < 0)
			break;
	}
	local_irq_restore(flags);
	return queued;
}

void run_local_timers(void)
{
	struct timer_base *base = raw_cpu_ptr(&timer_bases);
	uint64_t now = ktime_get_ns();

	raw_spin_lock(&base->lock);
	while (!list_empty(&base->pending)) {
		struct timer_list *t = list_first_entry(&base->pending,
						       struct timer_list, entry);

		if (t->expires > now)
			break;
		list_del_init(&t->entry);
		t->function(t);
		/* Only now: del_timer() waits on this lock while t->cpu names
		 * this CPU, so it cannot return while the function runs. */
		smp_store_release(&t->cpu, -1);
	}
	raw_spin_unlock(&base->lock);
}

/* Hotplug (kernel/cpu.c): a CPU comes up with no timers... */
int timers_prepare_cpu(unsigned int cpu)
{
	WARN_ON(!list_empty(&raw_per_cpu_ptr(&timer_bases, cpu)->pending));
	return 0;
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
	while (!list_empty(&old->pending)) {
		struct timer_list *t = list_first_entry(&old->pending,
						       struct timer_list, entry);

		list_del_init(&t->entry);
		enqueue_timer(new, t, here);
	}
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

	timer_setup(&s.timer, sleeper_wake);
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
