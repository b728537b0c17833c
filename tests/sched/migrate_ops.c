/*
 * migrate_disable() and migrate_enable() in functions of their own, which
 * scripts/build/check-migrate-ops.sh disassembles at build time: along
 * the fast path (each conditional branch not taken) the pair must be a
 * counter increment and a decrement with at most two branches, no call
 * and no locked instruction. The tests below check that the same functions do
 * what the pair promises, on the fast path and off it.
 */
#include "sched_util.h"

#define MIGRATE_OP_FN __attribute__((noinline, used))

MIGRATE_OP_FN void migrate_op_disable(void) { migrate_disable(); }
MIGRATE_OP_FN void migrate_op_enable(void) { migrate_enable(); }

/* The checked functions count, and nest. */
KTEST(migrate, op_functions_nest)
{
	struct task_struct *me = current;

	KASSERT_EQ(me->migration_disabled, 0);
	migrate_op_disable();
	KEXPECT_EQ(me->migration_disabled, 1);
	migrate_op_disable();
	KEXPECT_EQ(me->migration_disabled, 2);
	KEXPECT_TRUE(preemptible());
	migrate_op_enable();
	KEXPECT_EQ(me->migration_disabled, 1);
	migrate_op_enable();
	KEXPECT_EQ(me->migration_disabled, 0);
}

struct pending_record {
	int cpu[4];                      /* pinned, asked, inner, outer enable */
	bool pending_inside;             /* the move waited for the enable */
	int target;
};

/* Pinned, ask to be moved to target: the inner enable (count 2 -> 1)
 * keeps the task where it is; the outer one takes the slow path and
 * leaves for target. */
static int pending_fn(void *arg)
{
	struct pending_record *r = arg;

	migrate_op_disable();
	migrate_op_disable();
	r->cpu[0] = raw_smp_processor_id();
	r->target = r->cpu[0] == 0 ? 1 : 0;
	set_cpus_allowed(current, cpumask_of(r->target));
	r->cpu[1] = raw_smp_processor_id();
	r->pending_inside = current->migration_pending;
	migrate_op_enable();
	r->cpu[2] = raw_smp_processor_id();
	migrate_op_enable();
	r->cpu[3] = raw_smp_processor_id();
	return 0;
}

/* An affinity change while pinned takes effect at the outermost enable
 * of the checked functions, not before. */
KTEST_CPUS(migrate, op_enable_takes_pending_move, 2)
{
	struct pending_record r = {.cpu = {-1, -1, -1, -1}};

	KASSERT_EQ(ktest_run_on(-1, pending_fn, &r, "pend"), 0);
	ktest_log("pinned on %d, asked for %d: %d %d %d", r.cpu[0], r.target,
		  r.cpu[1], r.cpu[2], r.cpu[3]);
	KEXPECT_TRUE(r.pending_inside);
	KEXPECT_EQ(r.cpu[1], r.cpu[0]);
	KEXPECT_EQ(r.cpu[2], r.cpu[0]);
	KEXPECT_EQ(r.cpu[3], r.target);
}
