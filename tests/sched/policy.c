/*
 * The scheduling policies (kernel/sched/sched.c): a FIFO task preempts a
 * NORMAL one at once, on this CPU and by IPI on another; FIFO runs tasks
 * of one priority in wakeup order, RR in turns, NORMAL all of them; and
 * sched_setscheduler() checks its arguments.
 */
#include "sched_util.h"

static struct preempt_probe {
	volatile long spins;
	volatile int fifo_ran;
	volatile int spinner_saw_fifo; /* left its loop because of the flag */
	volatile int spinner_done;
	volatile int spinner_cpu;
	int cpu;
	uint64_t wake_ns, fifo_start_ns;
	unsigned long ticks_after_wake, ticks_at_fifo;
	long spins_at_fifo;
	int spinner_done_at_fifo;
	int fifo_cpu;
} pp;

/* A NORMAL task that spins until it sees the FIFO task's flag (which the
 * test sets itself, whatever happened, before it joins): seeing it
 * means the FIFO task ran in the middle of its loop. */
static int probe_spinner(void *arg)
{
	struct preempt_probe *p = arg;
	unsigned long test = ktest_number();

	p->spinner_cpu = raw_smp_processor_id();
	while (!ktest_ended(test)) {
		p->spins++;
		if (load_int(&p->fifo_ran)) {
			p->spinner_saw_fifo = 1;
			break;
		}
		cpu_relax();
	}
	store_int(&p->spinner_done, 1);
	return 0;
}

static int probe_fifo(void *arg)
{
	struct preempt_probe *p = arg;

	p->fifo_start_ns = ktime_get_ns();
	p->ticks_at_fifo = per_cpu(cpu_ticks, p->cpu);
	p->spins_at_fifo = p->spins;
	p->spinner_done_at_fifo = p->spinner_done;
	p->fifo_cpu = raw_smp_processor_id();
	store_int(&p->fifo_ran, 1);
	return 0;
}

/*
 * One try: a NORMAL task spins on cpu, then a FIFO task is woken for cpu
 * from here. Returns whether the FIFO task ran (pp holds the record) and
 * sets *ipis to the reschedule IPIs cpu took meanwhile.
 */
static bool preempt_try(int cpu, unsigned long *ipis)
{
	struct task_struct *spinner, *fifo;
	unsigned long ipi0 = 0;
	bool ran;

	pp = (struct preempt_probe){.cpu = cpu, .spinner_cpu = -1,
				    .fifo_cpu = -1};
	spinner = ktest_spawn_on(cpu, probe_spinner, &pp, "spinner");
	if (!spinner)
		return false;
	KEXPECT_TRUE(ktest_poll_long(&pp.spins, 1000, KTEST_WAIT_MS));
	fifo = ktest_spawn(probe_fifo, &pp, "fifo", cpu, SCHED_FIFO, 50, false);
	if (fifo) {
		ipi0 = per_cpu(resched_ipi_count, cpu);
		pp.wake_ns = ktime_get_ns();
		wake_up_process(fifo);
		/* After the wakeup: a host that holds this vCPU back between
		 * the two can only make the count smaller. */
		pp.ticks_after_wake = per_cpu(cpu_ticks, cpu);
	}
	ran = fifo && ktest_poll_int(&pp.fifo_ran, 1, KTEST_WAIT_MS);
	*ipis = per_cpu(resched_ipi_count, cpu) - ipi0;
	store_int(&pp.fifo_ran, 1); /* whatever happened, the spinner stops */
	ktest_join(fifo);
	ktest_join(spinner);
	return ran;
}

static uint64_t preempt_latency(void)
{
	return pp.fifo_start_ns - pp.wake_ns;
}

/* How late the FIFO task ran, in ticks of its CPU (0 or less: before the
 * waker looked). Ticks, not time: a host that does not run that vCPU
 * meanwhile delays the FIFO task and the ticks alike, and merges the
 * ticks it missed into one, so a wakeup that preempts at once takes a
 * tick at most, or two when the host also stops the vCPU on its way from
 * the interrupt to the switch. A kernel that waits for the NORMAL task's
 * time slice to end takes up to NORMAL_TIMESLICE_TICKS. */
static long preempt_ticks(void)
{
	return (long)(pp.ticks_at_fifo - pp.ticks_after_wake);
}

#define PREEMPT_MAX_TICKS 2
#define PREEMPT_TRIES 5

/* Tries until the FIFO task ran within PREEMPT_MAX_TICKS and, if want_ipi,
 * after a reschedule IPI; each that misses is counted, and made again.
 * Returns the tries made; *ran says whether the last one ran the FIFO
 * task. */
static int preempt_tries(int cpu, bool want_ipi, bool *ran,
			 unsigned long *ipis)
{
	int tries = 0;

	*ran = false;
	while (tries < PREEMPT_TRIES &&
	       !(*ran && (!want_ipi || *ipis > 0) &&
		 preempt_ticks() <= PREEMPT_MAX_TICKS)) {
		tries++;
		*ran = preempt_try(cpu, ipis);
	}
	return tries;
}

/* The FIFO task ran on cpu in the middle of the spinner's loop there,
 * within PREEMPT_MAX_TICKS of its wakeup. */
static void expect_preempted_spinner(int cpu)
{
	KEXPECT_EQ(pp.spinner_cpu, cpu);
	KEXPECT_EQ(pp.fifo_cpu, cpu);
	KEXPECT_GT(pp.spins_at_fifo, 0);
	KEXPECT_EQ(pp.spinner_done_at_fifo, 0);
	KEXPECT_TRUE(pp.spinner_saw_fifo);
	KEXPECT_LE(preempt_ticks(), PREEMPT_MAX_TICKS);
}

/* A FIFO task woken on a CPU where a NORMAL task is busy runs at once
 * (within a tick), in the middle of the NORMAL task's loop. Counted in
 * that CPU's ticks (preempt_ticks()); the latency in time is logged. */
KTEST(sched, fifo_preempts_busy_normal_task)
{
	int cpu = last_cpu(), tries;
	unsigned long ipis;
	bool ran;

	tries = preempt_tries(cpu, false, &ran, &ipis);
	KEXPECT_TRUE(ran);
	if (!ran)
		return;
	ktest_log("CPU %d: FIFO task ran %lu us after its wakeup (%ld ticks; "
		  "try %d), NORMAL spinner at %ld iterations", cpu,
		  (unsigned long)(preempt_latency() / NS_PER_US),
		  preempt_ticks(), tries, pp.spins_at_fifo);
	expect_preempted_spinner(cpu);
}

/* A FIFO task woken from CPU 0 for CPU 1, where a NORMAL task is busy,
 * preempts it through a reschedule IPI. The IPI is only sent when CPU 1's
 * need-resched flag was clear, which it is but for a few instructions after
 * each tick; so a try in which the IPI count did not move is made again. */
KTEST_CPUS(sched, remote_wakeup_preempts_by_ipi, 2)
{
	unsigned long ipis = 0;
	int tries;
	bool ran;

	tries = preempt_tries(1, true, &ran, &ipis);
	KEXPECT_TRUE(ran);
	if (!ran)
		return;
	ktest_log("CPU 1 took %lu reschedule IPI(s) during the wakeup (try "
		  "%d); the FIFO task ran %lu us after it, spinner at %ld "
		  "iterations", ipis, tries,
		  (unsigned long)(preempt_latency() / NS_PER_US),
		  pp.spins_at_fifo);
	KEXPECT_GT(ipis, 0);
	expect_preempted_spinner(1);
}

/* n tasks fn((void *)i) bound to cpu with policy and prio, created first
 * and then woken together (the caller is above them on its own CPU, so
 * that they start together). */
static void start_group(struct task_struct **t, int n, int (*fn)(void *),
			const char *name, int cpu, int policy, int prio)
{
	for (int i = 0; i < n; i++)
		t[i] = ktest_spawn(fn, (void *)(long)i, name, cpu, policy,
				   prio, false);
	ktest_wake_all(t, n);
}

#define ORDER_TASKS 3

static struct {
	volatile long idx;
	int events[2 * ORDER_TASKS];
} order;

static void order_append(int ev)
{
	long i = __atomic_fetch_add(&order.idx, 1, __ATOMIC_ACQ_REL);

	if (i < 2 * ORDER_TASKS)
		order.events[i] = ev;
}

/* Event 2*id when it starts, 2*id+1 when done, 15 ticks of work between:
 * longer than a time slice of any policy. */
static int ordered_worker(void *arg)
{
	int id = (int)(long)arg;

	order_append(2 * id);
	spin_ticks(15, 2000);
	order_append(2 * id + 1);
	return 0;
}

/* Tasks of one FIFO priority run one after the other, in the order they
 * were woken, each to completion: FIFO has no time slices, and a FIFO task
 * preempted by a higher one (the test task's wakeups every ms) resumes
 * before the others of its priority. */
KTEST(sched, fifo_equal_priority_in_wakeup_order)
{
	struct task_struct *t[ORDER_TASKS];
	int cpu = last_cpu();
	bool done;

	order.idx = 0;
	for (int i = 0; i < 2 * ORDER_TASKS; i++)
		order.events[i] = -1;
	KASSERT_EQ(set_cpus_allowed(current, cpumask_of(cpu)), 0);
	KASSERT_EQ(raw_smp_processor_id(), cpu);
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, 70), 0);
	start_group(t, ORDER_TASKS, ordered_worker, "ordered", cpu,
		    SCHED_FIFO, 50);
	done = ktest_poll_long(&order.idx, 2 * ORDER_TASKS, KTEST_WAIT_MS);
	become_normal();
	ktest_join_all(t, ORDER_TASKS);
	KEXPECT_TRUE(done);
	ktest_log("events (2*id start, 2*id+1 end): %d %d %d %d %d %d",
		  order.events[0], order.events[1], order.events[2],
		  order.events[3], order.events[4], order.events[5]);
	for (int i = 0; i < 2 * ORDER_TASKS; i++)
		KEXPECT_EQ(order.events[i], i);
}

static struct {
	volatile long count[2];
	long changes_seen[2];      /* times the other's count had moved */
	long count_at_end[2];
} rr;

/* Spin for 100 ticks of the CPU (ten RR slices, which are counted in
 * ticks too: a vCPU the host does not run only takes longer) counting,
 * and count how often the other task made progress meanwhile (it can
 * only have while this one was off the CPU they share). */
static int rr_worker(void *arg)
{
	int me = (int)(long)arg, other = 1 - me, cpu = raw_smp_processor_id();
	long last = load_long(&rr.count[other]);
	unsigned long tick0 = per_cpu(cpu_ticks, cpu);

	while (per_cpu(cpu_ticks, cpu) - tick0 < 100) {
		long o = load_long(&rr.count[other]);

		if (o != last) {
			rr.changes_seen[me]++;
			last = o;
		}
		inc_long(&rr.count[me]);
		cpu_relax();
	}
	rr.count_at_end[me] = rr.count[me];
	return 0;
}

/* Two SCHED_RR tasks of one priority on one CPU take turns (10 ms slices):
 * each sees the other advance several times while it runs, which FIFO
 * would not allow. */
KTEST(sched, rr_tasks_share_cpu)
{
	struct task_struct *t[2];
	int cpu = last_cpu();

	rr = (typeof(rr)){.count = {0}};
	/* Above both while waking them, so that they start together. */
	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, 80), 0);
	start_group(t, 2, rr_worker, "rr", cpu, SCHED_RR, 40);
	become_normal();
	ktest_join_all(t, 2);
	ktest_log("CPU %d: RR task 0 counted %ld and saw task 1 advance %ld "
		  "times; task 1 counted %ld and saw task 0 advance %ld times",
		  cpu, rr.count_at_end[0], rr.changes_seen[0],
		  rr.count_at_end[1], rr.changes_seen[1]);
	KEXPECT_GE(rr.changes_seen[0], 3);
	KEXPECT_GE(rr.changes_seen[1], 3);
}

/* 3*N busy NORMAL tasks on one CPU all make progress: each gets its
 * turn within a round of 4-tick slices, waited for as an event. */
KTEST(sched, normal_tasks_all_progress)
{
	static struct task_struct *t[MAX_BUSY_TASKS];
	int n, cpu = last_cpu();
	long lo = -1, hi = 0;

	KASSERT_EQ(sched_setscheduler(current, SCHED_FIFO, 80), 0);
	n = busy_start(t, 3 * num_online_cpus(), "normal", cpu);
	ktest_poll_until(busy_all_counted(n), KTEST_WAIT_MS, POLL_SLEEP);
	store_int(&busy.stop, 1);
	become_normal();
	ktest_join_all(t, n);
	for (int i = 0; i < n; i++) {
		KEXPECT_GT(busy.count[i], 0);
		if (lo < 0 || busy.count[i] < lo)
			lo = busy.count[i];
		if (busy.count[i] > hi)
			hi = busy.count[i];
	}
	ktest_log("%d NORMAL tasks on CPU %d: fewest iterations %ld, most %ld",
		  n, cpu, lo, hi);
}

static int wait_for_go(void *arg)
{
	wait_for_completion(arg);
	return 0;
}

/* A sched_setscheduler() call, what it returns and the task_prio() after. */
struct setscheduler_step {
	int policy, prio, ret, task_prio;
};

static void expect_steps(struct task_struct *t, const struct setscheduler_step *s,
			 int n)
{
	for (int i = 0; i < n; i++) {
		KEXPECT_EQ(sched_setscheduler(t, s[i].policy, s[i].prio),
			   s[i].ret);
		KEXPECT_EQ(task_prio(t), s[i].task_prio);
	}
}

/* sched_setscheduler refuses unknown policies and out-of-range priorities
 * (-1, leaving the task as it was); task_prio reports the RT priority, 0
 * for SCHED_NORMAL. */
KTEST(sched, setscheduler_checks_args_task_prio_reports)
{
	/* On a task not yet started. */
	static const struct setscheduler_step new_task[] = {
		{SCHED_FIFO, 0, -1, 0}, {SCHED_FIFO, 100, -1, 0},
		{SCHED_FIFO, -1, -1, 0}, {SCHED_RR, 0, -1, 0},
		{SCHED_RR, 100, -1, 0}, {SCHED_NORMAL, 1, -1, 0},
		{SCHED_NORMAL, -1, -1, 0}, {3, 10, -1, 0}, {-1, 0, -1, 0},
		{SCHED_FIFO, 1000, -1, 0},
		{SCHED_FIFO, 1, 0, 1}, {SCHED_FIFO, 99, 0, 99},
		{SCHED_FIFO, 0, -1, 99}, {SCHED_RR, 42, 0, 42},
		{7, 42, -1, 42},
	};
	/* On a task that is running and sleeping, and on this one. */
	static const struct setscheduler_step running[] = {
		{SCHED_FIFO, 30, 0, 30}, {SCHED_NORMAL, 0, 0, 0},
	};
	static const struct setscheduler_step self[] = {
		{SCHED_RR, 5, 0, 5}, {SCHED_NORMAL, 0, 0, 0},
	};
	struct completion go;
	struct task_struct *t;

	init_completion(&go);
	t = kthread_create(wait_for_go, &go, "policy");
	KASSERT_TRUE(t);
	KEXPECT_EQ(task_prio(t), 0);
	KEXPECT_EQ(task_prio(current), 0);
	expect_steps(t, new_task, ARRAY_SIZE(new_task));
	wake_up_process(t);
	msleep(2);
	expect_steps(t, running, ARRAY_SIZE(running));
	expect_steps(current, self, ARRAY_SIZE(self));
	complete(&go);
	KEXPECT_EQ(kthread_join(t), 0);
}
