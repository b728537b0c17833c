/*
 * Kernel threads: creation, exit, join, and freeing what a dead task
 * leaves behind. A task is referenced twice, by itself until it has
 * switched out for the last time and by its creator until kthread_join();
 * the last reference frees it, a grace period later (call_rcu()), so
 * that whoever looks at a task inside an RCU reader without a reference
 * never finds its memory gone (docs/rcu.md, section 7).
 */
#include "compiler.h"
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "locking/rtmutex.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "printk.h"
#include "mm/stack.h"
#include "rcu/rcupdate.h"
#include "rcu/rcutree.h"
#include "string.h"
#include "vsprintf.h"
#include "sched/wait.h"
#include "asm/stacktrace.h"
#include "asm/switch_to.h"

static DEFINE_RAW_SPINLOCK(tasklist_lock);
static LIST_HEAD(all_tasks);         /* under tasklist_lock */
static int next_task_id;

static void tasklist_add(struct task_struct *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tasklist_lock, flags);
	t->pid = ++next_task_id;
	list_add_tail(&t->tasks, &all_tasks);
	raw_spin_unlock_irqrestore(&tasklist_lock, flags);
}

static struct task_struct *task_struct_alloc(void)
{
	return kzalloc(sizeof(struct task_struct));
}

/* Poisoned first (sched.h's TASK_STATE_FREED in __state), so that a look
 * at a freed task, which RCU exists to prevent, is seen where the
 * scheduler looks without a reference (task_freed()). */
static void task_struct_free(struct task_struct *t)
{
	memset(t, TASK_FREE_POISON, sizeof(*t));
	kfree(t);
}

/* Counted for the tests of the windows RCU closes (tests/rcu/). */
atomic_long_t sched_freed_task_uses;

bool task_freed_bug(const struct task_struct *t, const char *where)
{
	atomic_long_inc(&sched_freed_task_uses);
	printk("BUG: %s: task_struct %p used after it was freed\n", where, t);
	dump_stack();
	return true;
}

/* Off the task list first: the timeout report walks the stacks of the
 * tasks on it. Freeing a stack may sleep (for the stack drainer). */
static void task_release_stack(struct task_struct *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tasklist_lock, flags);
	list_del_init(&t->tasks);
	raw_spin_unlock_irqrestore(&tasklist_lock, flags);
	kstack_free(t->stack);
	t->stack = 0;
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
	return smp_load_acquire(&current->should_park);
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
			smp_store_release(&self->parked, true);
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
	smp_store_release(&t->should_park, true);
	wake_up_process(t);
	wait_event(park_wq, smp_load_acquire(&t->parked));
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
	smp_store_release(&t->should_park, false);
	smp_store_release(&t->parked, false);
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
	 * (put_dead_task), when our stack may be freed. A waker that
	 * tested our state while we still slept, in a join or a wait, must
	 * not write TASK_RUNNING over this: both hold pi_lock. */
	set_special_state(TASK_DEAD);
	schedule();
	panic("kthread_exit: dead task %s/%d ran again", t->comm, t->pid);
}

/* t->joiner once the dead task has looked for its joiner: a joiner that
 * comes later must not wait for a wakeup that will not come. */
#define JOINER_TOO_LATE ((struct task_struct *)1)

/* From finish_task_switch(): a dead task has switched out for the last
 * time. Drop the task's own reference, then take the joiner (marking it
 * taken, atomically, so a joiner cannot slip in unseen: JOINER_TOO_LATE
 * is also what a joiner waits for) and wake it; it drops the creator's.
 * The put comes first so that a joiner that returns has seen it made
 * (a test that joins, then waits for the grace period, finds the task
 * freed). Writing t after a put that may be the last is safe inside the
 * reader: the struct goes a grace period later. Once the mark is made, a
 * joiner that was already awake may see it, return, exit and drop its
 * own last reference before the wake-up below runs: the reader keeps
 * the joiner's memory until then. */
void put_dead_task(struct task_struct *t)
{
	struct task_struct *joiner;

	sched_rcu_read_lock();
	put_task_struct(t);
	joiner = xchg(&t->joiner, JOINER_TOO_LATE);
	explore_window(EXPLORE_PUT_DEAD_TASK);
	if (joiner)
		wake_up_process(joiner);
	sched_rcu_read_unlock();
}

/* The RCU callback, in the CPU's rcuc thread: task context, where freeing
 * the stack may wait for the stack drainer's lock (a lock an RCU callback
 * may take, as on PREEMPT_RT). */
static void __put_task_struct_rcu_cb(struct rcu_head *rhp)
{
	struct task_struct *t = container_of(rhp, struct task_struct, rcu);

	if (t->stack)
		task_release_stack(t);
	task_struct_free(t);
}

/*
 * The last reference: the task struct goes a grace period later, for the
 * readers that look at it without one. Its stack nobody reads once the
 * task is dead and off the task list, so it goes at once where freeing
 * it may sleep, as Linux frees a dead task's stack before its struct
 * (not inside a reader, not pinned: not under a spinlock_t on RT=1);
 * from the switch, or another atomic caller, with the struct.
 */
void put_task_struct(struct task_struct *t)
{
	if (!refcount_dec_and_test(&t->usage))
		return;
	if (preemptible() && !current->migration_disabled &&
	    !rcu_preempt_depth())
		task_release_stack(t);
	call_rcu(&t->rcu, __put_task_struct_rcu_cb);
}

void kthread_detach(struct task_struct *t)
{
	put_task_struct(t);
}

int kthread_join(struct task_struct *t)
{
	struct task_struct *none = 0;
	int code;

	/* Publish ourselves, unless the dead task already took its look.
	 * Then wait for that look (put_dead_task()), not for the other
	 * references: whoever else holds one (a waker, an RCU reader) drops
	 * it in its own time and wakes nobody, and the last one frees. */
	if (!try_cmpxchg(&t->joiner, &none, current) &&
	    WARN_ON(none != JOINER_TOO_LATE))
		return -1; /* one joiner per task */
	for (;;) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		/* Acquire: the task's exit and its exit code before us. */
		if (smp_load_acquire(&t->joiner) == JOINER_TOO_LATE)
			break;
		schedule();
	}
	set_current_state(TASK_RUNNING);
	lockdep_hb_join(t); /* everything t did happens before our return */
	code = t->exit_code;
	put_task_struct(t);
	return code;
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
	if (READ_ONCE(t->on_cpu) || READ_ONCE(t->__state) == TASK_NEW ||
	    !t->saved_sp) {
		printk("  (running, or never ran: no saved stack)\n");
		return;
	}
	show_stack_switched(t->saved_sp);
}

bool task_find(bool (*fn)(struct task_struct *t, void *arg), void *arg)
{
	unsigned long flags;
	struct task_struct *t;
	bool found = false;

	raw_spin_lock_irqsave(&tasklist_lock, flags);
	list_for_each_entry(t, &all_tasks, tasks)
		if ((found = fn(t, arg)))
			break;
	raw_spin_unlock_irqrestore(&tasklist_lock, flags);
	return found;
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
		       task_prio(t), READ_ONCE(t->on_cpu) ? " running" : "",
		       t->migration_disabled ? " migrate-disabled" : "");
		if (!READ_ONCE(t->on_cpu) && !task_is_running(t))
			show_task_stack(t);
	}
	raw_spin_unlock(&tasklist_lock);
	console_unlock(flags);
}
