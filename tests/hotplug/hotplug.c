/*
 * CPU offline and online (kernel/cpu.c, cpuhotplug.h): what cpu_down()
 * and cpu_up() refuse, what an offline CPU looks like from the others
 * (out of every mask, not answering calls, not ticking), and that it
 * comes back as it was: its own per-CPU area and idle task, ticking and
 * answering again. Every test of the suite ends with every CPU online
 * (the suite's exit), whatever happened, so that other suites find the
 * machine they booted on.
 */
#include "cpuhotplug.h"
#include "ktest.h"
#include "ktest_util.h"
#include "kmalloc.h"
#include "page_alloc.h"
#include "percpu.h"
#include "sched.h"
#include "sched_internal.h"
#include "smp.h"
#include "time.h"
#include "hotplug/hotplug_util.h"

KTEST_SUITE(hotplug, .exit = hotplug_all_online);

/* Numbers that name no CPU, and CPUs already where they were asked to
 * go, are refused with their own errors, and change nothing. */
KTEST(hotplug, bad_numbers_and_no_ops_refused)
{
	unsigned online = num_online_cpus();

	KEXPECT_EQ(cpu_down(-1), -EINVAL);
	KEXPECT_EQ(cpu_down(nr_cpu_ids), -EINVAL);
	KEXPECT_EQ(cpu_down(NR_CPUS), -EINVAL);
	KEXPECT_EQ(cpu_up(-1), -EINVAL);
	KEXPECT_EQ(cpu_up(nr_cpu_ids), -EINVAL);
	KEXPECT_EQ(cpu_up(NR_CPUS + 5), -EINVAL);
	KEXPECT_EQ(cpu_up(0), -EALREADY);
	KEXPECT_EQ(num_online_cpus(), online);
	KEXPECT_EQ(cpumask_weight(cpu_active_mask), (int)online);
}

/* The boot CPU never goes; with one CPU it is also the last one, which
 * is what cpu_down() says first. */
KTEST(hotplug, boot_cpu_refused)
{
	int want = num_online_cpus() == 1 ? -EBUSY : -EPERM;

	KEXPECT_EQ(cpu_down(0), want);
	KEXPECT_TRUE(cpu_online(0));
	KEXPECT_TRUE(cpu_active(0));
	KEXPECT_EQ(cpuhp_cpu_state(0), CPUHP_ONLINE);
}

/* With every other CPU offline, CPU 0 is the last: -EBUSY; a CPU that is
 * offline already: -EALREADY, and online already, after cpu_up. */
KTEST_CPUS(hotplug, last_cpu_and_repeats_refused, 2)
{
	int cpu;

	for (cpu = 1; cpu < nr_cpu_ids; cpu++)
		KASSERT_EQ(cpu_down(cpu), 0);
	KEXPECT_EQ(num_online_cpus(), 1);
	KEXPECT_EQ(cpu_down(0), -EBUSY);
	KEXPECT_EQ(cpu_down(1), -EALREADY);
	for (cpu = 1; cpu < nr_cpu_ids; cpu++)
		KEXPECT_EQ(cpu_up(cpu), 0);
	KEXPECT_EQ(cpu_up(1), -EALREADY);
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);
}

struct ap_view {
	int cpu, cpu_number;
	unsigned long gs_base;
	struct task_struct *idle, *running;
	int ran;
};

static void read_ap_view(void *arg)
{
	struct ap_view *v = arg;

	v->cpu = raw_smp_processor_id();
	v->cpu_number = this_cpu_read(cpu_number);
	v->gs_base = arch_percpu_base();
	v->idle = this_cpu_read(runqueues.idle);
	v->running = current;
	v->ran++;
}

/* Ticks of cpu and of this CPU: this one's go on while the other's, if
 * it is parked, stand still. Counted over 20 ticks of this CPU (about
 * 20 ms; a tick is an event, not a time bound). */
static unsigned long ticks_while_we_tick(int cpu)
{
	unsigned long before = per_cpu(cpu_ticks, cpu);
	unsigned long mine = per_cpu(cpu_ticks, 0);

	KEXPECT_TRUE(ktest_poll_until(per_cpu(cpu_ticks, 0) >= mine + 20,
				      KTEST_WAIT_MS, POLL_SLEEP));
	return per_cpu(cpu_ticks, cpu) - before;
}

/*
 * Offline, a CPU is in no mask, refuses calls and does not tick; its
 * state is CPUHP_OFFLINE. Back online it answers on the same per-CPU
 * area (GS base), with the same idle task as before, and ticks.
 */
KTEST_CPUS(hotplug, offline_cpu_parked_and_back_as_before, 2)
{
	int c = last_cpu();
	struct ap_view before = {0}, after = {0};

	KASSERT_EQ(smp_call_function_single(c, read_ap_view, &before, true), 0);
	KASSERT_EQ(cpu_down(c), 0);
	KEXPECT_FALSE(cpu_online(c));
	KEXPECT_FALSE(cpu_active(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_OFFLINE);
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids - 1);
	KEXPECT_EQ(cpumask_weight(cpu_online_mask), nr_cpu_ids - 1);
	KEXPECT_EQ(cpumask_weight(cpu_active_mask), nr_cpu_ids - 1);
	KEXPECT_EQ(smp_call_function_single(c, read_ap_view, &after, true), -1);
	KEXPECT_EQ(after.ran, 0);
	KEXPECT_EQ(ticks_while_we_tick(c), 0);
	KEXPECT_EQ(cpu_rq(c)->nr_running, 0);

	KASSERT_EQ(cpu_up(c), 0);
	KEXPECT_TRUE(cpu_online(c));
	KEXPECT_TRUE(cpu_active(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_ONLINE);
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);
	KASSERT_EQ(smp_call_function_single(c, read_ap_view, &after, true), 0);
	KEXPECT_EQ(after.ran, 1);
	KEXPECT_EQ(after.cpu, c);
	KEXPECT_EQ(after.cpu_number, c);
	KEXPECT_EQ(after.gs_base, before.gs_base);
	KEXPECT_EQ(after.gs_base, __per_cpu_offset[c]);
	KEXPECT_EQ(after.idle, before.idle);
	KEXPECT_GT(ticks_while_we_tick(c), 0);
}

/* A task started after cpu_up() runs on the CPU again: it takes tasks. */
static int where_am_i(void *arg)
{
	return raw_smp_processor_id();
}

KTEST_CPUS(hotplug, back_online_cpu_takes_tasks, 2)
{
	int c = last_cpu();

	KASSERT_EQ(cpu_down(c), 0);
	KASSERT_EQ(cpu_up(c), 0);
	KEXPECT_EQ(ktest_run_on(c, where_am_i, 0, "where"), c);
}

/* The hotplug lock: while a reader holds it, cpu_down() waits (asleep),
 * and the set of online CPUs stays what the reader saw. */
struct down_job {
	int cpu;
	volatile int started, done;
	int ret;
};

static int down_fn(void *arg)
{
	struct down_job *j = arg;

	store_int(&j->started, 1);
	j->ret = cpu_down(j->cpu);
	store_int(&j->done, 1);
	return 0;
}

KTEST_CPUS(hotplug, reader_holds_cpu_down_off, 2)
{
	struct down_job job = {.cpu = last_cpu()};
	struct task_struct *t;

	cpus_read_lock();
	t = ktest_spawn(down_fn, &job, "downer", -1, SCHED_NORMAL, 0, true);
	KASSERT_TRUE(t);
	KEXPECT_TRUE(ktest_poll_int(&job.started, 1, KTEST_WAIT_MS));
	/* Asleep waiting for us: off every run queue, state D. */
	KEXPECT_TRUE(ktest_poll_until(!t->on_rq && !t->on_cpu &&
				      READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(load_int(&job.done), 0);
	KEXPECT_TRUE(cpu_online(job.cpu));
	KEXPECT_EQ(num_online_cpus(), (unsigned)nr_cpu_ids);
	cpus_read_unlock();
	ktest_join(t);
	KEXPECT_EQ(job.ret, 0);
	KEXPECT_FALSE(cpu_online(job.cpu));
	KEXPECT_EQ(cpu_up(job.cpu), 0);
}

/* A task pinned to a CPU asking to take that CPU down would wait for its
 * own migrate_enable(): refused, and the CPU stays as it was. */
static int down_own_cpu_pinned(void *arg)
{
	int ret;

	migrate_disable();
	ret = cpu_down(raw_smp_processor_id());
	migrate_enable();
	return ret;
}

KTEST_CPUS(hotplug, pinned_caller_refused_its_own_cpu, 2)
{
	int c = last_cpu();

	KEXPECT_EQ(ktest_run_on(c, down_own_cpu_pinned, 0, "self-down"),
		   -EDEADLK);
	KEXPECT_TRUE(cpu_online(c));
	KEXPECT_TRUE(cpu_active(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_ONLINE);
}

/* A per-CPU thread of the CPU it asks for is on it until it parks, and
 * the ladder waits for that CPU to be empty: refused at once, the CPU as
 * it was, the hotplug lock free (a reader gets it). Before the refusal
 * the call never returned, holding the lock; the join's bound then ends
 * the test with its own message. */
static int down_own_cpu_per_cpu_thread(void *arg)
{
	int *ret = arg;

	store_int(ret, cpu_down(raw_smp_processor_id()));
	return 0;
}

KTEST_CPUS(hotplug, per_cpu_thread_refused_its_own_cpu, 2)
{
	/* Static: a thread that never returns must not write into a
	 * stack frame that is gone. */
	static int ret;
	int c = last_cpu();
	struct task_struct *t = kthread_create_on_cpu(
		down_own_cpu_per_cpu_thread, &ret, c, "pcpu-self-down");

	KASSERT_TRUE(t != 0);
	store_int(&ret, 1);
	wake_up_process(t);
	if (!ktest_poll_until(load_int(&ret) != 1, 20000, POLL_SLEEP))
		KASSERT_TRUE(!"cpu_down() from a per-CPU thread of its CPU "
			      "did not return within 20 s");
	KEXPECT_EQ(kthread_join(t), 0);
	KEXPECT_EQ(ret, -EDEADLK);
	KEXPECT_TRUE(cpu_online(c));
	KEXPECT_TRUE(cpu_active(c));
	KEXPECT_EQ(cpuhp_cpu_state(c), CPUHP_ONLINE);
	cpus_read_lock();
	cpus_read_unlock();
}

/* Objects and pages freed on this CPU stay in its caches (its kmalloc
 * sheaf of class 0, its page list). */
static int fill_caches(void *arg)
{
	void *obj[8], *pg[4];

	for (int i = 0; i < 8; i++)
		obj[i] = kmalloc(kmalloc_class_size(0));
	for (int i = 0; i < 4; i++)
		pg[i] = page_alloc();
	for (int i = 0; i < 8; i++)
		kfree(obj[i]);
	for (int i = 0; i < 4; i++)
		if (pg[i])
			page_free(pg[i]);
	return 0;
}

/* cpu_down() gives the leaving CPU's cached objects and pages back
 * (CPUHP_SLUB_DEAD, CPUHP_PAGE_ALLOC_DEAD): nothing stays on a CPU that
 * is gone. */
KTEST_CPUS(hotplug, allocator_caches_drained, 2)
{
	int c = last_cpu();

	KASSERT_EQ(ktest_run_on(c, fill_caches, 0, "fill"), 0);
	if (kmalloc_pcp_enabled())
		KEXPECT_GT(kmalloc_cached_objects(c, 0), 0);
	if (page_pcp_enabled())
		KEXPECT_GT(page_pcp_count(c), 0);
	KASSERT_EQ(cpu_down(c), 0);
	KEXPECT_EQ(kmalloc_cached_objects(c, 0), 0);
	KEXPECT_EQ(page_pcp_count(c), 0);
	KASSERT_EQ(cpu_up(c), 0);
}

/*
 * Calls without wait sent to a CPU while it goes offline and comes back
 * (kernel/smp.c): the caller's one request is reused for each, so each
 * must be handed back whatever became of the CPU. Every call the caller
 * saw accepted ran exactly once (before the CPU left, or after it came
 * back), those refused while it was away never ran, and the caller never
 * hung waiting for its request.
 */
struct inflight {
	int cpu;
	volatile int started, stop;
	long accepted, refused;
	volatile long ran;
};

static void inflight_ran(void *arg)
{
	__atomic_fetch_add(&((struct inflight *)arg)->ran, 1, __ATOMIC_RELAXED);
}

static int inflight_caller(void *arg)
{
	struct inflight *f = arg;

	store_int(&f->started, 1);
	while (!load_int(&f->stop)) {
		if (smp_call_function_single(f->cpu, inflight_ran, f, false))
			f->refused++;
		else
			f->accepted++;
	}
	return 0;
}

/* Static, not on the test's stack: calls that never ran may still come,
 * and the caller runs until told, whichever way the test ends. */
static struct inflight inflight;

KTEST_CPUS(hotplug, calls_in_flight_at_offline_released, 2)
{
	struct inflight *fp = &inflight;
	struct task_struct *t;
	bool started;

	*fp = (struct inflight){.cpu = last_cpu()};
	t = ktest_spawn_on(0, inflight_caller, fp, "inflight");
	KASSERT_TRUE(t);
	started = ktest_poll_int(&fp->started, 1, KTEST_WAIT_MS);
	for (int i = 0; started && i < 3; i++) {
		KEXPECT_EQ(cpu_down(fp->cpu), 0);
		KEXPECT_EQ(cpu_up(fp->cpu), 0);
	}
	store_int(&fp->stop, 1);
	ktest_join(t);
	KEXPECT_TRUE(started);
	KEXPECT_TRUE(ktest_poll_until(load_long(&fp->ran) == fp->accepted,
				      KTEST_WAIT_MS, POLL_SLEEP));
	ktest_log("%ld calls accepted, %ld refused (the CPU was away), %ld ran",
		  fp->accepted, fp->refused, load_long(&fp->ran));
	KEXPECT_EQ(load_long(&fp->ran), fp->accepted);
	KEXPECT_GT(fp->accepted, 0);
}
