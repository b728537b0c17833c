/*
 * The busy tasks, the preemptor and the pin watch the scheduler tests
 * share (sched_util.h).
 */
#include "sched_util.h"

struct busy_tasks busy;

static int busy_fn(void *arg)
{
	int id = (int)(long)arg;
	unsigned long test = ktest_number();

	while (!load_int(&busy.stop) && !ktest_ended(test)) {
		int cpu;

		preempt_disable();
		cpu = raw_smp_processor_id();
		cpumask_set_cpu(cpu, &busy.seen);
		cpumask_set_cpu(cpu, &busy.seen_by[id]);
		preempt_enable();
		__atomic_fetch_add(&busy.count[id], 1, __ATOMIC_RELAXED);
		cpu_relax();
	}
	return 0;
}

int busy_start(struct task_struct **t, int n, const char *name, int cpu)
{
	if (n > MAX_BUSY_TASKS)
		n = MAX_BUSY_TASKS;
	busy.stop = 0;
	cpumask_clear(&busy.seen);
	for (int i = 0; i < n; i++) {
		busy.count[i] = 0;
		cpumask_clear(&busy.seen_by[i]);
		t[i] = ktest_spawn(busy_fn, (void *)(long)i, name, cpu,
				   SCHED_NORMAL, 0, true);
	}
	return n;
}

bool busy_all_counted(int n)
{
	for (int i = 0; i < n; i++)
		if (!load_long(&busy.count[i]))
			return false;
	return true;
}

static int preemptor_fn(void *arg)
{
	struct preemptor *k = arg;
	unsigned long test = ktest_number();

	while (!load_int(&k->stop) && !ktest_ended(test)) {
		wait_for_completion_timeout(&k->kick, NS_PER_MS);
		if (k->watch && load_int(k->watch))
			inc_long(&k->runs_while);
		inc_long(&k->runs);
	}
	return 0;
}

void kick(struct preemptor *k)
{
	long r = load_long(&k->runs);

	complete(&k->kick);
	ktest_poll_until(load_long(&k->runs) != r, 20, POLL_SPIN);
}

void preempt_for(struct preemptor *k, volatile long *count, long want)
{
	struct ktest_progress p = {0};

	while (k->task && load_long(count) < want) {
		if (ktest_stalled(&p, load_long(count))) {
			ktest_log("stuck at %ld of %ld preemptions for %lu ms",
				  load_long(count), want, KTEST_WAIT_MS);
			return;
		}
		if (k->cpu != raw_smp_processor_id())
			kick(k);
		else
			msleep(2);
	}
}

void pin_watch_loop(struct pin_watch *w)
{
	unsigned long test = ktest_number();
	int cpu;

	migrate_disable();
	store_int(&w->disabled, 1);
	w->new_warnings = smp_id_warnings();
	cpu = raw_smp_processor_id();
	w->switches = per_cpu(nr_switches, cpu);
	w->runs = load_long(&w->k.runs);
	store_int(&w->cpu, cpu);
	while (!load_int(&w->stop) && !ktest_ended(test)) {
		int now = w->checked_id ? smp_processor_id()
					: raw_smp_processor_id();
		unsigned long s = per_cpu(nr_switches, cpu);
		long r = load_long(&w->k.runs);

		if (now != cpu) {
			inc_long(&w->moved);
			w->bad_cpu = now;
		}
		if (s != w->switches) { /* its CPU switched: it was out */
			inc_long(&w->preempted);
			w->switches = s;
		}
		if (r != w->runs) {
			inc_long(&w->seen);
			w->runs = r;
		}
		inc_long(&w->iters);
		cpu_relax();
	}
	w->new_warnings = smp_id_warnings() - w->new_warnings;
	w->depth = current->migration_disabled;
}

void pin_watch_release(struct pin_watch *w)
{
	store_int(&w->disabled, 0);
	migrate_enable();
}

int pin_watch_fn(void *w)
{
	pin_watch_loop(w);
	pin_watch_release(w);
	return 0;
}

bool pin_watch_start(struct pin_watch *w, int (*fn)(void *),
		     const char *name, int cpu, int policy, int prio)
{
	struct preemptor *k = &w->k;

	*k = (struct preemptor){.watch = &w->disabled, .cpu = cpu};
	init_completion(&k->kick);
	w->task = ktest_spawn(fn, w, name, cpu, policy, prio, true);
	if (!w->task)
		return false;
	KEXPECT_TRUE(ktest_poll_int(&w->cpu, 0, KTEST_WAIT_MS));
	KEXPECT_EQ(w->cpu, cpu);
	KEXPECT_EQ(set_cpus_allowed(w->task, cpu_online_mask), 0);
	k->task = ktest_spawn(preemptor_fn, k, "preemptor", cpu, SCHED_FIFO,
			      50, true);
	return true;
}

void pin_watch_finish(struct pin_watch *w)
{
	store_int(&w->stop, 1);
	store_int(&w->k.stop, 1);
	complete(&w->k.kick);
	ktest_join(w->task);
	ktest_join(w->k.task);
}
