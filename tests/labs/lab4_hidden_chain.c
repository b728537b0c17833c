/*
 * Lab 4's hidden check (docs/labs/lab4.md): priority inheritance along a
 * chain one link longer than tests/locking/pi.c's, in both directions. T0 (10)
 * holds L0; T1 (20) holds L1 and blocks on L0; T2 (30) holds L2 and
 * blocks on L1; T3 (40) holds L3 and blocks on L2; then H (50) blocks on
 * L3. Every owner down the chain must run at 50. Then H's own priority
 * changes while it is blocked: down to 15 (each owner falls back to the
 * highest of its own and what the rest of the chain donates: 40 for all
 * but T3, which keeps its own 40), up to 80 (all at 80). A walk that
 * stops after one or two links, or that only ever raises, fails here.
 *
 * As in tests/locking/pi.c, everything runs on the last CPU, so that priority
 * alone decides who runs, with the test task above every helper.
 */
#include <stdbool.h>

#include "cpumask.h"
#include "ktest.h"
#include "ktest_util.h"
#include "rtmutex.h"
#include "sched.h"

#define DEPTH 4                     /* locks; the init below names each */
#define MAIN_PRIO 90

static struct rt_mutex chain_lock[DEPTH];

struct link {
	int idx;                    /* holds chain_lock[idx] (if < DEPTH) */
	volatile int held, go, release, done;
	struct task_struct *task;
};

static struct link links[DEPTH + 1];
static volatile int chain_abort;

static bool link_wait(volatile int *flag)
{
	return ktest_helper_wait(load_int(flag) || load_int(&chain_abort),
				 POLL_SLEEP) &&
	       load_int(flag);
}

/* Take own lock (if any), say so; on go, block on the next one down the
 * chain (idx - 1); on release, let both go. */
static int link_fn(void *arg)
{
	struct link *l = arg;
	bool own = l->idx < DEPTH, next = false;

	if (own)
		rt_mutex_lock(&chain_lock[l->idx]);
	store_int(&l->held, 1);
	if (l->idx > 0 && link_wait(&l->go))
		next = rt_mutex_lock(&chain_lock[l->idx - 1]) == 0;
	link_wait(&l->release);
	if (next)
		rt_mutex_unlock(&chain_lock[l->idx - 1]);
	if (own)
		rt_mutex_unlock(&chain_lock[l->idx]);
	store_int(&l->done, 1);
	return 0;
}

static bool blocked(struct link *l)
{
	return l->task &&
	       __atomic_load_n(&l->task->pi_blocked_on, __ATOMIC_ACQUIRE);
}

/* task_prio() of T0..T3 into out[]. */
static void chain_prios(int *out)
{
	for (int i = 0; i < DEPTH; i++)
		out[i] = links[i].task ? task_prio(links[i].task) : -1;
}

KTEST(lab4_hidden, four_link_chain_boost_and_deboost)
{
	int cpu = last_cpu(), boost[DEPTH], low[DEPTH], high[DEPTH];
	const int base[DEPTH + 1] = {10, 20, 30, 40, 50};

	chain_abort = 0;
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, MAIN_PRIO), 0);
	/* One init site, one validator class, per lock: each link takes two. */
	rt_mutex_init(&chain_lock[0]);
	rt_mutex_init(&chain_lock[1]);
	rt_mutex_init(&chain_lock[2]);
	rt_mutex_init(&chain_lock[3]);
	for (int i = 0; i <= DEPTH; i++) {
		links[i] = (struct link){.idx = i};
		links[i].task = ktest_spawn(link_fn, &links[i], "chain", cpu,
					    SCHED_FIFO, base[i], true);
		KEXPECT_TRUE(ktest_poll_int(&links[i].held, 1, KTEST_WAIT_MS));
		if (i > 0) {
			store_int(&links[i].go, 1);
			KEXPECT_TRUE(ktest_poll_until(blocked(&links[i]),
						      KTEST_WAIT_MS,
						      POLL_SLEEP));
		}
	}
	chain_prios(boost);
	if (links[DEPTH].task)
		sched_setscheduler(links[DEPTH].task, SCHED_FIFO, 15);
	chain_prios(low);
	if (links[DEPTH].task)
		sched_setscheduler(links[DEPTH].task, SCHED_FIFO, 80);
	chain_prios(high);
	for (int i = 0; i <= DEPTH; i++)
		store_int(&links[i].release, 1);
	for (int i = 0; i <= DEPTH; i++)
		KEXPECT_TRUE(ktest_poll_int(&links[i].done, 1, KTEST_WAIT_MS));
	store_int(&chain_abort, 1);
	become_normal();
	for (int i = 0; i <= DEPTH; i++)
		ktest_join(links[i].task);
	set_cpus_allowed(current, cpumask_of(0));

	ktest_log("H at 50: %d %d %d %d; H at 15: %d %d %d %d; H at 80: "
		  "%d %d %d %d", boost[0], boost[1], boost[2], boost[3],
		  low[0], low[1], low[2], low[3], high[0], high[1], high[2],
		  high[3]);
	for (int i = 0; i < DEPTH; i++) {
		KEXPECT_EQ(boost[i], 50);
		KEXPECT_EQ(low[i], 40);
		KEXPECT_EQ(high[i], 80);
	}
	for (int i = 0; i < DEPTH; i++)
		KEXPECT_FALSE(rt_mutex_is_locked(&chain_lock[i]));
}
