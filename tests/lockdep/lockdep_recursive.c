/*
 * The lock validator's LOCKDEP_RECURSIVE scenarios: one class taken twice
 * (two locks of one class, never one lock twice), its documented nesting,
 * trylocks, and task vs. hardirq context (lockdep_suite.h has the rules).
 */
#ifdef CONFIG_LOCKDEP

#include "lockdep_suite.h"

/* ======================= LOCKDEP_RECURSIVE ======================= */

/* a and b given one class (key), b taken under a: the class taken twice
 * (with one lock it would really deadlock), unless b is taken at the
 * documented nesting, subclass 1. */
static void check_same_class(struct any_lock a, struct any_lock b,
			     struct lock_class_key *key, unsigned int subclass)
{
	any_lock_ops(&a)->init(a.lock, key);
	any_lock_ops(&b)->init(b.lock, key);
	b.subclass = subclass;
	KEXPECT_EQ(any_lock_acquire(&a), 0);
	KEXPECT_EQ(any_lock_acquire(&b), 0);
	any_lock_release(&b);
	any_lock_release(&a);
	if (subclass)
		KEXPECT_LOCKDEP_NONE();
	else
		KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

static struct lock_class_key rec_raw_key, rec_spin_key, rec_mutex_key,
	rec_rtm_key;
static DEFINE_RAW_SPINLOCK(rec_raw_a);
static DEFINE_RAW_SPINLOCK(rec_raw_b);
static DEFINE_SPINLOCK(rec_spin_a);
static DEFINE_SPINLOCK(rec_spin_b);
static DEFINE_MUTEX(rec_mutex_a);
static DEFINE_MUTEX(rec_mutex_b);
static DEFINE_RT_MUTEX(rec_rtm_a);
static DEFINE_RT_MUTEX(rec_rtm_b);

KTEST(lockdep, recursive_raw_same_class)
{
	check_same_class(R(rec_raw_a), R(rec_raw_b), &rec_raw_key, 0);
}

KTEST(lockdep, recursive_spinlock_same_class)
{
	check_same_class(S(rec_spin_a), S(rec_spin_b), &rec_spin_key, 0);
}

KTEST(lockdep, recursive_mutex_same_class)
{
	check_same_class(M(rec_mutex_a), M(rec_mutex_b), &rec_mutex_key, 0);
}

KTEST(lockdep, recursive_rt_mutex_same_class)
{
	check_same_class(RT(rec_rtm_a), RT(rec_rtm_b), &rec_rtm_key, 0);
}

/* Locks set up by one *_init() call site share its class. */
static spinlock_t rec_site[2];

KTEST(lockdep, recursive_init_site_class)
{
	for (int i = 0; i < 2; i++)
		spin_lock_init(&rec_site[i]);
	spin_lock(&rec_site[0]);
	spin_lock(&rec_site[1]);
	spin_unlock(&rec_site[1]);
	spin_unlock(&rec_site[0]);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* Two locks from two different init sites are two classes. */
static struct mutex rec_two_sites_a, rec_two_sites_b;

KTEST(lockdep, recursive_two_init_sites_silent)
{
	mutex_init(&rec_two_sites_a);
	mutex_init(&rec_two_sites_b);
	take_nested(M(rec_two_sites_a), M(rec_two_sites_b));
	KEXPECT_LOCKDEP_NONE();
}

/* The documented nesting (subclass 1) is silent, for every lock type. */
static struct lock_class_key rec_nest_raw_key, rec_nest_spin_key,
	rec_nest_mutex_key, rec_nest_rtm_key;
static DEFINE_RAW_SPINLOCK(rec_nest_raw_a);
static DEFINE_RAW_SPINLOCK(rec_nest_raw_b);
static DEFINE_SPINLOCK(rec_nest_spin_a);
static DEFINE_SPINLOCK(rec_nest_spin_b);
static DEFINE_MUTEX(rec_nest_mutex_a);
static DEFINE_MUTEX(rec_nest_mutex_b);
static DEFINE_RT_MUTEX(rec_nest_rtm_a);
static DEFINE_RT_MUTEX(rec_nest_rtm_b);

KTEST(lockdep, recursive_raw_nested_silent)
{
	check_same_class(R(rec_nest_raw_a), R(rec_nest_raw_b),
			 &rec_nest_raw_key, SINGLE_DEPTH_NESTING);
}

KTEST(lockdep, recursive_spinlock_nested_silent)
{
	check_same_class(S(rec_nest_spin_a), S(rec_nest_spin_b),
			 &rec_nest_spin_key, SINGLE_DEPTH_NESTING);
}

KTEST(lockdep, recursive_mutex_nested_silent)
{
	check_same_class(M(rec_nest_mutex_a), M(rec_nest_mutex_b),
			 &rec_nest_mutex_key, SINGLE_DEPTH_NESTING);
}

KTEST(lockdep, recursive_rt_mutex_nested_silent)
{
	check_same_class(RT(rec_nest_rtm_a), RT(rec_nest_rtm_b),
			 &rec_nest_rtm_key, SINGLE_DEPTH_NESTING);
}

/* A third lock at the same subclass as the second is recursion again. */
static struct lock_class_key rec_sub_key;
static DEFINE_RAW_SPINLOCK(rec_sub_a);
static DEFINE_RAW_SPINLOCK(rec_sub_b);
static DEFINE_RAW_SPINLOCK(rec_sub_c);

KTEST(lockdep, recursive_same_subclass_twice)
{
	lockdep_set_class(&rec_sub_a, &rec_sub_key);
	lockdep_set_class(&rec_sub_b, &rec_sub_key);
	lockdep_set_class(&rec_sub_c, &rec_sub_key);
	raw_spin_lock(&rec_sub_a);
	raw_spin_lock_nested(&rec_sub_b, SINGLE_DEPTH_NESTING);
	raw_spin_lock_nested(&rec_sub_c, SINGLE_DEPTH_NESTING);
	raw_spin_unlock(&rec_sub_c);
	raw_spin_unlock(&rec_sub_b);
	raw_spin_unlock(&rec_sub_a);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* A trylock cannot deadlock: it is not checked. */
static struct lock_class_key rec_try_key;
static DEFINE_SPINLOCK(rec_try_a);
static DEFINE_SPINLOCK(rec_try_b);

KTEST(lockdep, recursive_trylock_silent)
{
	bool got;

	lockdep_set_class(&rec_try_a, &rec_try_key);
	lockdep_set_class(&rec_try_b, &rec_try_key);
	spin_lock(&rec_try_a);
	got = spin_trylock(&rec_try_b);
	if (got)
		spin_unlock(&rec_try_b);
	spin_unlock(&rec_try_a);
	KEXPECT_TRUE(got);
	KEXPECT_LOCKDEP_NONE();
}

/* The same chain of held classes is validated once: doing the same
 * recursion again is not a second report. */
static struct lock_class_key rec_once_key;
static DEFINE_MUTEX(rec_once_a);
static DEFINE_MUTEX(rec_once_b);

KTEST(lockdep, recursive_reported_once)
{
	lockdep_set_class(&rec_once_a, &rec_once_key);
	lockdep_set_class(&rec_once_b, &rec_once_key);
	for (int i = 0; i < 3; i++) {
		mutex_lock(&rec_once_a);
		mutex_lock(&rec_once_b);
		mutex_unlock(&rec_once_b);
		mutex_unlock(&rec_once_a);
	}
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

/* Held in the task, taken in an interrupt on the same CPU: two contexts,
 * so not recursion. (The class is then used in hardirq and held with
 * IRQs on, which is its own report: IRQ_STATE, the only one.) */
static struct lock_class_key rec_irq_key;
static DEFINE_RAW_SPINLOCK(rec_irq_task);
static DEFINE_RAW_SPINLOCK(rec_irq_irq);

static void rec_irq_fn(void *arg)
{
	raw_spin_lock(&rec_irq_irq);
	raw_spin_unlock(&rec_irq_irq);
}

KTEST(lockdep, recursive_task_vs_hardirq_not_recursive)
{
	lockdep_set_class(&rec_irq_task, &rec_irq_key);
	lockdep_set_class(&rec_irq_irq, &rec_irq_key);
	raw_spin_lock(&rec_irq_task);
	ktest_in_hardirq(rec_irq_fn, 0);
	raw_spin_unlock(&rec_irq_task);
	KEXPECT_EQ(lockdep_reports(LOCKDEP_RECURSIVE), 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_IRQ_STATE, 1);
}

/* Inside one interrupt handler, the same class twice is recursion. */
static struct lock_class_key rec_in_irq_key;
static DEFINE_RAW_SPINLOCK(rec_in_irq_a);
static DEFINE_RAW_SPINLOCK(rec_in_irq_b);

static void rec_in_irq_fn(void *arg)
{
	take_nested(R(rec_in_irq_a), R(rec_in_irq_b));
}

KTEST(lockdep, recursive_in_hardirq)
{
	lockdep_set_class(&rec_in_irq_a, &rec_in_irq_key);
	lockdep_set_class(&rec_in_irq_b, &rec_in_irq_key);
	ktest_in_hardirq(rec_in_irq_fn, 0);
	KEXPECT_LOCKDEP_ONLY(LOCKDEP_RECURSIVE, 1);
}

#endif /* CONFIG_LOCKDEP */
