/*
 * The scheduler trace (kernel/trace/trace.c): it records what the scheduler
 * and the locks do, in order, and nothing when off. The last test dumps a
 * trace of two CPUs' activity, which the host runner checks for
 * consistency and converts (scripts/trace2perfetto --check).
 */
#include "completion.h"
#include "ktest_util.h"
#include "mutex.h"
#include "trace.h"

#define ENTRIES 4096

static int tr_sleeper(void *arg)
{
	msleep(1);
	return 0;
}

/* Events of type on any CPU with a == a (or any a when a < 0) by pid
 * (or any pid when pid < 0). */
static int count_events(enum trace_type type, long a, int pid)
{
	int n = 0, cpu;

	for_each_online_cpu(cpu)
		for (unsigned int i = 0; i < trace_count(cpu); i++) {
			const struct trace_entry *e = trace_get(cpu, i);

			if (e->type == type && (a < 0 || e->a == (uint64_t)a) &&
			    (pid < 0 || e->pid == pid))
				n++;
		}
	return n;
}

/* A trace of fn(NULL) run to its end by a task of its own on the last
 * CPU; returns that task's id. */
static int trace_task(int (*fn)(void *), const char *name)
{
	struct task_struct *t;
	int id;

	KASSERT_EQ(trace_start(ENTRIES), 0);
	t = ktest_spawn_on(last_cpu(), fn, 0, name);
	KASSERT_TRUE(t != 0);
	id = t->pid;
	KEXPECT_EQ(ktest_join(t), 0);
	trace_stop();
	return id;
}

/* A task's life: woken, switched in, sleeps (out, woken, in), exits. */
KTEST(trace, records_switches_and_wakeups)
{
	int id = trace_task(tr_sleeper, "tr_sleeper");

	KEXPECT_EQ(count_events(TRACE_WAKEUP, id, -1), 2); /* new, timer */
	/* Out to sleep and out to die, and a preemption maybe. */
	KEXPECT_GE(count_events(TRACE_SWITCH, id, id), 2);
	KEXPECT_EQ(trace_dropped(), 0);
}

static struct completion tr_go;

static int tr_waits(void *arg)
{
	wait_for_completion(&tr_go);
	return 0;
}

/* A sleeping task whose affinity moves to another CPU is placed there
 * when woken: a migration. */
KTEST_CPUS(trace, records_migration, 2)
{
	struct task_struct *t;
	int id;

	init_completion(&tr_go);
	KASSERT_EQ(trace_start(ENTRIES), 0);
	t = ktest_spawn_on(last_cpu(), tr_waits, 0, "tr_waits");
	KASSERT_TRUE(t != 0);
	id = t->pid;
	while (__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE) ||
	       task_is_running(t) ||
	       READ_ONCE(t->__state) == TASK_NEW)
		msleep(1);
	KEXPECT_EQ(set_cpus_allowed(t, cpumask_of(0)), 0);
	complete(&tr_go);
	KEXPECT_EQ(ktest_join(t), 0);
	trace_stop();
	KEXPECT_EQ(count_events(TRACE_MIGRATE, id, -1), 1);
}

static int tr_pinned(void *arg)
{
	migrate_disable();
	migrate_disable();
	migrate_enable();
	migrate_enable();
	return 0;
}

/* Nested migrate_disable(): one span, the outermost pair. */
KTEST(trace, records_outermost_migrate_disable_span)
{
	int id = trace_task(tr_pinned, "tr_pinned");

	KEXPECT_EQ(count_events(TRACE_MIGRATE_DISABLE, -1, id), 1);
	KEXPECT_EQ(count_events(TRACE_MIGRATE_ENABLE, -1, id), 1);
}

static DEFINE_MUTEX(tr_mutex);
static struct completion tr_release;
static volatile int tr_held;

static int tr_owner(void *arg)
{
	mutex_lock(&tr_mutex);
	store_int(&tr_held, 1);
	wait_for_completion(&tr_release);
	mutex_unlock(&tr_mutex);
	return 0;
}

static int tr_waiter(void *arg)
{
	mutex_lock(&tr_mutex);
	mutex_unlock(&tr_mutex);
	return 0;
}

/* tr_owner takes tr_mutex on the last CPU and holds it until tr_waiter,
 * from CPU 0, blocks on it. Returns the waiter's id. */
static int contend_tr_mutex(void)
{
	struct task_struct *o, *w;
	int id;

	store_int(&tr_held, 0);
	init_completion(&tr_release);
	o = ktest_spawn_on(last_cpu(), tr_owner, 0, "tr_owner");
	KEXPECT_TRUE(ktest_poll_int(&tr_held, 1, KTEST_WAIT_MS));
	w = ktest_spawn_on(0, tr_waiter, 0, "tr_waiter");
	KASSERT_TRUE(w != 0);
	id = w->pid;
	KEXPECT_TRUE(ktest_poll_until(__atomic_load_n(&w->pi_blocked_on,
						      __ATOMIC_ACQUIRE),
				      KTEST_WAIT_MS, POLL_SLEEP));
	complete(&tr_release);
	KEXPECT_EQ(ktest_join(w), 0);
	KEXPECT_EQ(ktest_join(o), 0);
	return id;
}

/* A sleeping owner: the waiter contends and later acquires, the owner
 * hands the lock over. */
KTEST(trace, records_contended_lock)
{
	int wid;

	KASSERT_EQ(trace_start(ENTRIES), 0);
	wid = contend_tr_mutex();
	trace_stop();
	KEXPECT_EQ(count_events(TRACE_LOCK_CONTENDED, (long)&tr_mutex, wid), 1);
	KEXPECT_EQ(count_events(TRACE_LOCK_ACQUIRED, (long)&tr_mutex, wid), 1);
	KEXPECT_EQ(count_events(TRACE_LOCK_RELEASED, (long)&tr_mutex, -1), 1);
}

/* Off, nothing is recorded; full, events are counted as dropped. */
KTEST(trace, off_records_nothing_full_drops)
{
	int cpu = raw_smp_processor_id();
	unsigned int n;

	KASSERT_EQ(trace_start(8), 0);
	trace_stop();
	n = trace_count(cpu);
	KEXPECT_EQ(ktest_run_on(last_cpu(), tr_sleeper, 0, "tr_sleeper"), 0);
	KEXPECT_EQ(trace_count(cpu), n);
	KASSERT_EQ(trace_start(8), 0);
	for (int i = 0; i < 4; i++)
		KEXPECT_EQ(ktest_run_on(last_cpu(), tr_sleeper, 0, "tr_sleeper"),
			   0);
	trace_stop();
	KEXPECT_LE(trace_count(cpu), 8);
	KEXPECT_GT(trace_dropped(), 0);
}

static void tr_start_in_irq(void *arg)
{
	*(int *)arg = trace_start(ENTRIES);
}

/* A trace started inside an interrupt handler leaves that interrupt's
 * exit out: in the dump, every irq_exit closes an irq_entry. */
KTEST(trace, starts_inside_an_interrupt)
{
	int cpu, ret = -1, depth = 0, exits = 0;

	KASSERT_EQ(trace_start(ENTRIES), 0); /* the rings, allocated */
	migrate_disable();
	cpu = smp_processor_id();
	ktest_in_hardirq(tr_start_in_irq, &ret);
	msleep(2); /* a tick or two: whole interrupts after the start */
	migrate_enable();
	trace_stop();
	KASSERT_EQ(ret, 0);
	for (unsigned int i = 0; i < trace_count(cpu); i++) {
		const struct trace_entry *e = trace_get(cpu, i);

		if (e->type == TRACE_IRQ_ENTRY)
			depth++;
		if (e->type == TRACE_IRQ_EXIT) {
			exits++;
			KEXPECT_GT(depth, 0);
			depth = 0;
		}
	}
	KEXPECT_GT(exits, 0);
}

/* Switches, wake-ups, spans and a contended lock on every CPU, dumped
 * for the host's consistency check (run-tests.sh, check_trace). */
KTEST(trace, dump_for_host_check)
{
	KASSERT_EQ(trace_start(ENTRIES), 0);
	KEXPECT_EQ(ktest_run_on(last_cpu(), tr_pinned, 0, "tr_pinned"), 0);
	contend_tr_mutex();
	KEXPECT_EQ(trace_dropped(), 0);
	trace_dump();
}
