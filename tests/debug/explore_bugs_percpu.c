/*
 * Planted bugs, per-CPU data (explore_bugs.h): this CPU's data used after
 * put_cpu(), after migrate_enable(), with no preempt_disable() at all,
 * across a this_cpu_read()/this_cpu_write() pair, and from both a task
 * and a hard interrupt with interrupts on. The per-CPU checker
 * (LOCKDEP=1) flags some of these without any interleaving; which ones
 * is measured by scripts/explore-eval.sh.
 */
#ifdef CONFIG_EXPLORE_BUGS
#include "explore_bugs.h"
#include "local_lock.h"
#include "percpu.h"
#include "spinlock.h"
#include "timer.h"

/* Sums a per-CPU int over the CPUs, once every writer has been joined
 * (per_cpu_ptr(): an address the checker does not take for an access). */
#define sum_per_cpu(var, member)                                              \
	({                                                                    \
		long sum_ = 0;                                                \
		for (unsigned c_ = 0; c_ < num_online_cpus(); c_++)           \
			sum_ += per_cpu_ptr(&(var), c_)->member;              \
		sum_;                                                         \
	})

/* A per-CPU buffer whose slot is reserved with preemption off but
 * filled after put_cpu(): another task on the CPU reserves it again. */
struct pcp_buf {
	int len;
	int slot[2 * BUG_ITERS];
};
static DEFINE_PER_CPU(struct pcp_buf, gcp_buf);

static int gcp_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		int cpu = get_cpu(), idx;
		struct pcp_buf *b = per_cpu_ptr(&gcp_buf, cpu);

		idx = b->len;
		put_cpu();  /* BUG: belongs after the slot is filled */
		b->slot[idx] = i;
		b->len = idx + 1;
	}
	return 0;
}

KTEST(explore_bugs, get_cpu_pairing)
{
	for (unsigned c = 0; c < num_online_cpus(); c++)
		per_cpu_ptr(&gcp_buf, c)->len = 0;
	bug_run_pair(gcp_worker);
	KEXPECT_EQ(sum_per_cpu(gcp_buf, len), 2 * BUG_ITERS);
}

/* The same list with no preempt_disable() at all. */
static DEFINE_PER_CPU(struct pcp_buf, mpd_buf);
static DEFINE_PER_CPU(int, mpd_adds);

static int mpd_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		struct pcp_buf *b = this_cpu_ptr(&mpd_buf); /* BUG: unpinned */
		int idx = b->len;

		(*this_cpu_ptr(&mpd_adds))++;
		b->slot[idx] = i;
		b->len = idx + 1;
	}
	return 0;
}

KTEST(explore_bugs, missing_preempt_disable)
{
	for (unsigned c = 0; c < num_online_cpus(); c++)
		per_cpu_ptr(&mpd_buf, c)->len = 0;
	bug_run_pair(mpd_worker);
	KEXPECT_EQ(sum_per_cpu(mpd_buf, len), 2 * BUG_ITERS);
}

/* this_cpu_read() and this_cpu_write() are each safe; the pair is not. */
static DEFINE_PER_CPU(int, tc_count);
static DEFINE_SPINLOCK(tc_stat_lock);
static int tc_stat;

static int tc_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		int v = this_cpu_read(tc_count);  /* BUG: not one operation */

		spin_lock(&tc_stat_lock);
		tc_stat++;
		spin_unlock(&tc_stat_lock);
		this_cpu_write(tc_count, v + 1);
	}
	return 0;
}

KTEST(explore_bugs, this_cpu_lost_update)
{
	long sum = 0;

	for (unsigned c = 0; c < num_online_cpus(); c++)
		*per_cpu_ptr(&tc_count, c) = 0;
	bug_run_pair(tc_worker);
	for (unsigned c = 0; c < num_online_cpus(); c++)
		sum += *per_cpu_ptr(&tc_count, c);
	KEXPECT_EQ(sum, 2 * BUG_ITERS);
}

/*
 * migrate_enable() too early: the slot of the CPU the task was pinned to
 * is updated under the local lock of the CPU it runs on now. After a
 * migration in between, that is another CPU's lock, and the slot's own
 * CPU may be updating it at the same time.
 */
struct mee_pcp {
	local_lock_t lock;
	int count;
};
static DEFINE_PER_CPU(struct mee_pcp, mee_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock),
};
static DEFINE_PER_CPU(int, mee_hits);
static int mee_foreign; /* slots updated under another CPU's lock */

static int mee_worker(void *arg)
{
	for (int i = 0; i < BUG_ITERS; i++) {
		struct mee_pcp *p;
		int v;

		migrate_disable();
		p = per_cpu_ptr(&mee_pcp, smp_processor_id());
		migrate_enable();  /* BUG: p is used below */
		local_lock(&mee_pcp.lock);
		if (p != this_cpu_ptr(&mee_pcp))
			__atomic_fetch_add(&mee_foreign, 1, __ATOMIC_RELAXED);
		v = p->count;
		(*this_cpu_ptr(&mee_hits))++;
		p->count = v + 1;
		local_unlock(&mee_pcp.lock);
	}
	return 0;
}

/* The slot's own lock must be the one held: a slot updated under another
 * CPU's lock is unprotected, whether or not an update is lost this time. */
KTEST_CPUS(explore_bugs, migrate_enable_early, 2)
{
	mee_foreign = 0;
	for (unsigned c = 0; c < num_online_cpus(); c++)
		per_cpu_ptr(&mee_pcp, c)->count = 0;
	bug_run_pair(mee_worker);
	KEXPECT_EQ(mee_foreign, 0);
	KEXPECT_EQ(sum_per_cpu(mee_pcp, count), 2 * BUG_ITERS);
}

/* A per-CPU count a timer interrupt also bumps, updated by the task with
 * preemption off but interrupts on: a tick inside the read-modify-write
 * is lost. */
#define PHI_ITERS 200
#define PHI_PERIOD_NS 200000
struct phi_pcp {
	int count, last;
};
static DEFINE_PER_CPU(struct phi_pcp, phi);
static struct timer_list phi_timer;
static volatile int phi_hits;

static void phi_tick(struct timer_list *t)
{
	this_cpu_ptr(&phi)->count++;
	phi_hits++;
}

/* Timers run under their base's lock and may not re-arm themselves: the
 * task arms the next one once the last has fired. */
static void phi_arm(void)
{
	if (__atomic_load_n(&phi_timer.cpu, __ATOMIC_ACQUIRE) < 0)
		add_timer(&phi_timer, ktime_get_ns() + PHI_PERIOD_NS);
}

KTEST(explore_bugs, percpu_hardirq)
{
	int before;

	phi_hits = 0;
	timer_setup_hard(&phi_timer, phi_tick);
	migrate_disable();
	before = this_cpu_ptr(&phi)->count;
	for (int i = 0; i < PHI_ITERS; i++) {
		int v;

		preempt_disable();  /* BUG: the timer needs IRQs off */
		v = this_cpu_ptr(&phi)->count;
		this_cpu_ptr(&phi)->last = v;
		this_cpu_ptr(&phi)->count = v + 1;
		preempt_enable();
		phi_arm();
		udelay(5);
	}
	del_timer(&phi_timer);
	KEXPECT_EQ(this_cpu_ptr(&phi)->count - before, PHI_ITERS + phi_hits);
	migrate_enable();
}
#endif /* CONFIG_EXPLORE_BUGS */
