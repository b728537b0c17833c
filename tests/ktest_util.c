/*
 * The helper tasks tests start: created, placed, given a policy and
 * woken in one call (tests/ktest_util.h), with a failure recorded in the
 * test rather than left to a NULL dereference; and exhausting kmalloc.
 */
#include "kmalloc.h"
#include "ktest.h"
#include "ktest_util.h"
#include "sched.h"
#include "wait.h"

struct tick_watch ktest_tick_watch;

struct task_struct *ktest_spawn(int (*fn)(void *), void *arg, const char *name,
			 int cpu, int policy, int prio, bool wake)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (!t) {
		ktest_fail_msg(__FILE__, __LINE__, "kthread_create(%s) failed",
			       name);
		return 0;
	}
	if (cpu >= 0)
		kthread_bind(t, cpu);
	if (policy != SCHED_NORMAL && sched_setscheduler(t, policy, prio))
		ktest_fail_msg(__FILE__, __LINE__, "sched_setscheduler(%s, %d, "
			       "%d) failed", name, policy, prio);
	if (wake)
		wake_up_process(t);
	return t;
}

int ktest_join(struct task_struct *t)
{
	return t ? kthread_join(t) : -1;
}

void ktest_wake_all(struct task_struct *const *t, int n)
{
	for (int i = 0; i < n; i++)
		if (t[i])
			wake_up_process(t[i]);
}

void ktest_join_all(struct task_struct *const *t, int n)
{
	for (int i = 0; i < n; i++)
		ktest_join(t[i]);
}

int ktest_spin_until_stopped(void *stop)
{
	ktest_helper_wait(load_int(stop), POLL_SPIN);
	return 0;
}

void record_context(void *arg)
{
	struct call_record *r = arg;

	r->cpu = raw_smp_processor_id();
	r->irqs_off = irqs_disabled();
	r->in_hardirq = in_hardirq();
	__atomic_fetch_add(&r->ran, 1, __ATOMIC_RELEASE);
}

void expect_hardirq_record(const struct call_record *r, int cpu)
{
	KEXPECT_EQ(__atomic_load_n(&r->ran, __ATOMIC_ACQUIRE), 1);
	KEXPECT_EQ(r->cpu, cpu);
	KEXPECT_TRUE(r->in_hardirq);
	KEXPECT_TRUE(r->irqs_off);
}

void *ktest_kmalloc_exhaust(void)
{
	void *blocks = 0, *p;

	for (size_t size = 1ul << 20; size >= 16; size /= 2) {
		while ((p = kmalloc(size))) {
			*(void **)p = blocks;
			blocks = p;
		}
	}
	return blocks;
}

void ktest_kmalloc_release(void *blocks)
{
	while (blocks) {
		void *p = blocks;

		blocks = *(void **)p;
		kfree(p);
	}
}

static DECLARE_WAIT_QUEUE_HEAD(warm_wq);
static volatile int warm_stop;

static int warm_wait(void *arg)
{
	wait_event(warm_wq, load_int(&warm_stop));
	return 0;
}

void ktest_warm_kstacks(int n)
{
	static struct task_struct *t[256];

	if (n > 256)
		n = 256;
	store_int(&warm_stop, 0);
	for (int i = 0; i < n; i++)
		t[i] = kthread_run(warm_wait, 0, "warm");
	store_int(&warm_stop, 1);
	wake_up(&warm_wq);
	for (int i = 0; i < n; i++)
		if (t[i])
			kthread_join(t[i]);
}
