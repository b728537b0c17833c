/*
 * Kernel threads: creation, exit, join, and freeing what a dead task
 * leaves behind. A task is referenced twice, by itself until it has
 * switched out for the last time and by its creator until kthread_join();
 * the last reference frees it, at once when that happens in preemptible
 * task context, else (in the switch, interrupts off) through the reaper
 * thread, because freeing a stack needs every CPU's TLB flushed and may
 * wait for the stack drainer.
 */
#include "compiler.h"
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "locking/rtmutex.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "printk.h"
#include "mm/stack.h"
#include "rcu/rcutree.h"
#include "string.h"
#include "vsprintf.h"
#include "sched/wait.h"
#include "asm/stacktrace.h"
#include "asm/switch_to.h"

static DEFINE_RAW_SPINLOCK(tasklist_lock);
static LIST_HEAD(all_tasks);         /* under tasklist_lock */
static int next_task_id;

static DEFINE_RAW_SPINLOCK(reap_lock);
static LIST_HEAD(reap_list);         /* under reap_lock */
static DECLARE_WAIT_QUEUE_HEAD(reap_wq);
static struct task_struct *reaper;

static void tasklist_add(struct task_struct *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tasklist_lock, flags);
	t->pid = ++next_task_id;
	list_add_tail(&t->tasks, &all_tasks);
	raw_spin_unlock_irqrestore(&tasklist_lock, flags);
}

/*
 * A task struct goes back to kmalloc when its last reference goes. One
 * reader holds no reference: a lock spinner that reads the owner's
 * on_cpu (rtmutex_spin.c); it publishes the task it reads, and the free
 * waits until no CPU does.
 */
static struct task_struct *task_struct_alloc(void)
{
	return kzalloc(sizeof(struct task_struct));
}

static void task_struct_free(struct task_struct *t)
{
	rt_mutex_spin_forget(t);
	kfree(t);
}

static void task_free(struct task_struct *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tasklist_lock, flags);
	list_del_init(&t->tasks);
	raw_spin_unlock_irqrestore(&tasklist_lock, flags);
	kstack_free(t->stack);
	task_struct_free(t);
}

static struct task_struct *task_alloc(const char *name)
{
	struct task_struct *t = task_struct_alloc();

	if (!t)
		return 0;
	if (!(t->stack = kstack_alloc())) {
		task_struct_free(t);
		return 0;
	}
	strlcpy(t->comm, name, sizeof(t->comm));
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->reap);
	INIT_LIST_HEAD(&t->pi_locks);
	INIT_LIST_HEAD(&t->rcu_node_entry);
	t->policy = SCHED_NORMAL;
	t->prio = t->normal_prio = NORMAL_PRIO;
	t->time_slice = NORMAL_TIMESLICE_TICKS;
	cpumask_copy(&t->cpus_mask, cpu_possible_mask);
	t->nr_cpus_allowed = cpumask_weight(cpu_possible_mask);
	t->cpu = raw_smp_processor_id();
	refcount_set(&t->usage, 2);
	tasklist_add(t);
	return t;
}

struct task_struct *idle_task_alloc(int cpu)
{
	struct task_struct *t = kzalloc(sizeof(*t));

	if (!t)
		panic("sched: no memory for CPU %d's idle task", cpu);
	snprintf(t->comm, sizeof(t->comm), "idle/%d", cpu);
	INIT_LIST_HEAD(&t->run_list);
	INIT_LIST_HEAD(&t->reap);
	INIT_LIST_HEAD(&t->pi_locks);
	INIT_LIST_HEAD(&t->rcu_node_entry);
	refcount_set(&t->usage, 1);
	tasklist_add(t);
	return t;
}

__noreturn static void kthread_entry(struct task_struct *prev);

struct task_struct *kthread_create(int (*fn)(void *arg), void *arg, const char *name)
{
	struct task_struct *t = task_alloc(name);

	if (!t)
		return 0;
	t->fn = fn;
	t->arg = arg;
	WRITE_ONCE(t->__state, TASK_NEW);
	/* First switched to with the count __schedule() holds; its
	 * finish_task_switch() and kthread_entry() drop it. */
	t->saved_preempt_count = 1;
	t->saved_sp = arch_setup_task_stack((char *)t->stack + KSTACK_SIZE,
					    kthread_entry);
	return t;
}

struct task_struct *kthread_create_on_cpu(int (*fn)(void *arg), void *arg, int cpu,
				   const char *name)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t) {
		kthread_bind(t, cpu);
		t->per_cpu_kthread = true;
	}
	return t;
}

/* ---- parking per-CPU threads while their CPU is away ---- */

static DECLARE_WAIT_QUEUE_HEAD(park_wq); /* kthread_park() waits here */

bool kthread_should_park(void)
{
	return __atomic_load_n(&current->should_park, __ATOMIC_ACQUIRE);
}

/* Sleep until unparked; the first time round, tell kthread_park(). */
void kthread_parkme(void)
{
	struct task_struct *self = current;

	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (!kthread_should_park())
			break;
		if (!self->parked) {
			__atomic_store_n(&self->parked, true, __ATOMIC_RELEASE);
			wake_up(&park_wq);
		}
		schedule();
	}
	set_current_state(TASK_RUNNING);
}

/* Returns once t has said it parks; it is off its CPU's queue soon after
 * (sched_cpu_wait_empty waits for that). A thread asleep elsewhere
 * parks at its next look at kthread_should_park(). */
void kthread_park(struct task_struct *t)
{
	__atomic_store_n(&t->should_park, true, __ATOMIC_RELEASE);
	wake_up_process(t);
	wait_event(park_wq, __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE));
}

/* Let t go on, on its CPU. A thread whose CPU is gone (it is being
 * stopped) stops being a per-CPU thread and may run anywhere. */
void kthread_unpark(struct task_struct *t)
{
	if (t->per_cpu_kthread && !cpu_online(task_cpu(t))) {
		t->per_cpu_kthread = false;
		set_cpus_allowed(t, cpu_possible_mask);
	}
	/* In this order: once should_park reads false, kthread_parkme()
	 * sets parked no more, so the clear below is the last word. */
	__atomic_store_n(&t->should_park, false, __ATOMIC_RELEASE);
	__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
	wake_up_process(t);
}

struct task_struct *kthread_run(int (*fn)(void *arg), void *arg, const char *name)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t)
		wake_up_process(t);
	return t;
}

/* Every new task starts here (from task_entry in switch.asm), with the
 * task it was switched from as prev. */
__noreturn static void kthread_entry(struct task_struct *prev)
{
	finish_task_switch(prev);
	local_irq_enable();
	preempt_enable(); /* a wakeup made meanwhile may preempt us now */
	kthread_exit(current->fn(current->arg));
}

__noreturn void kthread_exit(int code)
{
	struct task_struct *t = current;

	t->exit_code = code;
	lockdep_task_exit();
	exit_rcu();
	/* The joiner is woken once we are off the CPU for good
	 * (put_dead_task), when our stack may be freed. */
	set_current_state(TASK_DEAD);
	schedule();
	panic("kthread_exit: dead task %s/%d ran again", t->comm, t->pid);
}

/* t->joiner once the dead task has looked for its joiner: a joiner that
 * comes later must not wait for a wakeup that will not come. */
#define JOINER_TOO_LATE ((struct task_struct *)1)

/* From finish_task_switch(): a dead task has switched out for the last
 * time. Take the joiner (marking it taken, atomically, so a joiner cannot
 * slip in unseen), drop the task's own reference, then wake the joiner,
 * which frees the task. */
void put_dead_task(struct task_struct *t)
{
	struct task_struct *joiner = __atomic_exchange_n(&t->joiner, JOINER_TOO_LATE,
						  __ATOMIC_SEQ_CST);

	put_task_struct(t);
	if (joiner)
		wake_up_process(joiner);
}

void put_task_struct(struct task_struct *t)
{
	unsigned long flags;

	if (!refcount_dec_and_test(&t->usage))
		return;
	if (preemptible()) { /* freeing a stack may sleep */
		task_free(t);
		return;
	}
	raw_spin_lock_irqsave(&reap_lock, flags);
	list_add_tail(&t->reap, &reap_list);
	raw_spin_unlock_irqrestore(&reap_lock, flags);
	wake_up(&reap_wq);
}

void kthread_detach(struct task_struct *t)
{
	put_task_struct(t);
}

int kthread_join(struct task_struct *t)
{
	struct task_struct *none = 0;
	int code;

	/* Publish ourselves; if the dead task already took its look, its
	 * reference goes in a few instructions on its CPU: wait for that. */
	if (!__atomic_compare_exchange_n(&t->joiner, &none, current, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (WARN_ON(none != JOINER_TOO_LATE))
			return -1; /* one joiner per task */
		while (refcount_read(&t->usage) > 1)
			cpu_relax();
	}
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		if (refcount_read(&t->usage) == 1)
			break;
		schedule();
	}
	set_current_state(TASK_RUNNING);
	lockdep_hb_join(t); /* everything t did happens before our return */
	code = t->exit_code;
	put_task_struct(t);
	return code;
}

static bool reap_pending(void)
{
	return !list_empty(&reap_list);
}

/* Frees tasks whose last reference went in the switch (never joined). */
static int reaper_fn(void *arg)
{
	for (;;) {
		unsigned long flags;
		struct task_struct *t = 0;

		wait_event(reap_wq, reap_pending());
		raw_spin_lock_irqsave(&reap_lock, flags);
		if (!list_empty(&reap_list)) {
			t = list_first_entry(&reap_list, struct task_struct, reap);
			list_del_init(&t->reap);
		}
		raw_spin_unlock_irqrestore(&reap_lock, flags);
		if (t)
			task_free(t);
	}
	return 0;
}

void kthread_init(void)
{
	reaper = kthread_run(reaper_fn, 0, "reaper");
	if (!reaper)
		panic("kthread: cannot start the reaper");
	kthread_detach(reaper);
}

static const char *state_name(int state)
{
	switch (state) {
	case TASK_RUNNING:
		return "R";
	case TASK_INTERRUPTIBLE:
		return "S";
	case TASK_UNINTERRUPTIBLE:
		return "D";
	case TASK_DEAD:
		return "X";
	default:
		return "N";
	}
}

/* The stack of a task that is switched out, from its saved frame. */
void show_task_stack(struct task_struct *t)
{
	if (t->on_cpu || READ_ONCE(t->__state) == TASK_NEW || !t->saved_sp) {
		printk("  (running, or never ran: no saved stack)\n");
		return;
	}
	show_stack_switched(t->saved_sp);
}

/* Every task, its state and CPU, and the stack of each sleeping one. */
void sched_show_all(void)
{
	unsigned long flags = console_lock();
	struct task_struct *t;

	raw_spin_lock(&tasklist_lock);
	list_for_each_entry(t, &all_tasks, tasks) {
		printk("task %-15s id %-4d state %s cpu %d prio %d%s%s\n",
		       t->comm, t->pid, state_name(READ_ONCE(t->__state)), task_cpu(t),
		       task_prio(t), t->on_cpu ? " running" : "",
		       t->migration_disabled ? " migrate-disabled" : "");
		if (!t->on_cpu && !task_is_running(t))
			show_task_stack(t);
	}
	raw_spin_unlock(&tasklist_lock);
	console_unlock(flags);
}
