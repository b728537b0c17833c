/*
 * local_lock_t keeps each CPU's copy of per-CPU data consistent
 * (kernel/locking/local_lock.h; see docs/locks.md): workers bound to every
 * CPU and one that roams from CPU to CPU, changing its affinity from
 * inside the lock, update their CPU's copy under it in both its forms.
 */
#include <stdbool.h>
#include <stdint.h>

#include "completion.h"
#include "cpumask.h"
#include "guarded.h"
#include "ktest.h"
#include "ktest_util.h"
#include "local_lock.h"
#include "lock_kind.h"
#include "percpu.h"
#include "sched.h"

#define LL_PER_CPU 2              /* workers bound to each CPU */
#define LL_MAX_WORKERS (2 * 8 + 1)
/* Sections each worker makes: a count, not as many as fit in a sleep
 * (a vCPU the host does not run makes none). The roamer moves on every
 * 16th, three times. */
#define LL_ITERS 48

struct ll_data {
	local_lock_t lock;
	struct guarded data;
	volatile long state_errors;   /* not the lock's context inside */
};

static DEFINE_PER_CPU(struct ll_data, ll_pcp) = {.lock = INIT_LOCAL_LOCK(lock)};

/* Increments each worker made, by the CPU whose copy it incremented. */
static long ll_counts[LL_MAX_WORKERS][NR_CPUS];

static struct {
	struct completion go;
	volatile long late_moves;     /* roamer not moved at its unlock */
	volatile long moved_inside;   /* roamer changed CPU while holding */
	long migrations;              /* roamer's affinity changes */
} ll;

struct ll_worker {
	struct task_struct *task;
	int cpu;                      /* -1: the roamer */
	int idx;
	long count;
	long wrong_cpu;
};

static struct ll_worker llw[LL_MAX_WORKERS];

/* One section on this CPU's copy. The roamer (move) leaves for the next
 * CPU from inside, in the plain form: only at the unlock may that happen.
 * On RT another task on this CPU may take its turn inside. */
static void ll_section(struct ll_worker *w, enum lock_form form, bool move)
{
	struct any_lock h = ANY_LOCK_FORM(LOCK_LOCAL, &ll_pcp.lock, form);
	const struct lock_ctx *held = any_lock_held_ctx(&h);
	int cpu, target = -1;
	struct lock_ctx now;
	struct ll_data *p;

	any_lock_acquire(&h);
	p = this_cpu_ptr(&ll_pcp);
	cpu = raw_smp_processor_id();
	now = lock_ctx_now();
	if (w->cpu >= 0 && cpu != w->cpu)
		w->wrong_cpu++;
	if (move) {
		target = (cpu + 1) % (int)num_online_cpus();
		set_cpus_allowed(current, cpumask_of(target));
		ll.migrations++;
	}
	guarded_enter(&p->data);
	if (now.preempt != held->preempt || now.migrate != held->migrate ||
	    now.irqs_off != held->irqs_off)
		p->state_errors++;
	guarded_update(&p->data, 20, 0);
	if (any_lock_ops(&h)->sleeps && w->count % 16 == 0)
		yield();
	if (raw_smp_processor_id() != cpu || this_cpu_ptr(&ll_pcp) != p)
		__atomic_fetch_add(&ll.moved_inside, 1, __ATOMIC_RELAXED);
	guarded_leave(&p->data);
	ll_counts[w->idx][cpu]++;
	any_lock_release(&h);
	if (move && raw_smp_processor_id() != target)
		__atomic_fetch_add(&ll.late_moves, 1, __ATOMIC_RELAXED);
	w->count++;
}

static int ll_worker_fn(void *arg)
{
	struct ll_worker *w = arg;

	wait_for_completion(&ll.go);
	for (int i = 0; i < LL_ITERS; i++) {
		bool move = w->cpu < 0 && i % 16 == 5 && num_online_cpus() > 1;

		ll_section(w, move || i % 2 == 0 ? LOCK_PLAIN : LOCK_IRQSAVE,
			   move);
	}
	return 0;
}

/* Every copy counts exactly what was done on its CPU, nobody finds
 * another inside, and the roamer never changes CPU while holding. */
static void expect_copies_consistent(int n)
{
	int cpu;

	for_each_online_cpu(cpu) {
		struct ll_data *p = raw_per_cpu_ptr(&ll_pcp, cpu);
		long want = 0;

		for (int i = 0; i < n; i++)
			want += ll_counts[i][cpu];
		KEXPECT_GUARDED(&p->data, want);
		KEXPECT_EQ(p->state_errors, 0);
		if (n > 1 && p->data.counter != want)
			ktest_log("CPU %d: copy says %ld, workers did %ld", cpu,
				  p->data.counter, want);
	}
	KEXPECT_EQ(ll.moved_inside, 0);
	KEXPECT_EQ(ll.late_moves, 0);
}

/* Two workers bound to each CPU and a roamer that moves from CPU to CPU
 * (changing its affinity from inside the lock) increment their CPU's copy
 * under local_lock(): every copy counts exactly what was done on its CPU,
 * nobody finds another inside, and the roamer never changes CPU while
 * holding. */
KTEST(locks, local_lock_percpu_consistent)
{
	int n = 0, cpu;
	long total = 0;

	for_each_online_cpu(cpu) {
		/* Unchecked: no worker runs yet (and below: all joined). */
		struct ll_data *p = raw_per_cpu_ptr(&ll_pcp, cpu);

		guarded_reset(&p->data);
		p->state_errors = 0;
		for (int k = 0; k < LL_PER_CPU && n < LL_MAX_WORKERS - 1; k++)
			llw[n++] = (struct ll_worker){.cpu = cpu};
	}
	llw[n++] = (struct ll_worker){.cpu = -1}; /* the roamer */
	for (int i = 0; i < n; i++) {
		llw[i].idx = i;
		for (int c = 0; c < NR_CPUS; c++)
			ll_counts[i][c] = 0;
	}
	ll.late_moves = ll.moved_inside = ll.migrations = 0;
	init_completion(&ll.go);
	for (int i = 0; i < n; i++)
		llw[i].task = ktest_spawn(ll_worker_fn, &llw[i],
					  llw[i].cpu < 0 ? "roamer" : "llock",
					  llw[i].cpu, SCHED_NORMAL, 0, true);
	complete_all(&ll.go);
	for (int i = 0; i < n; i++)
		ktest_join(llw[i].task);
	for (int i = 0; i < n; i++) {
		KEXPECT_EQ(llw[i].wrong_cpu, 0);
		total += llw[i].count;
	}
	expect_copies_consistent(n);
	ktest_log("local_lock_t: %d workers, %ld acquisitions, roamer moved "
		  "%ld times", n, total, ll.migrations);
}
