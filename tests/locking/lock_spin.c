/*
 * Adaptive spinning (kernel/locking/rtmutex_spin.c): a waiter spins while the
 * owner runs on another CPU, sleeps while it does not, queues (and so
 * boosts the owner) when it is of higher priority, and stops spinning for
 * a more urgent task on its CPU. Each test counts what the kernel does
 * (context switches on the waiter's CPU, the waiter's queue link, the
 * owner's priority), never how long anything takes. The lock is an
 * rt_mutex, or a mutex (FIFO, no inheritance on RT=0), which spins the
 * same way.
 */
#include "completion.h"
#include "ktest.h"
#include "ktest_util.h"
#include "lock_kind.h"
#include "rtmutex.h"
#include "sched.h"

/* Long enough that the waiter arrives while the owner still runs. */
#define HOLD_SPINS 200000

static struct {
	struct any_lock lock;    /* pool lock 0 of its kind */
	volatile int held;       /* the owner holds the lock */
	volatile int waiting;    /* the waiter is about to lock */
	volatile int release;    /* the owner may unlock */
	volatile int urgent_ran; /* the RT task on the waiter's CPU ran */
	unsigned long switches;  /* on the waiter's CPU, during its lock */
	struct completion sleep; /* the sleeping owner waits on this */
} ls;

static void ls_reset(enum lock_kind k)
{
	ls.lock = ANY_LOCK(k, lock_pool(k, 0));
	lock_kinds[k].init(ls.lock.lock, 0);
	ls.held = ls.waiting = ls.release = ls.urgent_ran = 0;
	ls.switches = ~0ul; /* the waiter has not counted yet */
	init_completion(&ls.sleep);
}

/* Holds the lock, running, until the waiter has come and HOLD_SPINS more
 * pauses have passed (or the test says release). */
static int owner_running(void *arg)
{
	struct any_lock l = ls.lock;

	any_lock_acquire(&l);
	store_int(&ls.held, 1);
	while (!load_int(&ls.waiting) && !load_int(&ls.release))
		cpu_relax();
	for (long i = 0; i < HOLD_SPINS && !load_int(&ls.release); i++)
		cpu_relax();
	while (arg && !load_int(&ls.release))
		cpu_relax(); /* arg: only the test releases */
	any_lock_release(&l);
	return 0;
}

static int owner_sleeping(void *arg)
{
	struct any_lock l = ls.lock;

	any_lock_acquire(&l);
	store_int(&ls.held, 1);
	wait_for_completion(&ls.sleep);
	any_lock_release(&l);
	return 0;
}

static bool queued_asleep(struct task_struct *t)
{
	return __atomic_load_n(&t->pi_blocked_on, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE);
}

static unsigned long switches_on(int cpu)
{
	return __atomic_load_n(raw_per_cpu_ptr(&nr_switches, cpu),
			       __ATOMIC_RELAXED);
}

/* Locks once, counting the context switches on its CPU meanwhile. */
static int waiter(void *arg)
{
	struct any_lock l = ls.lock;
	int cpu = raw_smp_processor_id();
	unsigned long before;

	while (!load_int(&ls.held))
		cpu_relax();
	before = switches_on(cpu);
	store_int(&ls.waiting, 1);
	any_lock_acquire(&l);
	ls.switches = switches_on(cpu) - before;
	any_lock_release(&l);
	return 0;
}

/* An equal-priority waiter, alone on its CPU, never leaves it: it spins
 * until the running owner releases, and takes the lock unqueued. */
static void check_waiter_spins(enum lock_kind k)
{
	struct task_struct *o, *w;

	ls_reset(k);
	o = ktest_spawn(owner_running, 0, "ls_owner", 1, SCHED_FIFO, 10, true);
	w = ktest_spawn(waiter, 0, "ls_waiter", 0, SCHED_FIFO, 10, true);
	KEXPECT_EQ(ktest_join(w), 0);
	KEXPECT_EQ(ktest_join(o), 0);
	KEXPECT_EQ(ls.switches, 0);
	KEXPECT_FALSE(any_lock_is_locked(&ls.lock));
}

KTEST_CPUS(lock_spin, waiter_spins_while_owner_runs, 2)
{
	check_waiter_spins(LOCK_RTMUTEX);
}

/* A waiter whose owner sleeps holding the lock must sleep too: queued,
 * off its CPU, until the owner releases. */
KTEST_CPUS(lock_spin, waiter_sleeps_while_owner_sleeps, 2)
{
	struct task_struct *o, *w;
	bool queued;

	ls_reset(LOCK_RTMUTEX);
	o = ktest_spawn(owner_sleeping, 0, "ls_owner", 1, SCHED_FIFO, 10, true);
	w = ktest_spawn(waiter, 0, "ls_waiter", 0, SCHED_FIFO, 10, true);
	queued = ktest_poll_until(w && queued_asleep(w), KTEST_WAIT_MS,
				  POLL_SLEEP);
	KEXPECT_TRUE(queued);
	complete(&ls.sleep);
	KEXPECT_EQ(ktest_join(w), 0);
	KEXPECT_EQ(ktest_join(o), 0);
	KEXPECT_GE(ls.switches, 2); /* away and back */
}

/* A higher-priority waiter does not spin unqueued: it queues, and the
 * owner, running all the while on its own CPU, inherits its priority.
 * Both spin: the test watches from a third CPU. */
KTEST_CPUS(lock_spin, higher_prio_waiter_boosts_running_owner, 3)
{
	struct task_struct *o, *w;
	bool boosted;

	ls_reset(LOCK_RTMUTEX);
	o = ktest_spawn(owner_running, (void *)1, "ls_owner", 2, SCHED_FIFO,
			10, true);
	w = ktest_spawn(waiter, 0, "ls_waiter", 1, SCHED_FIFO, 50, true);
	boosted = ktest_poll_until(o && task_prio(o) == 50, KTEST_WAIT_MS,
				   POLL_SLEEP);
	KEXPECT_TRUE(boosted);
	store_int(&ls.release, 1);
	KEXPECT_EQ(ktest_join(w), 0);
	KEXPECT_EQ(ktest_join(o), 0);
	KEXPECT_EQ(task_prio(current), 0);
}

/* The RT task that must run on the spinner's CPU. */
static int urgent(void *arg)
{
	store_int(&ls.urgent_ran, 1);
	store_int(&ls.release, 1);
	return 0;
}

/* A spinner gives way to a more urgent task on its CPU (need_resched()):
 * here the owner releases only once that task has run, so a spinner that
 * kept spinning would never get the lock (the test would time out). */
KTEST_CPUS(lock_spin, spinner_yields_to_urgent_task, 3)
{
	struct task_struct *o, *w, *u;

	ls_reset(LOCK_RTMUTEX);
	o = ktest_spawn(owner_running, (void *)1, "ls_owner", 2, SCHED_FIFO,
			10, true);
	w = ktest_spawn(waiter, 0, "ls_waiter", 1, SCHED_FIFO, 10, true);
	KEXPECT_TRUE(ktest_poll_int(&ls.waiting, 1, KTEST_WAIT_MS));
	u = ktest_spawn(urgent, 0, "ls_urgent", 1, SCHED_FIFO, 60, true);
	KEXPECT_EQ(ktest_join(u), 0);
	KEXPECT_EQ(ktest_join(w), 0);
	KEXPECT_EQ(ktest_join(o), 0);
	KEXPECT_EQ(load_int(&ls.urgent_ran), 1);
}

/* A mutex (FIFO, no inheritance on RT=0) spins the same way. */
KTEST_CPUS(lock_spin, mutex_waiter_spins_while_owner_runs, 2)
{
	check_waiter_spins(LOCK_MUTEX);
}
