/*
 * The per-CPU checker on dynamic per-CPU memory (kernel/mm/percpu.c,
 * kernel/locking/lockdep_percpu.c): an alloc_percpu() pointer reached
 * through this_cpu_ptr() or per_cpu() is checked exactly as a static
 * per-CPU variable is. The scenarios are the lockdep_percpu suite's,
 * with its rivals (tests/lockdep/lockdep_percpu.h): a racy use is
 * reported with the right kind, a protected one is silent; a lock inside
 * dynamic per-CPU memory protects its own CPU's copy only; and freeing
 * gives the checker a new variable at the same address, reported anew.
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep/lockdep_percpu.h"
#include "percpu_alloc.h"

KTEST_SUITE(lockdep_percpu_dynamic, .init = lockdep_reset,
	    .exit = lockdep_reset);

/* The variable of the test running now (rival paths take no argument). */
static long *dyn;

static long *dyn_alloc(void)
{
	return dyn = alloc_percpu(long);
}

static void irq_touch(void *arg)
{
	TOUCH(this_cpu_ptr((long *)arg));
}

/* The rival runs path, the test runs mine: the two are concurrent. */
static void run_against(void (*path)(void), void (*mine)(void))
{
	struct rival_path p = {path};
	struct task_struct *t = rival_start(0, rival_run_path, &p);

	mine();
	ktest_join(t);
}

/* ---- racy: reported ---- */

KTEST(lockdep_percpu_dynamic, unprotected_reported)
{
	struct touch_job rival;
	struct task_struct *t;

	KASSERT_NE(dyn_alloc(), 0);
	rival = BARE_JOB(dyn);
	t = rival_start(0, touch_fn, &rival);
	TOUCH(this_cpu_ptr(dyn));
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
	free_percpu(dyn);
}

/* Two this_cpu operations on *p with a preemption possible between. */
KTEST(lockdep_percpu_dynamic, this_cpu_read_then_write_lost_update)
{
	long v;

	KASSERT_NE(dyn_alloc(), 0);
	v = this_cpu_read(*dyn);
	this_cpu_write(*dyn, v + 1);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
	free_percpu(dyn);
}

static DEFINE_SPINLOCK(dyn_a);
static DEFINE_SPINLOCK(dyn_b);

static void under_a(void)
{
	spin_lock(&dyn_a);
	TOUCH(this_cpu_ptr(dyn));
	spin_unlock(&dyn_a);
}

static void under_b(void)
{
	spin_lock(&dyn_b);
	TOUCH(this_cpu_ptr(dyn));
	spin_unlock(&dyn_b);
}

KTEST(lockdep_percpu_dynamic, inconsistent_lock_a_then_lock_b)
{
	KASSERT_NE(dyn_alloc(), 0);
	run_against(under_a, under_b);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_INCONSISTENT, 1);
	free_percpu(dyn);
}

KTEST(lockdep_percpu_dynamic, hardirq_and_task_irqs_on)
{
	KASSERT_NE(dyn_alloc(), 0);
	ktest_in_hardirq(irq_touch, dyn);
	preempt_disable();
	TOUCH(this_cpu_ptr(dyn));
	preempt_enable();
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_IRQ, 1);
	free_percpu(dyn);
}

/* ---- protected: silent ---- */

KTEST(lockdep_percpu_dynamic, preempt_disabled_silent)
{
	struct touch_job rival;
	struct task_struct *t;

	KASSERT_NE(dyn_alloc(), 0);
	rival = PREEMPT_OFF_JOB(dyn);
	t = rival_start(0, touch_fn, &rival);
	preempt_disable();
	TOUCH(this_cpu_ptr(dyn));
	preempt_enable();
	ktest_join(t);
	KEXPECT_LOCKDEP_NONE();
	free_percpu(dyn);
}

static DEFINE_PER_CPU(local_lock_t, dyn_ll) = INIT_LOCAL_LOCK(dyn_ll);

static void under_local_lock(void)
{
	local_lock(&dyn_ll);
	TOUCH(this_cpu_ptr(dyn));
	local_unlock(&dyn_ll);
}

KTEST(lockdep_percpu_dynamic, local_lock_silent)
{
	KASSERT_NE(dyn_alloc(), 0);
	run_against(under_local_lock, under_local_lock);
	KEXPECT_LOCKDEP_NONE();
	free_percpu(dyn);
}

static void under_get_cpu(void)
{
	int cpu = get_cpu();

	per_cpu(*dyn, cpu)++;
	put_cpu();
}

KTEST(lockdep_percpu_dynamic, get_cpu_silent)
{
	KASSERT_NE(dyn_alloc(), 0);
	run_against(under_get_cpu, under_get_cpu);
	KEXPECT_LOCKDEP_NONE();
	free_percpu(dyn);
}

KTEST(lockdep_percpu_dynamic, hardirq_and_task_irqs_off_silent)
{
	unsigned long flags;

	KASSERT_NE(dyn_alloc(), 0);
	ktest_in_hardirq(irq_touch, dyn);
	local_irq_save(flags);
	TOUCH(this_cpu_ptr(dyn));
	local_irq_restore(flags);
	ktest_in_hardirq(irq_touch, dyn);
	KEXPECT_LOCKDEP_NONE();
	free_percpu(dyn);
}

/* ---- identity: one allocation is one variable, until freed ---- */

/* A racy use of p is reported; p freed and the same address allocated
 * again is a new variable, whose racy use is reported again (were the
 * old one's "reported once" remembered, the new race would be missed). */
static void race_on(long *p)
{
	struct touch_job rival = BARE_JOB(p);
	struct task_struct *t = rival_start(0, touch_fn, &rival);

	TOUCH(this_cpu_ptr(p));
	ktest_join(t);
}

KTEST(lockdep_percpu_dynamic, reallocated_address_is_a_new_variable)
{
	long *p = alloc_percpu(long), *q;

	KASSERT_NE(p, 0);
	race_on(p);
	race_on(p);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_PERCPU_UNPROTECTED), 1);
	free_percpu(p);
	q = alloc_percpu(long);
	KASSERT_EQ(q, p);
	race_on(q);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 2);
	free_percpu(q);
}

/* Nor does the old variable's owner: a rival that used p (with
 * preemption off) is still alive, and nothing orders its access before
 * the test's. p is freed and its address allocated again: the test's bare
 * use of the new variable, alone, is its owner's and silent. (Were the
 * old record kept, the rival's access would count as concurrent with it,
 * and the bare use be reported.) */
static volatile int old_owner_release;

static int old_owner(void *arg)
{
	preempt_disable();
	TOUCH(this_cpu_ptr((long *)arg));
	preempt_enable();
	rival_made_access();
	ktest_helper_wait(load_int(&old_owner_release), POLL_SLEEP);
	return 0;
}

KTEST(lockdep_percpu_dynamic, reallocated_address_starts_unowned)
{
	long *p = alloc_percpu(long), *q;
	struct task_struct *t;

	KASSERT_NE(p, 0);
	store_int(&old_owner_release, 0);
	t = rival_start(0, old_owner, p);
	free_percpu(p);
	q = alloc_percpu(long);
	if (q == p)
		TOUCH(this_cpu_ptr(q));
	store_int(&old_owner_release, 1);
	ktest_join(t);
	KEXPECT_EQ(q, p);
	KEXPECT_LOCKDEP_NONE();
	free_percpu(q);
}

/* ---- a lock inside dynamic per-CPU memory ---- */

struct dyn_sl {
	spinlock_t lock;
	long n;
};

static struct dyn_sl *dyn_sl_alloc(void)
{
	struct dyn_sl *p = alloc_percpu(struct dyn_sl);
	int cpu;

	if (p)
		for_each_possible_cpu(cpu)
			spin_lock_init(per_cpu_ptr(&p->lock, cpu));
	return p;
}

/* The owner of its CPU's copy, under the lock inside that copy. */
static int dyn_sl_owner(void *arg)
{
	struct dyn_sl *p = arg;

	spin_lock(this_cpu_ptr(&p->lock));
	this_cpu_ptr(p)->n++;
	spin_unlock(this_cpu_ptr(&p->lock));
	rival_made_access();
	return 0;
}

/* CPU 0's lock does not protect CPU d's copy. */
KTEST_CPUS(lockdep_percpu_dynamic, other_cpus_lock_does_not_protect, 2)
{
	struct dyn_sl *p = dyn_sl_alloc();
	int d = last_cpu();
	struct task_struct *t;

	KASSERT_NE(p, 0);
	t = rival_start(d, dyn_sl_owner, p);
	spin_lock(per_cpu_ptr(&p->lock, 0));
	per_cpu(*p, d).n++;
	spin_unlock(per_cpu_ptr(&p->lock, 0));
	ktest_join(t);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_PERCPU_UNPROTECTED, 1);
	free_percpu(p);
}

/* CPU d's own lock does. */
KTEST_CPUS(lockdep_percpu_dynamic, own_cpus_lock_protects, 2)
{
	struct dyn_sl *p = dyn_sl_alloc();
	int d = last_cpu();
	struct task_struct *t;

	KASSERT_NE(p, 0);
	t = rival_start(d, dyn_sl_owner, p);
	spin_lock(per_cpu_ptr(&p->lock, d));
	per_cpu(*p, d).n++;
	spin_unlock(per_cpu_ptr(&p->lock, d));
	ktest_join(t);
	KEXPECT_LOCKDEP_NONE();
	KEXPECT_EQ(per_cpu_ptr(p, d)->n, 2);
	free_percpu(p);
}

#endif /* CONFIG_LOCKDEP */
