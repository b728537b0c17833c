/*
 * The scheduler core: one run queue per CPU, each under its own lock;
 * SCHED_FIFO/SCHED_RR at 99 priorities picked in O(1) through a bitmap,
 * above SCHED_NORMAL tasks that share the CPU in time slices; wakeups,
 * preemption and the context switch. Moving tasks between CPUs (affinity,
 * migrate_disable, balancing) is in migrate.c and balance.c.
 *
 * Locking: rq->lock (interrupts off) guards a run queue and the cpu/on_rq/
 * run_list fields of the tasks on it; two run queues are locked in CPU
 * order (double_rq_lock). A task's pi_lock serialises its wakeups and is
 * taken before any rq->lock. The running task stays on its queue, at the
 * head of its priority's list, so that a preempted FIFO task resumes first.
 */
#include "compiler.h"
#include "sched/sched.h"
#include "sched/sched_internal.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "user/process.h"
#include "printk.h"
#include "locking/rtmutex.h"
#include "smp.h"
#include "asm/smp.h"
#include "asm/stacktrace.h"
#include "asm/switch_to.h"
#include "mm/stack.h"
#include "time/timer.h"
#include "cpuhotplug.h"
#include "rcu/rcupdate.h"
#include "rcu/rcutree.h"

DEFINE_PER_CPU_UNCHECKED(struct rq, runqueues);
DEFINE_PER_CPU(struct task_struct *, current_task);
DEFINE_PER_CPU(bool, need_resched_flag);
DEFINE_PER_CPU_STAT(unsigned long, nr_switches);
cpumask_t rt_overload_mask;

/* ---- run queue operations (rq->lock held) ---- */

static bool task_is_rt(const struct task_struct *p)
{
	return p->prio < MAX_RT_PRIO;
}

/* Count p (queued on rq) in or out of the tasks balancing may move. */
void account_movable(struct rq *rq, struct task_struct *p, int sign)
{
	if (p->nr_cpus_allowed > 1) {
		rq->nr_movable += sign;
		if (task_is_rt(p))
			rq->nr_rt_movable += sign;
	}
}

/* Whether rq has RT tasks waiting that another CPU might run. */
void update_rt_overload(struct rq *rq)
{
	if (rq->nr_rt_movable - movable_curr(rq, true) > 0)
		cpumask_set_cpu(rq->cpu, &rt_overload_mask);
	else
		cpumask_clear_cpu(rq->cpu, &rt_overload_mask);
}

void enqueue_task(struct rq *rq, struct task_struct *p, bool head)
{
	struct list_head *q = &rq->normal_queue;

	if (task_is_rt(p)) {
		q = &rq->rt_queue[p->prio];
		rq->rt_bitmap[p->prio / 64] |= 1ul << (p->prio % 64);
		rq->nr_rt++;
	}
	if (head)
		list_add(&p->run_list, q);
	else
		list_add_tail(&p->run_list, q);
	rq->nr_running++;
	account_movable(rq, p, 1);
	p->on_rq = true;
	update_rt_overload(rq);
}

void dequeue_task(struct rq *rq, struct task_struct *p)
{
	list_del_init(&p->run_list);
	if (task_is_rt(p)) {
		if (list_empty(&rq->rt_queue[p->prio]))
			rq->rt_bitmap[p->prio / 64] &= ~(1ul << (p->prio % 64));
		rq->nr_rt--;
	}
	rq->nr_running--;
	account_movable(rq, p, -1);
	p->on_rq = false;
	update_rt_overload(rq);
}

/* The highest priority with a queued task; NORMAL_PRIO or MAX_PRIO when
 * there is no RT task or none at all. */
int rq_best_prio(const struct rq *rq)
{
	for (int w = 0; w < 2; w++)
		if (rq->rt_bitmap[w])
			return w * 64 + __builtin_ctzl(rq->rt_bitmap[w]);
	return list_empty(&rq->normal_queue) ? MAX_PRIO : NORMAL_PRIO;
}

/* The best RT task, unless the CPU's RT tasks are throttled
 * (rt_bandwidth.c); then the first NORMAL one; else the idle task. */
static struct task_struct *pick_next_task(struct rq *rq)
{
	int prio = rq_best_prio(rq);

	if (prio < MAX_RT_PRIO && !rq->rt_throttled)
		return list_first_entry(&rq->rt_queue[prio], struct task_struct,
					run_list);
	if (!list_empty(&rq->normal_queue))
		return list_first_entry(&rq->normal_queue, struct task_struct,
					run_list);
	return rq->idle;
}

/* Lock the run queue p is on (p->cpu may change until we hold it). */
struct rq *task_rq_lock(struct task_struct *p)
{
	for (;;) {
		struct rq *rq = cpu_rq(task_cpu(p));

		arch_spin_lock(&rq->lock);
		if (rq == cpu_rq(task_cpu(p)))
			return rq;
		arch_spin_unlock(&rq->lock);
	}
}

void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a == b) {
		arch_spin_lock(&a->lock);
	} else if (a->cpu < b->cpu) {
		arch_spin_lock(&a->lock);
		arch_spin_lock(&b->lock);
	} else {
		arch_spin_lock(&b->lock);
		arch_spin_lock(&a->lock);
	}
}

void double_rq_unlock(struct rq *a, struct rq *b)
{
	arch_spin_unlock(&a->lock);
	if (a != b)
		arch_spin_unlock(&b->lock);
}

/* ---- preemption requests ---- */

/* Ask rq's CPU to reschedule: at once here, by IPI elsewhere. The IPI is
 * sent only when the flag was clear: one is enough to get it looked at. */
void resched_curr(struct rq *rq)
{
	int cpu = rq->cpu;

	if (cpu == raw_smp_processor_id()) {
		raw_cpu_write(need_resched_flag, true);
		return;
	}
	if (!xchg(raw_per_cpu_ptr(&need_resched_flag, cpu), true))
		arch_send_ipi(cpu, IPI_RESCHEDULE);
}

void resched_cpu(int cpu)
{
	resched_curr(cpu_rq(cpu));
}

/* p was just queued on rq: does it beat what runs there? Not while it
 * may not run there (throttled). */
void check_preempt_curr(struct rq *rq, struct task_struct *p)
{
	if (p->prio < rq->curr->prio && !rt_throttled_for(rq, p))
		resched_curr(rq);
}

/* ---- wakeups ---- */

/* p went to sleep pinned on rq's CPU (locked) and wakes there. If that
 * CPU is now leaving, p must go at its outermost migrate_enable(). */
static void pinned_wakes(struct rq *rq, struct task_struct *p)
{
	p->pinned_asleep = false;
	rq->nr_pinned_asleep--;
	if (rq->balance_push)
		p->migration_pending = true;
}

/*
 * Wake p if its state is in state_mask: queue it on a CPU chosen by
 * select_task_rq() and preempt that CPU's task if p beats it. A task that
 * is still on its queue (it set its state but has not switched out yet)
 * only gets its state back to RUNNING. Returns whether p was woken.
 */
static int try_to_wake_up(struct task_struct *p, int state_mask)
{
	unsigned long flags;
	struct rq *rq;
	int cpu, woke = 0;

	if (task_freed(p, "try_to_wake_up"))
		return 0;
	local_irq_save(flags);
	arch_spin_lock(&p->pi_lock);
	if (!(READ_ONCE(p->__state) & state_mask))
		goto out;
	/* What the waker did happens before what p does once it runs. */
	lockdep_hb_wake(p);
	rq = task_rq_lock(p);
	if (p->on_rq || p->migrating) {
		/* Still queued, or on its way to another CPU's queue (the
		 * move queues it there, pi_lock orders us). */
		WRITE_ONCE(p->__state, TASK_RUNNING);
		arch_spin_unlock(&rq->lock);
		trace_event(TRACE_WAKEUP, p->pid, task_cpu(p), p->comm);
		woke = 1;
		goto out;
	}
	arch_spin_unlock(&rq->lock);
	/* It is going to sleep on another CPU: its stack is in use until
	 * that CPU has switched away from it (finish_task_switch()'s
	 * release; the acquire makes its saved context ours to use). */
	smp_cond_load_acquire(&p->on_cpu, !VAL);
	rq = select_task_rq_lock(p);
	cpu = rq->cpu;
	if (cpu != task_cpu(p))
		trace_event(TRACE_MIGRATE, p->pid,
			    (uint64_t)task_cpu(p) << 16 | cpu, p->comm);
	trace_event(TRACE_WAKEUP, p->pid, cpu, p->comm);
	if (p->pinned_asleep)
		pinned_wakes(rq, p);
	WRITE_ONCE(p->cpu, cpu);
	WRITE_ONCE(p->__state, TASK_RUNNING);
	enqueue_task(rq, p, false);
	check_preempt_curr(rq, p);
	arch_spin_unlock(&rq->lock);
	woke = 1;
out:
	arch_spin_unlock(&p->pi_lock);
	local_irq_restore(flags);
	return woke;
}

/* The preempt_disable/enable pair makes a wakeup of a higher-priority
 * task on this CPU preempt us right here, not at the next interrupt. */
int wake_up_process(struct task_struct *p)
{
	int woke;

	preempt_disable();
	woke = try_to_wake_up(p, TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE |
				    TASK_NEW);
	preempt_enable();
	explore_point(EXPLORE_WAKE_UP);
	return woke;
}

/* ---- the switch ---- */

/*
 * Runs on the task switched to, right after the switch, with the run
 * queue still locked by the task switched from (prev): only now is prev's
 * context saved, so only now may another CPU run it or free it.
 */
void finish_task_switch(struct task_struct *prev)
{
	struct rq *rq = this_rq();
	/* Dead only once off its queue: a task preempted on its way out
	 * (state already TASK_DEAD) is still queued, or moving, and will
	 * run again. */
	bool moving = prev->migrating;
	bool dead = READ_ONCE(prev->__state) == TASK_DEAD && !prev->on_rq && !moving;

	smp_store_release(&prev->on_cpu, false);
	arch_spin_unlock(&rq->lock);
	if (dead)
		put_dead_task(prev);
	else if (moving)
		migrate_switched_out(prev);
	if (__builtin_expect(rq->balance_push, 0))
		sched_hotplug_notify(rq);
	push_rt_tasks(rq);
}

static void context_switch(struct rq *rq, struct task_struct *prev, struct task_struct *next)
{
	struct task_struct *last;

	if (trace_enabled())
		__trace_event(TRACE_SWITCH, prev->pid, next->pid, next->comm,
			      READ_ONCE(prev->__state));
	rq->curr = next;
	WRITE_ONCE(rq->curr_prio, next->prio);
	WRITE_ONCE(next->on_cpu, true);
	update_rt_overload(rq);
	raw_cpu_write(current_task, next);
	raw_cpu_inc(nr_switches);
	/* The preempt count belongs to the task (a buggy caller may schedule
	 * with it raised); every task switches with its own. */
	prev->saved_preempt_count = preempt_count();
	raw_cpu_write(__preempt_count, next->saved_preempt_count);
	process_switch(prev, next);
	last = __switch_to(&prev->saved_sp, next->saved_sp, prev);
	finish_task_switch(last);
}

/*
 * Pick the next task and switch to it. preempt: called for a preemption
 * (the task stays runnable whatever its state says: it was caught between
 * setting its state and calling schedule, and will call it again).
 */
static void __schedule(bool preempt)
{
	unsigned long flags;
	struct rq *rq;
	struct task_struct *prev, *next;

	local_irq_save(flags);
	rq = this_rq();
	prev = rq->curr;
	rcu_note_context_switch(preempt);

	arch_spin_lock(&rq->lock);
	raw_cpu_write(need_resched_flag, false);
	if (prev != rq->idle && prev->on_rq) {
		/* A pinned task on a CPU that is leaving: its move waits
		 * for its outermost migrate_enable() (migrate.c). */
		if (__builtin_expect(rq->balance_push, 0) &&
		    prev->migration_disabled)
			prev->migration_pending = true;
		if (!preempt && !task_is_running(prev)) {
			dequeue_task(rq, prev); /* it sleeps */
			if (prev->migration_disabled &&
			    READ_ONCE(prev->__state) != TASK_DEAD) {
				prev->pinned_asleep = true; /* wakes here */
				rq->nr_pinned_asleep++;
			}
		} else if (must_move_off(rq, prev)) {
			/* Not a sleep (that is the branch above): queued
			 * again once off this CPU, on one it may run on, in
			 * the state it has (finish_task_switch(),
			 * migrate_switched_out()). */
			dequeue_task(rq, prev);
			prev->migrating = true;
		}
	}
	if (rq_best_prio(rq) >= MAX_RT_PRIO || rq->rt_throttled) {
		/* Going idle, or down to NORMAL work (or RT throttled): take
		 * work from others. */
		arch_spin_unlock(&rq->lock);
		pull_tasks(rq);
		arch_spin_lock(&rq->lock);
	}
	next = pick_next_task(rq);
	if (next != prev)
		context_switch(rq, prev, next);
	else
		arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
}

/* Whether the schedule() called from the activation caller runs inside
 * the activation might_sleep() reported: caller's chain of callers
 * reaches that one (asm/stacktrace.h). Never from an interrupt handler
 * (it runs on the task's stack, but its sleep is a bug of its own). */
static bool sleep_reported(const struct unwind_state *caller)
{
	const struct task_struct *t = current;
	struct unwind_state s = *caller;

	if (in_hardirq() || !t->sleep_report_frame)
		return false;
	if (t->sleep_report_frame == SLEEP_REPORTED_ALL)
		return true;
	for (int i = 0; i < 64; i++) {
		if (s.frame == t->sleep_report_frame)
			return s.ret == t->sleep_report_ret;
		if (!unwind_next_frame(&s))
			break;
	}
	return false;
}

/* Counted with might_sleep()'s reports (one kind for both); a sleep that
 * might_sleep() just reported is not reported twice. */
static void schedule_bug(const struct unwind_state *caller)
{
	if (sleep_reported(caller))
		return;
	lockdep_count(LOCKDEP_SLEEP_IN_ATOMIC);
	printk("BUG: scheduling while atomic: %s/%d, preempt count %#x%s\n",
	       current->comm, current->pid, preempt_count(),
	       irqs_disabled() ? ", interrupts off" : "");
	dump_stack();
}

void schedule(void)
{
	struct unwind_state caller;

	if (unlikely(!preemptible() || in_hardirq())) {
		unwind_start_caller(&caller);
		schedule_bug(&caller);
	}
	lockdep_percpu_flush(); /* a per-CPU access held back, see lockdep.h */
	do {
		preempt_disable();
		__schedule(false);
		preempt_enable_no_resched();
	} while (need_resched() && preemptible());
}

/* From preempt_enable() when the count drops to zero with a request. */
void preempt_schedule(void)
{
	if (irqs_disabled())
		return; /* interrupts will come back on and look again */
	do {
		preempt_disable();
		__schedule(true);
		preempt_enable_no_resched();
	} while (need_resched());
}

/* From the interrupt return path: interrupts off, count zero. */
void preempt_schedule_irq(void)
{
	do {
		preempt_disable();
		__schedule(true);
		preempt_enable_no_resched();
	} while (need_resched());
}

void yield(void)
{
	unsigned long flags;
	struct rq *rq;
	struct task_struct *p;

	local_irq_save(flags);
	rq = this_rq();
	p = rq->curr;

	arch_spin_lock(&rq->lock);
	if (p->on_rq && p != rq->idle) {
		/* Behind the others of its priority. */
		dequeue_task(rq, p);
		enqueue_task(rq, p, false);
	}
	arch_spin_unlock(&rq->lock);
	local_irq_restore(flags);
	schedule();
}

/* ---- the tick ---- */

/* End a time slice: behind the others of its priority, if any. */
static void slice_expired(struct rq *rq, struct task_struct *p)
{
	struct list_head *q = task_is_rt(p) ? &rq->rt_queue[p->prio]
					    : &rq->normal_queue;

	p->time_slice = p->policy == SCHED_RR ? RR_TIMESLICE_TICKS
					      : NORMAL_TIMESLICE_TICKS;
	if (q->next->next != q) { /* more than one queued */
		list_move_tail(&p->run_list, q);
		resched_curr(rq);
	}
}

/* Whether some other CPU has work this one could take. */
static bool work_elsewhere(struct rq *rq)
{
	int cpu;

	if (cpumask_weight(&rt_overload_mask) > 0 &&
	    rq->curr->prio >= MAX_RT_PRIO && !rq->rt_throttled)
		return true; /* RT tasks to pull, unless it may not run them */
	if (rq->curr != rq->idle)
		return false;
	for_each_online_cpu(cpu) {
		struct rq *src = cpu_rq(cpu);

		if (src->nr_movable - movable_curr(src, false) > 0)
			return true;
	}
	return false;
}

void scheduler_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *p;

	arch_spin_lock(&rq->lock);
	p = rq->curr;
	/* Slices for RR tasks and for NORMAL ones running at their own
	 * priority; a NORMAL task boosted to RT by inheritance runs as FIFO
	 * does, until it gives back what it inherited. */
	if (p != rq->idle && (p->policy == SCHED_RR || p->prio >= MAX_RT_PRIO) &&
	    --p->time_slice <= 0)
		slice_expired(rq, p);
	/* On a CPU that is leaving, every tick is a chance to push the
	 * running task off (it left at once unless it was pinned). */
	if (rq->balance_push && p != rq->idle && !p->per_cpu_kthread)
		raw_cpu_write(need_resched_flag, true);
	sched_rt_tick(rq);
	arch_spin_unlock(&rq->lock);
	if (work_elsewhere(rq))
		raw_cpu_write(need_resched_flag, true);
}

/* ---- policy ---- */

int task_prio(const struct task_struct *t)
{
	return t->prio < MAX_RT_PRIO ? MAX_RT_PRIO - 1 - t->prio : 0;
}

static int normal_prio_of(int policy, int rt_priority)
{
	return policy == SCHED_NORMAL ? NORMAL_PRIO
				      : MAX_RT_PRIO - 1 - rt_priority;
}

/*
 * Change p's effective priority, keeping its place rules: a running task
 * stays at the head of its new list, a queued one joins the tail. Then
 * preempt whoever should be preempted. Called with p's pi_lock held.
 */
void set_task_prio(struct task_struct *p, int prio)
{
	struct rq *rq = task_rq_lock(p);
	bool running = rq->curr == p;

	if (p->on_rq) {
		dequeue_task(rq, p);
		p->prio = prio;
		enqueue_task(rq, p, running);
		if (running && rq_best_prio(rq) < prio)
			resched_curr(rq);
		else if (!running)
			check_preempt_curr(rq, p);
	} else {
		p->prio = prio;
	}
	if (running)
		WRITE_ONCE(rq->curr_prio, prio);
	arch_spin_unlock(&rq->lock);
}

bool sched_param_valid(int policy, int rt_priority)
{
	if (policy == SCHED_NORMAL)
		return rt_priority == 0;
	return (policy == SCHED_FIFO || policy == SCHED_RR) &&
	       rt_priority >= 1 && rt_priority <= 99;
}

int sched_setscheduler(struct task_struct *p, int policy, int rt_priority)
{
	unsigned long flags;

	if (!sched_param_valid(policy, rt_priority))
		return -1;
	local_irq_save(flags);
	arch_spin_lock(&p->pi_lock);
	p->policy = policy;
	p->rt_priority = rt_priority;
	p->normal_prio = normal_prio_of(policy, rt_priority);
	p->time_slice = policy == SCHED_RR ? RR_TIMESLICE_TICKS
					   : NORMAL_TIMESLICE_TICKS;
	arch_spin_unlock(&p->pi_lock);
	local_irq_restore(flags);
	/* The effective priority also counts what p inherits, and a change
	 * of a blocked task's priority travels along its chain. */
	rt_mutex_adjust_pi(p);
	return 0;
}

/* ---- context checks ---- */

atomic_long_t smp_processor_id_warnings, might_sleep_warnings;

/* f: the activation of the function that may sleep. */
static void might_sleep_report(const struct unwind_state *f)
{
	lockdep_count(LOCKDEP_SLEEP_IN_ATOMIC);
	if (!in_hardirq()) { /* else current is the interrupted task */
		current->sleep_report_frame = f->frame;
		current->sleep_report_ret = f->ret;
	}
	if (atomic_long_inc_return(&might_sleep_warnings) > 10)
		return;
	printk("BUG: sleeping function called from invalid context: %s/%d, "
	       "preempt count %#x, interrupts %s, RCU nest depth %d\n",
	       current->comm, current->pid, preempt_count(),
	       irqs_disabled() ? "off" : "on", current->rcu_read_lock_nesting);
	dump_stack();
}

/* might_sleep() (lockdep.h). Not inline, so that its caller is the
 * function that may sleep. Inside an RCU reader on RT=1, which leaves
 * preemption on, a sleep is as wrong (Linux's __might_resched() counts
 * the RCU nesting too). */
__attribute__((noinline)) void __might_sleep(void)
{
	struct unwind_state caller;

	if (unlikely(!preemptible() || in_hardirq() ||
		     rcu_preempt_depth())) {
		unwind_start_caller(&caller);
		might_sleep_report(&caller);
	} else
		current->sleep_report_frame = 0; /* no report covers what follows */
}

/* Linux's check_preemption_disabled(): the caller is preemptible; the
 * CPU number it asks about is only stable if it cannot migrate. */
static void check_preemption_disabled(const char *what)
{
	struct task_struct *t = current;

	if (t->migration_disabled || t->nr_cpus_allowed == 1)
		return;
	lockdep_count(LOCKDEP_PREEMPTIBLE_CPU_ID);
	/* Only the first few: a hot path gone wrong would flood the log. */
	if (atomic_long_inc_return(&smp_processor_id_warnings) > 10)
		return;
	printk("BUG: using %s() in preemptible code: %s/%d\n", what, t->comm,
	       t->pid);
	dump_stack();
}

void debug_smp_processor_id(void)
{
	check_preemption_disabled("smp_processor_id");
}

#ifdef CONFIG_LOCKDEP
void __this_cpu_preempt_check(const char *op)
{
	check_preemption_disabled(op);
}
#endif

/* ---- start-up ---- */

/* A CPU other than the boot CPU takes tasks once it is active
 * (sched_cpu_activate). */
static void rq_init(struct rq *rq, int cpu)
{
	rq->cpu = cpu;
	rq->balance_push = cpu != 0;
	for (int i = 0; i < MAX_RT_PRIO; i++)
		INIT_LIST_HEAD(&rq->rt_queue[i]);
	INIT_LIST_HEAD(&rq->normal_queue);
}

/* The code already running on a CPU becomes its idle task. */
static void idle_init(int cpu, struct task_struct *idle)
{
	struct rq *rq = cpu_rq(cpu);

	idle->cpu = cpu;
	idle->on_cpu = true;
	idle->prio = idle->normal_prio = MAX_PRIO;
	cpumask_copy(&idle->cpus_mask, cpumask_of(cpu));
	idle->nr_cpus_allowed = 1;
	rq->idle = rq->curr = idle;
	rq->curr_prio = idle->prio;
}

void sched_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		rq_init(cpu_rq(cpu), cpu);
		cpu_rq(cpu)->idle = idle_task_alloc(cpu);
	}
	idle_init(0, cpu_rq(0)->idle);
	this_cpu_write(current_task, cpu_rq(0)->idle);
	timers_init();
	sched_rt_init();
}

/* Also when the CPU comes back from offline: what its last life left in
 * its per-CPU area (a reschedule request sent after it parked, the count
 * its idle task parked with) starts again from zero. */
void sched_init_ap(int cpu)
{
	idle_init(cpu, cpu_rq(cpu)->idle);
	this_cpu_write(current_task, cpu_rq(cpu)->idle);
	raw_cpu_write(__preempt_count, 0);
	raw_cpu_write(need_resched_flag, false);
}

/* Each CPU's idle task: halt until an interrupt, schedule when asked. The
 * check and the halt are one step (sti; hlt), or a wakeup's IPI arriving
 * between them would be slept through. While it halts the CPU is in
 * RCU's extended quiescent state: the grace-period kthread sees that in
 * its counter and does not wake it (docs/rcu.md). A CPU asked to go
 * offline parks from here: its idle task is all that runs on it by then. */
__noreturn void cpu_idle(void)
{
	for (;;) {
		local_irq_disable();
		if (cpuhp_should_die())
			cpuhp_play_dead();
		if (!need_resched()) {
			rcu_idle_enter();
			safe_halt();
			rcu_idle_exit();
		} else {
			local_irq_enable();
		}
		if (need_resched())
			schedule();
	}
}
