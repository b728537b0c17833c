/*
 * The priority-inheritance tests' actors, acquisition log and direction
 * (pi_actor.h).
 */
#include "cpumask.h"
#include "pi_actor.h"
#include "smp.h"
#include "vsprintf.h"

#define LOG_MAX 16

volatile int pi_abort;
struct rt_mutex lock_a, lock_b, lock_c;
static int pi_cpu;
static struct actor actors[5];

/* ---- the acquisition log ---- */

static struct {
	volatile int n;
	int who[LOG_MAX];
	int prio[LOG_MAX];
} acq;

void acq_log(int who)
{
	int i = __atomic_fetch_add(&acq.n, 1, __ATOMIC_ACQ_REL);

	if (i < LOG_MAX) {
		acq.who[i] = who;
		acq.prio[i] = task_prio(current);
	}
}

/* Unlogged entries read -1: a short log fails on them too. */
void expect_log(int n, const int *who, const int *prio)
{
	int len = n < LOG_MAX ? n : LOG_MAX;

	KEXPECT_EQ(acq.n, n);
	expect_ints("acquired by (id)", acq.who, who, len);
	expect_ints("at priority", acq.prio, prio, len);
}

void expect_ints(const char *what, const int *got, const int *want, int n)
{
	char buf[160];
	int len = 0;

	for (int i = 0; i < n && len < 140; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %d (%d)",
				got[i], want[i]);
	buf[len] = 0;
	ktest_log("%s (wanted):%s", what, buf);
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(got[i], want[i]);
}

/* ---- actors ---- */

struct actor *actor(int i, const char *name, int prio, void *own,
		    void *next)
{
	actors[i] = (struct actor){
		.name = name, .id = prio, .prio = prio, .kind = LOCK_RTMUTEX,
		.own = own, .next = next, .wait_go = own && next,
		.wait_release = own && !next};
	return &actors[i];
}

static bool actor_wait(volatile int *flag)
{
	return ktest_helper_wait(load_int(flag) || load_int(&pi_abort),
				 POLL_SLEEP) &&
	       load_int(flag);
}

static int actor_fn(void *arg)
{
	struct actor *a = arg;
	struct any_lock own = ANY_LOCK(a->kind, a->own);
	struct any_lock next = ANY_LOCK(a->kind, a->next);

	a->ret = -1;
	if (a->own) {
		any_lock_acquire(&own);
		if (!a->next)
			acq_log(a->id);
		store_int(&a->state, ST_OWN_HELD);
	}
	if (a->next && (!a->wait_go || actor_wait(&a->go))) {
		store_int(&a->state, ST_WAITING);
		a->ret = any_lock_acquire(&next);
		if (a->ret == 0) {
			acq_log(a->id);
			store_int(&a->state, ST_NEXT_HELD);
		} else {
			a->next_word = __atomic_load_n(
				&any_lock_rtmutex(&next)->owner,
				__ATOMIC_RELAXED);
			a->blocked_after_fail = current->pi_blocked_on != 0;
		}
	}
	if (a->wait_release)
		actor_wait(&a->release);
	if (a->next && a->ret == 0)
		any_lock_release(&next);
	if (a->own)
		any_lock_release(&own);
	a->prio_after = task_prio(current);
	store_int(&a->state, ST_DONE);
	return 0;
}

void orchestrate_begin(void)
{
	pi_cpu = last_cpu();
	pi_abort = 0;
	acq.n = 0;
	for (int i = 0; i < LOG_MAX; i++)
		acq.who[i] = acq.prio[i] = -1;
	KEXPECT_EQ(set_cpus_allowed(current, cpumask_of(pi_cpu)), 0);
	KEXPECT_EQ(raw_smp_processor_id(), pi_cpu);
	KEXPECT_EQ(sched_setscheduler(current, SCHED_FIFO, MAIN_PRIO), 0);
}

struct task_struct *pi_start(int (*fn)(void *), void *arg, const char *name,
		      int prio)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (!t) {
		ktest_fail_msg(__FILE__, __LINE__, "kthread_create(%s) failed",
			       name);
		return 0;
	}
	kthread_bind(t, pi_cpu);
	if (prio)
		KEXPECT_EQ(sched_setscheduler(t, SCHED_FIFO, prio), 0);
	wake_up_process(t);
	return t;
}

bool task_blocked(struct task_struct *t)
{
	return t && __atomic_load_n(&t->pi_blocked_on, __ATOMIC_ACQUIRE) != 0;
}

bool actor_reached(struct actor *a, int st)
{
	bool ok = POLL_UNTIL(load_int(&a->state) >= st);

	if (!ok)
		ktest_fail_msg(__FILE__, __LINE__, "%s: state %d, wanted %d",
			       a->name, a->state, st);
	return ok;
}

bool actor_blocked(struct actor *a)
{
	bool ok = POLL_UNTIL(load_int(&a->state) == ST_WAITING &&
			     task_blocked(a->task));

	if (!ok)
		ktest_fail_msg(__FILE__, __LINE__,
			       "%s did not block (state %d)", a->name,
			       a->state);
	return ok;
}

void actor_enter(struct actor *a)
{
	a->go = a->release = a->state = 0;
	a->task = pi_start(actor_fn, a, a->name, a->prio);
	if (a->own)
		actor_reached(a, ST_OWN_HELD);
	else
		actor_blocked(a);
}

int prio_of(struct actor *a)
{
	return a->task ? task_prio(a->task) : -1;
}

void finish(struct actor **a, int n)
{
	for (int i = 0; i < n; i++)
		store_int(&a[i]->release, 1);
	for (int i = 0; i < n; i++)
		if (a[i]->task &&
		    !POLL_UNTIL(load_int(&a[i]->state) == ST_DONE)) {
			ktest_fail_msg(__FILE__, __LINE__, "%s did not finish",
				       a[i]->name);
			store_int(&pi_abort, 1);
		}
	store_int(&pi_abort, 1);
	become_normal();
	for (int i = 0; i < n; i++)
		if (a[i]->task)
			kthread_join(a[i]->task);
	set_cpus_allowed(current, cpumask_of(0));
}

struct actor *run_waiters(enum lock_kind kind, void *lock, const int *prios,
			  int n, int *owner_prio)
{
	struct actor *L = actor(0, "L", 10, lock, 0), *all[5] = {L};

	L->kind = kind;
	for (int i = 0; i < n; i++) {
		all[1 + i] = actor(1 + i, "W", prios[i], 0, lock);
		all[1 + i]->id = 100 + i;
		all[1 + i]->kind = kind;
	}
	orchestrate_begin();
	actor_enter(L);
	owner_prio[0] = prio_of(L);
	for (int i = 0; i < n; i++) {
		actor_enter(all[1 + i]);
		owner_prio[1 + i] = prio_of(L);
	}
	finish(all, 1 + n);
	return L;
}
