/*
 * Softirqs, after Linux's kernel/softirq.c (docs/softirq.md): per-CPU
 * pending bits, the handlers run with interrupts on, on the CPU that
 * raised them, within a budget, and the per-CPU ksoftirqd threads that
 * take over when the budget runs out. The BH-disable count and, on
 * PREEMPT_RT, the per-CPU BH lock (softirq_ctrl) that serialises BH
 * sections unless the boot option softirq.bh_lock=0 drops it.
 *
 * Invariant: this CPU's pending bits are read and written with
 * interrupts off, by this CPU only.
 */
#include "interrupt.h"
#include "cmdline.h"
#include "cpuhotplug.h"
#include "locking/local_lock.h"
#include "panic.h"
#include "printk.h"
#include "rcu/rcupdate.h"
#include "time/time.h"
#include "vsprintf.h"
#include "errno.h"

/* Linux's budget: at most 2 ms, or 10 rounds of "run what is pending,
 * look again", or until a task wants this CPU; then ksoftirqd. */
#define MAX_SOFTIRQ_TIME_NS 2000000ull
#define MAX_SOFTIRQ_RESTART 10

const char *const softirq_to_name[NR_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

static struct softirq_action softirq_vec[NR_SOFTIRQS];
DEFINE_PER_CPU(unsigned int, __softirq_pending);
DEFINE_PER_CPU(struct task_struct *, ksoftirqd);

struct softirq_stat {
	unsigned long runs[NR_SOFTIRQS];
	unsigned long exhausted;
};
static DEFINE_PER_CPU_STAT(struct softirq_stat, softirq_stat);

/* PREEMPT_RT's BH lock and the CPU's BH-disable count while it is used
 * (one task at a time holds it). Linux's softirq_ctrl. */
struct softirq_ctrl {
	local_lock_t lock;
	int cnt;
};
static DEFINE_PER_CPU(struct softirq_ctrl, softirq_ctrl) = {
	.lock = INIT_LOCAL_LOCK(softirq_ctrl.lock)};

/* Set once, from the command line, before the first BH section. */
static bool needs_bh_lock = IS_ENABLED(CONFIG_PREEMPT_RT);

bool softirq_needs_bh_lock(void)
{
	return needs_bh_lock;
}

void open_softirq(int nr, void (*action)(void))
{
	softirq_vec[nr].action = action;
}

unsigned long kstat_softirqs_cpu(unsigned int nr, int cpu)
{
	return READ_ONCE(per_cpu_ptr(&softirq_stat, cpu)->runs[nr]);
}

unsigned long softirq_budget_exhausted(int cpu)
{
	return READ_ONCE(per_cpu_ptr(&softirq_stat, cpu)->exhausted);
}

static void wakeup_softirqd(void)
{
	struct task_struct *t = __this_cpu_read(ksoftirqd);

	if (t)
		wake_up_process(t);
}

/* Whether a raise outside interrupt context must wake ksoftirqd: not
 * when a BH section on this CPU will run it at its local_bh_enable(). */
static bool should_wake_ksoftirqd(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && needs_bh_lock)
		return !__this_cpu_read(softirq_ctrl.cnt);
	return !softirq_count();
}

void __raise_softirq_irqoff(unsigned int nr)
{
	__this_cpu_write(__softirq_pending,
			 __this_cpu_read(__softirq_pending) | 1u << nr);
}

void raise_softirq_irqoff(unsigned int nr)
{
	__raise_softirq_irqoff(nr);
	/* In an interrupt, its exit runs them; in a BH section, its end. */
	if (!in_hardirq() && should_wake_ksoftirqd())
		wakeup_softirqd();
}

void raise_softirq(unsigned int nr)
{
	unsigned long flags;

	local_irq_save(flags);
	raise_softirq_irqoff(nr);
	local_irq_restore(flags);
}

static void bh_map_acquire(void);
static void bh_map_release(void);

/* ---- running them ---- */

static void run_pending(unsigned int pending)
{
	struct softirq_stat *st = raw_cpu_ptr(&softirq_stat);

	while (pending) {
		unsigned int nr = __builtin_ctz(pending);

		pending &= pending - 1;
		st->runs[nr]++;
		softirq_vec[nr].action();
	}
}

/*
 * Linux's handle_softirqs(): interrupts off on entry and exit, on in
 * between; called serving (the softirq count has SOFTIRQ_OFFSET: RT=0
 * adds it here, RT=1's callers have). What is raised meanwhile is run
 * again, within the budget; past it, ksoftirqd is woken.
 */
static void handle_softirqs(void)
{
	uint64_t end = ktime_get_ns() + MAX_SOFTIRQ_TIME_NS;
	int restart = MAX_SOFTIRQ_RESTART;
	unsigned int pending = local_softirq_pending();

	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		lockdep_softirq_enter();
		raw_cpu_add(__preempt_count, SOFTIRQ_OFFSET);
		bh_map_acquire(); /* on the softirq context's own stack */
	}
	while (pending) {
		__this_cpu_write(__softirq_pending, 0);
		local_irq_enable();
		run_pending(pending);
		local_irq_disable();
		pending = local_softirq_pending();
		if (pending && (ktime_get_ns() >= end || need_resched() ||
				!--restart)) {
			raw_cpu_ptr(&softirq_stat)->exhausted++;
			wakeup_softirqd();
			break;
		}
	}
	if (!IS_ENABLED(CONFIG_PREEMPT_RT)) {
		bh_map_release();
		raw_cpu_sub(__preempt_count, SOFTIRQ_OFFSET);
		lockdep_softirq_exit();
		lockdep_preempt_count_dropped();
	}
}

/* ksoftirqd is runnable: the softirqs are its (Linux's
 * ksoftirqd_running()), so that a flood leaves interrupt exit and tasks
 * on this CPU to the scheduler. */
static bool ksoftirqd_running(void)
{
	struct task_struct *t = __this_cpu_read(ksoftirqd);

	return t && task_is_running(t);
}

void invoke_softirq(void)
{
	if (in_interrupt() || !local_softirq_pending())
		return;
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		/* Preemptible softirqs run in a task. */
		if (should_wake_ksoftirqd())
			wakeup_softirqd();
	} else if (!ksoftirqd_running()) {
		handle_softirqs();
	}
}

/* ---- local_bh_disable(), RT=0: the preempt count ---- */

/*
 * For the validator, an RT=0 BH section (a task's, or a softirq
 * handler's) holds this CPU's softirq_ctrl.lock, as PREEMPT_RT's BH lock
 * is held for real: the per-CPU checker sees the same protection in
 * both worlds, and a lock that sleeps taken inside is a sleep with BHs
 * off. It waits for nobody (LOCK_NO_DEPS): BHs may go off anywhere.
 */
static void bh_map_acquire(void)
{
	lock_acquire(&raw_cpu_ptr(&softirq_ctrl.lock)->dep_map, 0,
		     LOCK_NO_DEPS, _RET_IP_);
}

static void bh_map_release(void)
{
	lock_release(&raw_cpu_ptr(&softirq_ctrl.lock)->dep_map, _RET_IP_);
}

static void local_bh_disable_nort(void)
{
	if (!softirq_count())
		bh_map_acquire();
	raw_cpu_add(__preempt_count, SOFTIRQ_DISABLE_OFFSET);
	barrier();
}

/* The outermost enable runs what was raised meanwhile; interrupts are
 * off from the drop of the count until the handlers start, so that
 * nothing else gets in between. */
static void local_bh_enable_nort(void)
{
	unsigned long flags;

	WARN_ON(in_hardirq() || irqs_disabled());
	barrier();
	if (softirq_count() == SOFTIRQ_DISABLE_OFFSET)
		bh_map_release();
	local_irq_save(flags);
	raw_cpu_sub(__preempt_count, SOFTIRQ_DISABLE_OFFSET);
	lockdep_preempt_count_dropped();
	if (!in_interrupt() && local_softirq_pending())
		handle_softirqs();
	local_irq_restore(flags);
	if (unlikely(need_resched()) && preemptible())
		preempt_schedule();
}

/* ---- local_bh_disable(), PREEMPT_RT: the task's count, the BH lock ---- */

/* Add cnt to the BH count: the CPU's while the BH lock serialises (the
 * holder's), mirrored in the task for softirq_count(). */
static void bh_count_add(int cnt)
{
	if (needs_bh_lock) {
		__this_cpu_add(softirq_ctrl.cnt, cnt);
		current->softirq_disable_cnt = __this_cpu_read(softirq_ctrl.cnt);
	} else {
		current->softirq_disable_cnt += cnt;
	}
}

/* Linux's __local_bh_disable_ip() on RT: the outermost entry of a
 * preemptible task takes the BH lock (or only disables migration) and,
 * as RCU's BH readers require, an RCU read-side section. */
static void __local_bh_disable_rt(int cnt)
{
	unsigned long flags;

	WARN_ON(in_hardirq());
	if (!current->softirq_disable_cnt && preemptible()) {
		if (needs_bh_lock)
			local_lock(&softirq_ctrl.lock);
		else
			migrate_disable();
		rcu_read_lock();
	}
	local_irq_save(flags); /* the count against this CPU's interrupts */
	bh_count_add(cnt);
	local_irq_restore(flags);
}

/* After the count went to zero: the outermost enable of a preemptible
 * task lets the BH lock (or migration) and the RCU section go. */
static void bh_unlock_if_last(bool unlock)
{
	if (current->softirq_disable_cnt || !unlock)
		return;
	rcu_read_unlock();
	if (needs_bh_lock)
		local_unlock(&softirq_ctrl.lock);
	else
		migrate_enable();
}

/* Linux's __local_bh_enable_ip() on RT: the outermost enable of a
 * preemptible task runs what is pending here, serving (the count goes
 * from SOFTIRQ_DISABLE_OFFSET to SOFTIRQ_OFFSET, the lock still held);
 * from a non-preemptible one, ksoftirqd does. Interrupts stay off until
 * the count is down: one that raised a softirq in between would see the
 * section and wake nobody. */
static void __local_bh_enable_rt(int cnt)
{
	bool preempt_on = preemptible();

	WARN_ON(in_hardirq() || irqs_disabled());
	local_irq_disable();
	if (current->softirq_disable_cnt == cnt && local_softirq_pending() &&
	    cnt == SOFTIRQ_DISABLE_OFFSET) {
		if (preempt_on) {
			bh_count_add(SOFTIRQ_OFFSET - cnt);
			cnt = SOFTIRQ_OFFSET;
			handle_softirqs();
		} else {
			wakeup_softirqd();
		}
	}
	bh_count_add(-cnt);
	local_irq_enable();
	bh_unlock_if_last(preempt_on);
}

void local_bh_disable(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		__local_bh_disable_rt(SOFTIRQ_DISABLE_OFFSET);
	else
		local_bh_disable_nort();
}

void local_bh_enable(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		__local_bh_enable_rt(SOFTIRQ_DISABLE_OFFSET);
	else
		local_bh_enable_nort();
}

/* ---- ksoftirqd ---- */

static void run_ksoftirqd(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		__local_bh_disable_rt(SOFTIRQ_OFFSET);
	local_irq_disable();
	if (local_softirq_pending())
		handle_softirqs();
	local_irq_enable();
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		__local_bh_enable_rt(SOFTIRQ_OFFSET);
}

static bool ksoftirqd_should_run(void)
{
	unsigned long flags;
	bool pending;

	local_irq_save(flags);
	pending = local_softirq_pending();
	local_irq_restore(flags);
	return pending;
}

/* Bound to its CPU, SCHED_NORMAL as Linux's: softirqs it runs compete
 * with tasks, which is what it is for. Parked while its CPU is away. */
static int ksoftirqd_fn(void *unused)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_park()) {
			set_current_state(TASK_RUNNING);
			kthread_parkme();
			continue;
		}
		if (!ksoftirqd_should_run()) {
			schedule();
			continue;
		}
		set_current_state(TASK_RUNNING);
		run_ksoftirqd();
		if (need_resched())
			schedule();
	}
	return 0;
}

static int ksoftirqd_online(unsigned int cpu)
{
	struct task_struct **tp = raw_per_cpu_ptr(&ksoftirqd, cpu);
	char name[TASK_COMM_LEN];

	if (*tp) {
		kthread_unpark(*tp);
		return 0;
	}
	snprintf(name, sizeof(name), "ksoftirqd/%u", cpu);
	*tp = kthread_create_on_cpu(ksoftirqd_fn, 0, cpu, name);
	if (!*tp)
		return -ENOMEM;
	wake_up_process(*tp);
	return 0;
}

static int ksoftirqd_offline(unsigned int cpu)
{
	kthread_park(*raw_per_cpu_ptr(&ksoftirqd, cpu));
	return 0;
}

static void softirq_read_bh_lock_option(void)
{
	unsigned long on = needs_bh_lock;

	if (cmdline_get_ulong("softirq.bh_lock", &on, 0, 1) > 0)
		needs_bh_lock = on && IS_ENABLED(CONFIG_PREEMPT_RT);
}

void softirq_init(void)
{
	softirq_read_bh_lock_option();
	tasklet_init_softirq();
	if (cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "softirq:ksoftirqd",
			      ksoftirqd_online, ksoftirqd_offline) < 0)
		panic("softirq: no ksoftirqd");
	printk("softirq: ksoftirqd per CPU, budget %llu ms or %d rounds%s\n",
	       MAX_SOFTIRQ_TIME_NS / 1000000, MAX_SOFTIRQ_RESTART,
	       !IS_ENABLED(CONFIG_PREEMPT_RT) ? ""
	       : needs_bh_lock ? "; PREEMPT_RT, BH lock on"
			       : "; PREEMPT_RT, BH lock off (softirq.bh_lock=0)");
}
