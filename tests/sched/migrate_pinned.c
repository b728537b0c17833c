/*
 * Nothing moves a task that holds migrate_disable() (kernel/sched/migrate.c,
 * balance.c): not the balancer, not RT push and pull, not an affinity
 * change, which waits for the outermost migrate_enable().
 */
#include "sched_util.h"

/* What a pinned task saw after its loop, around its two enables. */
static struct {
	struct pin_watch w;
	volatile int still_there_inner;  /* after the inner enable */
	volatile int pending_before_outer;
	volatile int cpu_after_outer;
	volatile int allowed_after_outer;
	volatile int pending_after_outer;
	volatile int done;
	volatile int load_stop;
} hold;

static int hold_fn(void *arg)
{
	pin_watch_loop(&hold.w);
	/* Depth 2, back to 1: still pinned, still here. */
	migrate_disable();
	migrate_enable();
	hold.still_there_inner = raw_smp_processor_id() == hold.w.cpu;
	hold.pending_before_outer = current->migration_pending;
	pin_watch_release(&hold.w); /* outermost: the affinity change now */
	preempt_disable();
	hold.cpu_after_outer = raw_smp_processor_id();
	hold.allowed_after_outer = cpumask_test_cpu(hold.cpu_after_outer,
						    &current->cpus_mask);
	preempt_enable();
	hold.pending_after_outer = current->migration_pending;
	store_int(&hold.done, 1);
	return 0;
}

#define HOLD_LOAD 2
/*
 * Each FIFO run is a chance for push, pull or the balancer to move T, and
 * a wrong task_can_move() takes the first it gets: a thousand are plenty.
 * More only cost time: on a 2-core host at load 8 a run costs about 10 ms
 * of lab 3's grade.
 */
#define HOLD_RUNS 1000                   /* of the FIFO task, while pinned */
#define HOLD_PREEMPTIONS 300

/*
 * A NORMAL task T, not bound, takes migrate_disable() and spins on its CPU
 * c checking it never runs elsewhere, while: NORMAL tasks bound to c keep
 * it queued behind them (so idle CPUs try to pull it: it is the only task
 * there that may move), a FIFO task bound to c wakes every ms and whenever
 * kicked from CPU 0, preempting it hundreds of times, and the test keeps
 * setting T's affinity to masks without c. T stays on c; its
 * migration_pending is set; an inner migrate_enable() leaves it on c, and
 * the outermost one moves it to an allowed CPU.
 */
KTEST_CPUS(migrate, pinned_task_never_moves, 2)
{
	struct pin_watch *w = &hold.w;
	struct task_struct *load[HOLD_LOAD];
	int c = last_cpu(), changes = 0, pending_seen = 0;
	struct ktest_progress progress = {0};
	cpumask_t away, other;
	uint64_t t0;
	bool done;

	hold = (typeof(hold)){.w.cpu = -1, .cpu_after_outer = -1};
	KASSERT_TRUE(pin_watch_start(w, hold_fn, "holder", c, SCHED_NORMAL,
				     0));
	for (int i = 0; i < HOLD_LOAD; i++)
		load[i] = ktest_spawn_on(c, ktest_spin_until_stopped,
					 (void *)&hold.load_stop, "load");
	cpumask_copy(&away, cpu_online_mask);
	cpumask_clear_cpu(c, &away);
	cpumask_copy(&other, cpumask_of(0));
	t0 = ktime_get_ns();
	/* Until the FIFO task has run a thousand times (the counts, not
	 * the time, are what the test needs: a starved vCPU only slows it,
	 * and only counts that stop moving end the loop early). */
	while (load_long(&w->k.runs_while) < HOLD_RUNS ||
	       load_long(&w->preempted) < HOLD_PREEMPTIONS) {
		if (ktest_stalled(&progress,
				  load_long(&w->k.runs_while) +
					  load_long(&w->preempted))) {
			ktest_log("stuck at %ld FIFO runs, %ld preemptions",
				  load_long(&w->k.runs_while),
				  load_long(&w->preempted));
			break;
		}
		for (int i = 0; i < 10 && w->k.task; i++)
			kick(&w->k);
		KEXPECT_EQ(set_cpus_allowed(w->task,
					    changes % 2 ? &other : &away), 0);
		changes++;
		pending_seen += w->task->migration_pending;
	}
	/* The last mask excludes c: T leaves it at the outermost enable. */
	KEXPECT_EQ(set_cpus_allowed(w->task, &away), 0);
	pending_seen += w->task->migration_pending;
	changes++;
	store_int(&w->stop, 1);
	done = ktest_poll_int(&hold.done, 1, KTEST_WAIT_MS);
	pin_watch_finish(w);
	store_int(&hold.load_stop, 1);
	ktest_join_all(load, HOLD_LOAD);
	ktest_log("on CPU %d for %lu ms: %ld iterations, %ld elsewhere; "
		  "preempted %ld times; FIFO task ran %ld times while it was "
		  "pinned; %d affinity changes, pending after %d of them",
		  w->cpu, (unsigned long)(ns_since(t0) / NS_PER_MS), w->iters,
		  w->moved, w->preempted, w->k.runs_while, changes,
		  pending_seen);
	ktest_log("inner enable: still there %d, pending %d; outer enable: on "
		  "CPU %d (allowed %d), pending %d", hold.still_there_inner,
		  hold.pending_before_outer, hold.cpu_after_outer,
		  hold.allowed_after_outer, hold.pending_after_outer);
	KEXPECT_TRUE(done);
	KEXPECT_EQ(w->moved, 0);
	KEXPECT_GT(w->iters, 0);
	KEXPECT_GE(w->k.runs_while, HOLD_RUNS);
	KEXPECT_GE(w->preempted, HOLD_PREEMPTIONS);
	KEXPECT_EQ(pending_seen, changes);
	KEXPECT_TRUE(hold.still_there_inner);
	KEXPECT_TRUE(hold.pending_before_outer);
	KEXPECT_NE(hold.cpu_after_outer, c);
	KEXPECT_TRUE(hold.allowed_after_outer);
	KEXPECT_FALSE(hold.pending_after_outer);
}

static struct {
	struct pin_watch w;
	volatile int cpu_after;          /* where it went after enable */
	volatile int done;
} rtp;

#define RTP_RUNS 200                     /* FIFO runs and preemptions */
/* Pushes from the holder's CPU that task_can_move() refused (the counter
 * is the CPU's): a correct rule refuses one only when the task's affinity
 * or the destination changed between the scan and the recheck, which
 * nothing here does. */
#define RTP_REFUSALS 100

static int rt_holder_fn(void *arg)
{
	int now = -1;

	pin_watch_loop(&rtp.w);
	pin_watch_release(&rtp.w);
	/* Now the next preemption pushes it to a CPU running lower work;
	 * stop as soon as that happened (or the test gave up), noting
	 * where. */
	ktest_helper_wait((now = raw_smp_processor_id()) != rtp.w.cpu ||
				  load_int(&rtp.w.k.stop),
			  POLL_SPIN);
	rtp.cpu_after = now;
	store_int(&rtp.done, 1);
	return 0;
}

/*
 * RT push and pull leave a pinned RT task alone: a FIFO 20 task, not
 * bound, holds migrate_disable() on CPU c while a FIFO 50 task bound to c
 * preempts it (kicked from CPU 0, hundreds of times). Each time, c has an
 * RT task waiting that other CPUs (idle, or running NORMAL work) could
 * run: push after the switch and pull from those CPUs both try, and must
 * not move it. Once it calls migrate_enable() the same situation does move
 * it (push works, and it was migrate_disable() that held it).
 */
KTEST_CPUS(migrate, rt_push_pull_skip_pinned_task, 2)
{
	struct pin_watch *w = &rtp.w;
	struct ktest_progress progress = {0};
	int c = last_cpu();
	unsigned long *refused = raw_per_cpu_ptr(&nr_push_rt_refused, c);
	unsigned long refused0;
	uint64_t t0;
	bool done;

	rtp = (typeof(rtp)){.w.cpu = -1, .cpu_after = -1};
	KASSERT_TRUE(pin_watch_start(w, rt_holder_fn, "rt-holder", c,
				     SCHED_FIFO, 20));
	/* Counted, not timed: a busy host may give the vCPUs little time;
	 * only counts that stop moving end the loop early. */
	while ((load_long(&w->k.runs_while) < RTP_RUNS ||
		load_long(&w->preempted) < RTP_RUNS) && w->k.task &&
	       !ktest_stalled(&progress, load_long(&w->k.runs_while) +
						 load_long(&w->preempted)))
		kick(&w->k);
	refused0 = READ_ONCE(*refused);
	store_int(&w->stop, 1);
	/* Preempt it again until it is pushed away (a push needs another
	 * CPU running lower work when the FIFO 50 task preempts it, which
	 * a busy host may make wait: bounded by time). A task that moved
	 * while pinned has failed already, and one that push found and
	 * task_can_move() kept here again and again will not move: no need
	 * to wait. */
	t0 = ktime_get_ns();
	while (!load_int(&rtp.done) && !load_long(&w->moved) &&
	       READ_ONCE(*refused) - refused0 < RTP_REFUSALS &&
	       ns_since(t0) < KTEST_WAIT_MS * NS_PER_MS) {
		if (w->k.task)
			kick(&w->k);
		else
			msleep(1);
	}
	done = load_int(&rtp.done);
	pin_watch_finish(w);
	ktest_log("FIFO 20 task pinned on CPU %d: %ld iterations, preempted "
		  "%ld times, FIFO 50 task ran %ld times meanwhile, %ld "
		  "iterations elsewhere; after migrate_enable() it went to "
		  "CPU %d, task_can_move() refused %lu pushes from CPU %d",
		  w->cpu, w->iters, w->preempted, w->k.runs_while, w->moved,
		  rtp.cpu_after, READ_ONCE(*refused) - refused0, c);
	KEXPECT_EQ(w->moved, 0);
	KEXPECT_GE(w->k.runs_while, RTP_RUNS);
	KEXPECT_GE(w->preempted, RTP_RUNS);
	if (w->moved)
		return;
	KEXPECT_TRUE(done);
	KEXPECT_GE(rtp.cpu_after, 0);
	KEXPECT_NE(rtp.cpu_after, c);
}
