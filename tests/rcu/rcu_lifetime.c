/*
 * Task structs freed a grace period after their last reference, and the
 * windows that relied on it (docs/rcu.md, section 7): a look at a task
 * that holds no reference and no lock keeping it alive. Each window is
 * opened as wide as a test can: the scenario runs many rounds, and under
 * the explorer (make explore, EXPLORE=1) each window is an injection site
 * where a delay lets another CPU run the task to its end and drop its
 * last reference meanwhile. A freed task_struct is poisoned, and the
 * scheduler reports a look at one (task_freed()): without RCU's grace
 * period in between, these tests count such reports.
 */
#include "cpuhotplug.h"
#include "ktest_util.h"
#include "hotplug/hotplug_util.h"
#include "kmalloc.h"
#include "rcupdate.h"
#include "rcutree.h"
#include "sched/sched_internal.h"

KTEST_SUITE(rcu_lifetime, .exit = hotplug_all_online);

static long freed_uses(void)
{
	return atomic_long_read(&sched_freed_task_uses);
}

/* A per-CPU count, summed: how often a window was reached. */
static unsigned long sum_stat(unsigned long *stat)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*raw_per_cpu_ptr(stat, cpu));
	return n;
}

static struct rcu_counters counters(void)
{
	struct rcu_counters c;

	rcu_get_counters(&c);
	return c;
}

/* n detached tasks running fn, woken on cpu and bound there; the caller
 * gets a reference to each in held[] (release_detached() lets them go).
 * How many were made. */
static int spawn_detached(int n, int (*fn)(void *), const char *name, int cpu,
			  int policy, int prio, struct task_struct **held)
{
	for (int i = 0; i < n; i++) {
		struct task_struct *t = ktest_spawn(fn, 0, name, cpu, policy,
						    prio, false);

		if (!t)
			return i;
		held[i] = get_task_struct(t);
		kthread_detach(t);
		wake_up_process(t);
	}
	return n;
}

/* Free them to run on the CPUs of mask, and drop the references: from
 * here each drops its last when it ends, and nobody holds one. */
static void release_detached(struct task_struct **held, int n,
			     const cpumask_t *mask)
{
	for (int i = 0; i < n; i++) {
		set_cpus_allowed(held[i], mask);
		put_task_struct(held[i]);
	}
}

/* ---- freed after a grace period ---- */

static struct {
	int in_section;
	int release;
} hold;

static int hold_reader(void *arg)
{
	rcu_read_lock();
	WRITE_ONCE(hold.in_section, 1);
	while (!READ_ONCE(hold.release))
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

static int nothing(void *arg)
{
	return 3;
}

/* A reader on another CPU holds grace periods off: a task joined
 * meanwhile keeps its struct (not poisoned, still counted in use) across
 * ten scans, and gives it back once the reader is gone. */
KTEST_CPUS(rcu_lifetime, task_struct_freed_after_a_grace_period, 2)
{
	struct task_struct *r, *t;
	struct rcu_counters c;
	long large;

	hold = (typeof(hold)){0};
	rcu_barrier();
	large = kmalloc_objects_in_use(KMALLOC_NR_CLASSES);
	r = ktest_spawn_on(last_cpu(), hold_reader, 0, "rcu_hold");
	KASSERT_TRUE(ktest_poll_until(READ_ONCE(hold.in_section), KTEST_WAIT_MS,
				      POLL_SLEEP));
	t = ktest_spawn_on(0, nothing, 0, "rcu_short");
	KASSERT_TRUE(t);
	KEXPECT_EQ(kthread_join(t), 3); /* the last reference */
	c = counters();
	KEXPECT_TRUE(ktest_poll_until(counters().fqs >= c.fqs + 10,
				      KTEST_WAIT_MS, POLL_SLEEP));
	/* t is the reader's to read: not freed, its fields as it left them. */
	KEXPECT_NE(READ_ONCE(t->__state), TASK_STATE_FREED);
	KEXPECT_EQ(t->exit_code, 3);
	WRITE_ONCE(hold.release, 1);
	ktest_join(r);
	rcu_barrier();
	KEXPECT_EQ(kmalloc_objects_in_use(KMALLOC_NR_CLASSES), large);
}

/* ---- put_dead_task(): the joiner woken after the reference went ---- */

#define ROUNDS 40

static struct {
	int go;
	int joined;
	struct task_struct *dying, *joiner;
} pd;

static int dying_fn(void *arg)
{
	while (!READ_ONCE(pd.go))
		cpu_relax();
	return 1;
}

/* Joins the dying task and exits at once: its struct is freed as soon
 * as its own joiner (the test) and the waker drop their references. */
static int joiner_fn(void *arg)
{
	kthread_join(pd.dying);
	WRITE_ONCE(pd.joined, 1);
	return 0;
}

/* Keeps the joiner awake (spurious wake-ups are allowed), so that it sees
 * the dying task's reference gone before put_dead_task() wakes it. */
static int waker_fn(void *arg)
{
	struct task_struct *j = arg; /* its reference: ours to drop */

	while (!READ_ONCE(pd.joined)) {
		wake_up_process(j);
		cpu_relax();
	}
	put_task_struct(j);
	return 0;
}

/* Something for the dying task's CPU to switch to: put_dead_task() runs
 * in the task switched to, and the explorer only injects in a test's. */
static int filler_fn(void *arg)
{
	while (!READ_ONCE(pd.joined))
		cpu_relax();
	return 0;
}

KTEST_CPUS(rcu_lifetime, put_dead_task_wakes_a_joiner_it_no_longer_holds, 2)
{
	long uses = freed_uses();
	int a = last_cpu(), done = 0;

	for (int round = 0; round < ROUNDS; round++) {
		struct task_struct *f, *w;

		pd = (typeof(pd)){0};
		f = ktest_spawn(filler_fn, 0, "rcu_filler", a, SCHED_NORMAL, 0,
				true);
		pd.dying = ktest_spawn(dying_fn, 0, "rcu_dying", a, SCHED_FIFO,
				       2, true);
		pd.joiner = ktest_spawn(joiner_fn, 0, "rcu_joiner", 0,
					SCHED_FIFO, 1, true);
		if (!f || !pd.dying || !pd.joiner)
			break;
		w = ktest_spawn(waker_fn, get_task_struct(pd.joiner),
				"rcu_waker", 0, SCHED_NORMAL, 0, true);
		WRITE_ONCE(pd.go, 1);
		done += ktest_join(pd.joiner) == 0;
		ktest_join(w);
		ktest_join(f);
	}
	KEXPECT_EQ(done, ROUNDS);
	KEXPECT_EQ(freed_uses() - uses, 0);
}

/* ---- push_one_queued(): a task picked, the lock dropped ---- */

static int short_fn(void *arg)
{
	return 0;
}

/* The gate: FIFO on the CPU going down (cpu), until it is moved off it
 * or told to stop; nothing below it runs there meanwhile. running says
 * it has begun: until then it may still be queued, not on the CPU, and
 * a task that is only queued may be moved before it ever runs. */
static struct {
	int cpu, stop, running;
} gate;

static int cpu_gate_fn(void *arg)
{
	store_int(&gate.running, 1);
	while (!load_int(&gate.stop) && raw_smp_processor_id() == gate.cpu)
		cpu_relax();
	return 0;
}

/* A CPU goes down with short-lived detached tasks queued behind a FIFO
 * task, free to run on CPU 0 too: its push picks each, drops the lock,
 * and looks again; meanwhile CPU 0 may pull the task, run it to its end
 * and drop its last reference. The window is counted: the tasks cannot
 * run where they are queued, so those CPU 0 has not pulled by then are
 * pushed. */
KTEST_CPUS(rcu_lifetime, push_one_queued_looks_at_a_task_it_does_not_hold, 2)
{
	long uses = freed_uses();
	unsigned long passes = sum_stat(&nr_push_queued_rechecks);
	int cpu = last_cpu();
	cpumask_t both;

	cpumask_clear(&both);
	cpumask_set_cpu(0, &both);
	cpumask_set_cpu(cpu, &both);
	for (int round = 0; round < ROUNDS / 4; round++) {
		struct task_struct *brief[8], *g;
		int n = 0;

		/* Made before the gate runs: on RT=1 a spawn may wait for
		 * the allocator's lock, held by a task the gate would keep
		 * off its CPU. */
		for (; n < 8; n++) {
			brief[n] = ktest_spawn(short_fn, 0, "rcu_brief", cpu,
					       SCHED_NORMAL, 0, false);
			if (!brief[n])
				break;
		}
		gate = (typeof(gate)){.cpu = cpu};
		g = ktest_spawn(cpu_gate_fn, 0, "rcu_gate", cpu, SCHED_FIFO, 50,
				true);
		/* Begun, so on cpu (bound there until the line below). */
		KEXPECT_TRUE(ktest_poll_until(load_int(&gate.running),
					      KTEST_WAIT_MS, POLL_SLEEP));
		set_cpus_allowed(g, &both);
		for (int i = 0; i < n; i++) {
			struct task_struct *t = brief[i];

			/* Queued there behind the gate, then free to go to
			 * CPU 0. */
			get_task_struct(t);
			kthread_detach(t);
			wake_up_process(t);
			set_cpus_allowed(t, &both);
			put_task_struct(t);
		}
		KEXPECT_EQ(cpu_down(cpu), 0);
		store_int(&gate.stop, 1);
		ktest_join(g);
		KEXPECT_EQ(cpu_up(cpu), 0);
	}
	passes = sum_stat(&nr_push_queued_rechecks) - passes;
	ktest_log("the window reached %lu times", passes);
	KEXPECT_GT(passes, 0ul);
	KEXPECT_EQ(freed_uses() - uses, 0);
}

/* ---- push_rt_tasks(): an RT task picked, the lock dropped ---- */

#define RT_BRIEF 8

static struct {
	int go;
	atomic_t ended;
} rp;

/* FIFO 50 on the CPU: the brief tasks queue behind it until it leaves. */
static int rt_gate_fn(void *arg)
{
	ktest_helper_wait(load_int(&rp.go), POLL_SPIN);
	return 0;
}

static int rt_brief_fn(void *arg)
{
	atomic_inc(&rp.ended);
	return 0;
}

/*
 * FIFO 20 detached tasks queue on a CPU behind a FIFO 50 gate. When the
 * gate leaves, the CPU switches to one of them, and its push after the
 * switch picks another to send to CPU 0, drops its lock, and looks again;
 * meanwhile CPU 0, running out of RT work, pulls from the same queue and
 * may run that task to its end, its last reference gone.
 */
KTEST_CPUS(rcu_lifetime, push_rt_tasks_looks_at_a_task_it_does_not_hold, 2)
{
	long uses = freed_uses();
	unsigned long passes = sum_stat(&nr_push_rt_rechecks);
	int cpu = last_cpu(), queued = 0;
	cpumask_t both;

	cpumask_clear(&both);
	cpumask_set_cpu(0, &both);
	cpumask_set_cpu(cpu, &both);
	atomic_set(&rp.ended, 0);
	for (int round = 0; round < ROUNDS; round++) {
		struct task_struct *g, *brief[RT_BRIEF];
		int n, ended;

		/* Above the spinning gate while spawning: on RT=1 the
		 * spawns take the allocator's sleeping lock, whose holder
		 * may be a task the gate preempted on its CPU; priority
		 * inheritance lifts it above the gate only from a waiter
		 * above the gate. */
		sched_setscheduler(current, SCHED_FIFO, 60);
		store_int(&rp.go, 0);
		g = ktest_spawn(rt_gate_fn, 0, "rcu_gate", cpu, SCHED_FIFO, 50,
				true);
		n = spawn_detached(RT_BRIEF, rt_brief_fn, "rcu_rtbrief", cpu,
				   SCHED_FIFO, 20, brief);
		/* Below them when the gate opens: CPU 0 runs lower work, so
		 * the push after the switch has somewhere to send one. They
		 * are still bound, so CPU 0 has nothing to pull when this
		 * task drops below them; and it spins, not sleeps, until one
		 * has run (CPU 1 has switched to one, and pushed), since an
		 * idle CPU 0 would pull them all while the gate exits. */
		sched_setscheduler(current, SCHED_NORMAL, 0);
		release_detached(brief, n, &both);
		queued += n;
		ended = atomic_read(&rp.ended);
		store_int(&rp.go, 1);
		/* (Or all have: an interrupt's wake-up may have let CPU 0
		 * schedule, and pull them, before ended was read.) */
		KEXPECT_TRUE(ktest_poll_until(atomic_read(&rp.ended) > ended ||
						      atomic_read(&rp.ended) ==
							      queued,
					      KTEST_WAIT_MS, POLL_SPIN));
		ktest_join(g);
		KEXPECT_TRUE(ktest_poll_until(atomic_read(&rp.ended) == queued,
					      KTEST_WAIT_MS, POLL_SLEEP));
	}
	passes = sum_stat(&nr_push_rt_rechecks) - passes;
	ktest_log("the window reached %lu times", passes);
	KEXPECT_EQ(queued, ROUNDS * RT_BRIEF);
	KEXPECT_GT(passes, 0ul);
	KEXPECT_EQ(freed_uses() - uses, 0);
}

/* ---- movable_curr(): another CPU's running task, no lock ---- */

#define MC_TASKS 8
#define MC_SPINS 20000                  /* each brief task's cpu_relax()s */

static struct {
	int stop;
	atomic_t ended;
	/* The looker's: its calls, and those that saw a task it could
	 * move running (a brief task: the rest are bound or idle). */
	long looks, running;
} mc;

static int mc_brief_fn(void *arg)
{
	for (int i = 0; i < MC_SPINS; i++)
		cpu_relax();
	atomic_inc(&mc.ended);
	return 0;
}

/* The scan's question about one CPU, over and over, as an idle CPU asks
 * it (interrupts off: the scheduler's readers are). */
static int mc_looker_fn(void *arg)
{
	struct rq *rq = cpu_rq((int)(long)arg);
	unsigned long test = ktest_number();
	unsigned long flags;

	while (!load_int(&mc.stop) && !ktest_ended(test)) {
		local_irq_save(flags);
		mc.running += movable_curr(rq, false);
		local_irq_restore(flags);
		mc.looks++;
	}
	return 0;
}

/*
 * A CPU's scan for work reads another CPU's running task with no lock
 * (movable_curr()): detached tasks free to move run to their end on a
 * CPU while a task on CPU 0 asks the scan's question about it, over and
 * over; each drops its last reference while the question may be looking
 * at it.
 */
KTEST_CPUS(rcu_lifetime, movable_curr_looks_at_a_task_it_does_not_hold, 2)
{
	long uses = freed_uses();
	int cpu = last_cpu(), queued = 0;
	struct task_struct *looker;
	cpumask_t both;

	cpumask_clear(&both);
	cpumask_set_cpu(0, &both);
	cpumask_set_cpu(cpu, &both);
	mc.stop = 0;
	mc.looks = mc.running = 0;
	atomic_set(&mc.ended, 0);
	KASSERT_TRUE(looker = ktest_spawn_on(0, mc_looker_fn, (void *)(long)cpu,
					     "rcu_looker"));
	for (int round = 0; round < ROUNDS; round++) {
		struct task_struct *brief[MC_TASKS];
		int n = spawn_detached(MC_TASKS, mc_brief_fn, "rcu_mcbrief",
				       cpu, SCHED_NORMAL, 0, brief);

		release_detached(brief, n, &both);
		queued += n;
		KEXPECT_TRUE(ktest_poll_until(atomic_read(&mc.ended) == queued,
					      KTEST_WAIT_MS, POLL_SLEEP));
	}
	store_int(&mc.stop, 1);
	ktest_join(looker);
	ktest_log("%ld looks, %ld at a task it could move running", mc.looks,
		  mc.running);
	KEXPECT_EQ(queued, ROUNDS * MC_TASKS);
	KEXPECT_GT(mc.looks, 0);
	KEXPECT_EQ(freed_uses() - uses, 0);
}
