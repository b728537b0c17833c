/*
 * The per-CPU access checker's scenarios where each access is protected
 * but the accesses of one variable share no protection: across locks
 * (LOCKDEP_PERCPU_INCONSISTENT) and across contexts, hardirq and task
 * with IRQs on (LOCKDEP_PERCPU_IRQ) (lockdep_percpu.h describes the
 * suite).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_percpu.h"

/* In hardirq context: touch this CPU's copy of the long at template
 * address arg. */
static void irq_touch(void *arg)
{
	long *var = arg;

	TOUCH(this_cpu_ptr(var));
}

/* ================== LOCKDEP_PERCPU_INCONSISTENT ================== */

/*
 * Two paths to one copy, one in a rival that ran first (rival_start() on
 * this CPU runs it to its end), the other the test's own: each access is
 * protected, but not against the other.
 */
static void run_against(void (*rival)(void), void (*mine)(void))
{
	struct rival_path p = {rival};
	struct task_struct *t = rival_start(0, rival_run_path, &p);

	mine();
	ktest_join(t);
}

/* Under lock A on one path, under lock B on the other. */
static DEFINE_PER_CPU(long, pc_ab);
static DEFINE_SPINLOCK(pc_ab_a);
static DEFINE_SPINLOCK(pc_ab_b);

#define UNDER_A LOCKED_JOB(&pc_ab, ANY_LOCK(LOCK_SPIN, &pc_ab_a))
#define UNDER_B LOCKED_JOB(&pc_ab, ANY_LOCK(LOCK_SPIN, &pc_ab_b))

KTEST(lockdep_percpu, inconsistent_lock_a_then_lock_b)
{
	touch_against(UNDER_A, UNDER_B);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

/* One path alone, under either lock, is one context: silent. */
KTEST(lockdep_percpu, one_context_two_locks_silent)
{
	touch(&UNDER_A);
	touch(&UNDER_B);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_abab);
static DEFINE_MUTEX(pc_abab_a);
static DEFINE_MUTEX(pc_abab_b);

static void abab_a_b(void)
{
	for (int i = 0; i < 2; i++) {
		mutex_lock(&pc_abab_a);
		TOUCH(this_cpu_ptr(&pc_abab));
		mutex_unlock(&pc_abab_a);
		mutex_lock(&pc_abab_b);
		TOUCH(this_cpu_ptr(&pc_abab));
		mutex_unlock(&pc_abab_b);
	}
}

KTEST(lockdep_percpu, inconsistent_reported_once)
{
	run_against(abab_a_b, abab_a_b);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

/* A and B, then A (the record narrows to A), then A and B again (nothing
 * changes: the lock-free path), then B alone: nothing common is left. */
static DEFINE_PER_CPU(long, pc_narrow);
static DEFINE_SPINLOCK(pc_narrow_a);
static DEFINE_SPINLOCK(pc_narrow_b);

static void touch_narrow(bool a, bool b)
{
	if (a)
		spin_lock(&pc_narrow_a);
	if (b)
		spin_lock(&pc_narrow_b);
	TOUCH(this_cpu_ptr(&pc_narrow));
	if (b)
		spin_unlock(&pc_narrow_b);
	if (a)
		spin_unlock(&pc_narrow_a);
}

static void narrow_to_a(void)
{
	touch_narrow(true, true);
	touch_narrow(true, false);
	for (int i = 0; i < 100; i++)
		touch_narrow(true, true);
}

/* The rival's accesses narrow to A; the test's, concurrent with them,
 * under A and B keep A; then B alone leaves nothing. */
KTEST(lockdep_percpu, inconsistent_after_narrowing)
{
	struct rival_path p = {narrow_to_a};
	struct task_struct *t = rival_start(0, rival_run_path, &p);

	touch_narrow(true, true);
	KEXPECT_LOCKDEP_NONE();
	touch_narrow(false, true);
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

/* A, then A and B together, then A: A is common to all. */
static DEFINE_PER_CPU(long, pc_a_ab);
static DEFINE_SPINLOCK(pc_a_ab_a);
static DEFINE_SPINLOCK(pc_a_ab_b);

static void a_ab_under_a(void)
{
	spin_lock(&pc_a_ab_a);
	TOUCH(this_cpu_ptr(&pc_a_ab));
	spin_unlock(&pc_a_ab_a);
}

static void a_ab_under_a_and_b_then_a(void)
{
	spin_lock(&pc_a_ab_a);
	spin_lock(&pc_a_ab_b);
	TOUCH(this_cpu_ptr(&pc_a_ab));
	spin_unlock(&pc_a_ab_b);
	spin_unlock(&pc_a_ab_a);
	a_ab_under_a();
}

KTEST(lockdep_percpu, lock_a_then_a_and_b_silent)
{
	run_against(a_ab_under_a, a_ab_under_a_and_b_then_a);
	KEXPECT_LOCKDEP_NONE();
}

/* Two members of one per-CPU struct are two variables: each may have a
 * lock of its own. */
struct pc_pair {
	long pad;
	long a;
	long b;
};
static DEFINE_PER_CPU(struct pc_pair, pc_members);
static DEFINE_SPINLOCK(pc_members_a);
static DEFINE_SPINLOCK(pc_members_b);

static void members_each_under_its_lock(void)
{
	for (int i = 0; i < 2; i++) {
		spin_lock(&pc_members_a);
		TOUCH(this_cpu_ptr(&pc_members.a));
		spin_unlock(&pc_members_a);
		spin_lock(&pc_members_b);
		TOUCH(this_cpu_ptr(&pc_members.b));
		spin_unlock(&pc_members_b);
	}
}

KTEST(lockdep_percpu, members_are_separate_variables_silent)
{
	run_against(members_each_under_its_lock, members_each_under_its_lock);
	KEXPECT_LOCKDEP_NONE();
}

/* local_lock, then preemption off alone: on RT the first leaves
 * preemption on, so the two exclude nothing of each other. The same with
 * local_lock_irqsave() then IRQs off alone: the IRQs the local lock turns
 * off on RT=0 do not count. */
static DEFINE_PER_CPU(struct ll_counter, pc_ll_preempt) = {
	.lock = INIT_LOCAL_LOCK(lock)};
static DEFINE_PER_CPU(struct ll_counter, pc_ll_irq) = {
	.lock = INIT_LOCAL_LOCK(lock)};

KTEST(lockdep_percpu, inconsistent_local_lock_then_preempt_disable)
{
	touch_against(LOCKED_JOB(&pc_ll_preempt.n,
				 ANY_LOCK(LOCK_LOCAL, &pc_ll_preempt.lock)),
		      PREEMPT_OFF_JOB(&pc_ll_preempt.n));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

KTEST(lockdep_percpu, inconsistent_local_lock_irqsave_then_irqs_off)
{
	touch_against(LOCKED_JOB(&pc_ll_irq.n,
				 ANY_LOCK_FORM(LOCK_LOCAL, &pc_ll_irq.lock,
					       LOCK_IRQSAVE)),
		      IRQS_OFF_JOB(&pc_ll_irq.n));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

/* A spinlock_t's preemption-off on RT=0 does not count (the checker
 * reasons as on RT), so "spinlock_t, then preemption off" shares nothing;
 * a raw spinlock's does count, so "raw spinlock, then preemption off"
 * shares "preemption off". */
static DEFINE_PER_CPU(long, pc_spin_preempt);
static DEFINE_SPINLOCK(pc_spin_preempt_lock);
static DEFINE_PER_CPU(long, pc_raw_preempt);
static DEFINE_RAW_SPINLOCK(pc_raw_preempt_lock);

KTEST(lockdep_percpu, inconsistent_spinlock_then_preempt_disable)
{
	touch_against(LOCKED_JOB(&pc_spin_preempt,
				 ANY_LOCK(LOCK_SPIN, &pc_spin_preempt_lock)),
		      PREEMPT_OFF_JOB(&pc_spin_preempt));
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

KTEST(lockdep_percpu, raw_spinlock_then_preempt_disable_silent)
{
	touch_against(LOCKED_JOB(&pc_raw_preempt,
				 ANY_LOCK(LOCK_RAW, &pc_raw_preempt_lock)),
		      PREEMPT_OFF_JOB(&pc_raw_preempt));
	KEXPECT_LOCKDEP_NONE();
}

/* IRQs off implies preemption off: "preemption off" stays common. */
static DEFINE_PER_CPU(long, pc_preempt_irq);

static void preempt_irq_preempt_off(void)
{
	preempt_disable();
	TOUCH(this_cpu_ptr(&pc_preempt_irq));
	preempt_enable();
}

static void preempt_irq_irqs_off_then_cpu_var(void)
{
	unsigned long flags;

	local_irq_save(flags);
	TOUCH(this_cpu_ptr(&pc_preempt_irq));
	local_irq_restore(flags);
	get_cpu_var(pc_preempt_irq)++;
	put_cpu_var(pc_preempt_irq);
}

KTEST(lockdep_percpu, preempt_disable_then_irqs_off_silent)
{
	run_against(preempt_irq_preempt_off, preempt_irq_irqs_off_then_cpu_var);
	KEXPECT_LOCKDEP_NONE();
}

/* Across CPUs: a task on another CPU reaches the last CPU's copy under
 * lock A while its owner uses it under lock B. */
static DEFINE_PER_CPU(long, pc_cpus_ab);
static DEFINE_SPINLOCK(pc_cpus_ab_a);
static DEFINE_SPINLOCK(pc_cpus_ab_b);

KTEST_CPUS(lockdep_percpu, inconsistent_across_cpus, 2)
{
	struct touch_job jb =
		LOCKED_JOB(&pc_cpus_ab, ANY_LOCK(LOCK_SPIN, &pc_cpus_ab_b));
	struct task_struct *t = rival_start(last_cpu(), touch_fn, &jb);

	spin_lock(&pc_cpus_ab_a);
	per_cpu(pc_cpus_ab, last_cpu())++;
	spin_unlock(&pc_cpus_ab_a);
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
}

/* Two CPUs' copies are two pieces of data: lock A on one CPU's and lock
 * B on another's never meet. */
static DEFINE_PER_CPU(long, pc_cpus_apart);
static DEFINE_SPINLOCK(pc_cpus_apart_a);
static DEFINE_SPINLOCK(pc_cpus_apart_b);

KTEST_CPUS(lockdep_percpu, copies_are_separate_silent, 2)
{
	struct touch_job ja = LOCKED_JOB(&pc_cpus_apart,
					 ANY_LOCK(LOCK_SPIN, &pc_cpus_apart_a));
	struct touch_job jb = LOCKED_JOB(&pc_cpus_apart,
					 ANY_LOCK(LOCK_SPIN, &pc_cpus_apart_b));
	struct task_struct *a = rival_start(0, touch_fn, &ja);
	struct task_struct *b = ktest_spawn_on(last_cpu(), touch_fn, &jb, "ld-apart");

	ktest_join(a);
	ktest_join(b);
	KEXPECT_LOCKDEP_NONE();
}

/* ======================= LOCKDEP_PERCPU_IRQ ======================= */

/* Used in hardirq, and in a task with only preemption off: the interrupt
 * can come in the middle of the task's update. */
static DEFINE_PER_CPU(long, pc_irq_first);

KTEST(lockdep_percpu, irq_hardirq_then_task_preempt_disabled)
{
	ktest_in_hardirq(irq_touch, &pc_irq_first);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	preempt_disable();
	TOUCH(this_cpu_ptr(&pc_irq_first));
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_IRQ, 1);
}

static DEFINE_PER_CPU(long, pc_irq_task_first);

KTEST(lockdep_percpu, irq_task_get_cpu_var_then_hardirq)
{
	get_cpu_var(pc_irq_task_first)++;
	put_cpu_var(pc_irq_task_first);
	KEXPECT_EQ(lockdep_reports_total(), 0);
	ktest_in_hardirq(irq_touch, &pc_irq_task_first);
	ktest_in_hardirq(irq_touch, &pc_irq_task_first);
	get_cpu_var(pc_irq_task_first)++;
	put_cpu_var(pc_irq_task_first);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_IRQ, 1);
}

/* The task side with IRQs off: correct. */
static DEFINE_PER_CPU(long, pc_irq_ok);

KTEST(lockdep_percpu, irq_task_irqs_off_silent)
{
	unsigned long flags;

	ktest_in_hardirq(irq_touch, &pc_irq_ok);
	local_irq_save(flags);
	TOUCH(this_cpu_ptr(&pc_irq_ok));
	local_irq_restore(flags);
	ktest_in_hardirq(irq_touch, &pc_irq_ok);
	KEXPECT_LOCKDEP_NONE();
}

static DEFINE_PER_CPU(long, pc_irq_raw_ok);
static DEFINE_RAW_SPINLOCK(pc_irq_raw_lock);

KTEST(lockdep_percpu, irq_task_raw_spinlock_irqsave_silent)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&pc_irq_raw_lock, flags);
	TOUCH(this_cpu_ptr(&pc_irq_raw_ok));
	raw_spin_unlock_irqrestore(&pc_irq_raw_lock, flags);
	ktest_in_hardirq(irq_touch, &pc_irq_raw_ok);
	KEXPECT_LOCKDEP_NONE();
}

/* Only ever in hardirq: IRQs are off there, nothing to report. */
static DEFINE_PER_CPU(long, pc_irq_only);

KTEST(lockdep_percpu, irq_hardirq_only_silent)
{
	for (int i = 0; i < 2; i++)
		ktest_in_hardirq(irq_touch, &pc_irq_only);
	KEXPECT_LOCKDEP_NONE();
}

#endif /* CONFIG_LOCKDEP */
