/*
 * Softirqs (kernel/softirq.c, docs/softirq.md): where a raised softirq
 * runs (local_bh_enable(), interrupt exit, ksoftirqd), the softirq count
 * in both worlds, the budget that hands a flood to ksoftirqd, and
 * ktest_in_softirq(). Counts, not time: each test waits for the event.
 */
#include <stdbool.h>
#include <stdint.h>

#include "bottom_half.h"
#include "interrupt.h"
#include "ktest.h"
#include "ktest_util.h"
#include "percpu.h"
#include "sched.h"

/* What a handler saw, each run. */
static struct {
	int runs;
	int cpu;
	bool serving, hardirq, in_ksoftirqd;
	int in_ksoftirqd_runs;
	int reraise;                  /* raise itself again this many times */
} seen;

static void record_softirq(void)
{
	WRITE_ONCE(seen.cpu, raw_smp_processor_id());
	seen.serving = in_serving_softirq() && in_softirq();
	seen.hardirq = in_hardirq();
	seen.in_ksoftirqd = current == __this_cpu_read(ksoftirqd);
	seen.in_ksoftirqd_runs += seen.in_ksoftirqd;
	if (seen.reraise > 0) {
		seen.reraise--;
		raise_softirq(HI_SOFTIRQ);
	}
	smp_store_release(&seen.runs, seen.runs + 1);
}

static void seen_reset(int reraise)
{
	seen = (typeof(seen)){.cpu = -1, .reraise = reraise};
	open_softirq(HI_SOFTIRQ, record_softirq);
}

KTEST(softirq, raised_in_bh_section_runs_at_enable)
{
	int cpu;

	seen_reset(0);
	local_bh_disable();
	cpu = raw_smp_processor_id();
	raise_softirq(HI_SOFTIRQ);
	KEXPECT_EQ(READ_ONCE(seen.runs), 0); /* not while BHs are off */
	local_bh_enable();
	/* Run by that enable, in this task, on this CPU. */
	KEXPECT_EQ(READ_ONCE(seen.runs), 1);
	KEXPECT_EQ(seen.cpu, cpu);
	KEXPECT_TRUE(seen.serving);
	KEXPECT_FALSE(seen.hardirq);
	KEXPECT_FALSE(seen.in_ksoftirqd);
	KEXPECT_EQ(softirq_count(), 0);
}

KTEST(softirq, count_layout)
{
	KEXPECT_EQ(softirq_count(), 0);
	KEXPECT_FALSE(in_softirq());
	local_bh_disable();
	KEXPECT_EQ(softirq_count(), SOFTIRQ_DISABLE_OFFSET);
	KEXPECT_TRUE(in_softirq());
	KEXPECT_FALSE(in_serving_softirq());
	local_bh_disable();
	KEXPECT_EQ(softirq_count(), 2 * SOFTIRQ_DISABLE_OFFSET);
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		/* Preemptible, migration off, the count the task's. */
		KEXPECT_TRUE(preemptible());
		KEXPECT_EQ(preempt_count() & SOFTIRQ_MASK, 0);
		KEXPECT_GT(current->migration_disabled, 0);
		KEXPECT_EQ(current->softirq_disable_cnt,
			   2 * SOFTIRQ_DISABLE_OFFSET);
	} else {
		/* The preempt count's softirq byte: not preemptible. */
		KEXPECT_FALSE(preemptible());
		KEXPECT_EQ(preempt_count() & SOFTIRQ_MASK,
			   2 * SOFTIRQ_DISABLE_OFFSET);
	}
	local_bh_enable();
	KEXPECT_EQ(softirq_count(), SOFTIRQ_DISABLE_OFFSET);
	local_bh_enable();
	KEXPECT_EQ(softirq_count(), 0);
	KEXPECT_TRUE(preemptible());
}

static void serving_context(void *arg)
{
	int *where = arg;

	where[0] = raw_smp_processor_id();
	where[1] = in_serving_softirq();
	where[2] = in_hardirq();
	where[3] = in_task();
}

KTEST(softirq, ktest_in_softirq_runs_here_in_softirq)
{
	int where[4] = {-1, 0, 1, 1};
	int cpu;

	migrate_disable();
	cpu = raw_smp_processor_id();
	ktest_in_softirq(serving_context, where);
	migrate_enable();
	KEXPECT_EQ(where[0], cpu);
	KEXPECT_EQ(where[1], 1);
	KEXPECT_EQ(where[2], 0);
	KEXPECT_EQ(where[3], 0);
}

/* in_hardirq(), in_irq(), in_interrupt(), in_task(), in_nmi(), as one
 * context sees them (a bit each, in that order). */
static void contexts(void *arg)
{
	int *bits = arg;

	*bits = in_hardirq() | in_irq() << 1 | in_interrupt() << 2 |
		in_task() << 3 | in_nmi() << 4;
}

/*
 * The context tests say what Linux's say: a task is in_task(), and in a
 * BH-disabled section still is, though in_interrupt() (the softirq count
 * is part of it); a softirq handler is in_interrupt() and not in_task();
 * a hard interrupt handler is in_hardirq() and in_irq() (its older name)
 * too.
 */
KTEST(softirq, context_tests_answer_as_linux)
{
	int task = -1, bh = -1, softirq = -1, hardirq = -1;

	contexts(&task);
	local_bh_disable();
	contexts(&bh);
	local_bh_enable();
	ktest_in_softirq(contexts, &softirq);
	ktest_in_hardirq(contexts, &hardirq);
	KEXPECT_EQ(task, 0x8);
	KEXPECT_EQ(bh, 0x4 | 0x8);
	KEXPECT_EQ(softirq, 0x4);
	KEXPECT_EQ(hardirq, 0x1 | 0x2 | 0x4);
}

static void raise_hi(void *unused)
{
	raise_softirq(HI_SOFTIRQ);
}

/* Raised by a hard interrupt: RT=0 runs it on that interrupt's exit,
 * before the interrupted task goes on; PREEMPT_RT in a task (ksoftirqd,
 * or a BH section's end), never in the hard interrupt. */
KTEST(softirq, raised_in_hardirq_runs_after_it)
{
	int cpu;

	seen_reset(0);
	migrate_disable();
	cpu = raw_smp_processor_id();
	ktest_in_hardirq(raise_hi, 0);
	migrate_enable();
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		KEXPECT_EQ(smp_load_acquire(&seen.runs), 1);
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&seen.runs) == 1,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_EQ(seen.cpu, cpu);
	KEXPECT_TRUE(seen.serving);
	KEXPECT_FALSE(seen.hardirq);
}

/* Raised from a task with BHs on: ksoftirqd runs it. */
KTEST(softirq, raised_in_task_goes_to_ksoftirqd)
{
	seen_reset(0);
	raise_softirq(HI_SOFTIRQ);
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&seen.runs) == 1,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_TRUE(seen.serving);
}

/* A softirq that raises itself 40 times: MAX_SOFTIRQ_RESTART (10)
 * rounds at the local_bh_enable(), then ksoftirqd, which is then left
 * the rest. */
#define FLOOD_RUNS 40

KTEST(softirq, flood_past_budget_goes_to_ksoftirqd)
{
	unsigned long before;
	int cpu;

	seen_reset(FLOOD_RUNS - 1);
	local_bh_disable();
	cpu = raw_smp_processor_id();
	before = softirq_budget_exhausted(cpu);
	raise_softirq(HI_SOFTIRQ);
	local_bh_enable();
	KEXPECT_TRUE(ktest_poll_until(smp_load_acquire(&seen.runs) ==
					      FLOOD_RUNS,
				      KTEST_WAIT_MS, POLL_SLEEP));
	KEXPECT_GT(softirq_budget_exhausted(cpu), before);
	KEXPECT_GT(seen.in_ksoftirqd_runs, 0);
	KEXPECT_EQ(seen.cpu, cpu);
}
