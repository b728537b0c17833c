/*
 * rcutorture, short (kernel/debug/rcutorture.h; the long run is `make
 * torture TORTURE=rcu`): a writer replaces the readers' element 300
 * times, freeing each old one after grace periods, while readers check
 * that none they reach is freed or two grace periods old, and a CPU goes
 * offline and back meanwhile: Fail 0. The busted control, a grace period
 * that does not wait, is caught within 20000 updates. Bounded by counts.
 */
#include "ktest_util.h"
#include "hotplug/hotplug_util.h"
#include "debug/rcutorture.h"

KTEST_SUITE(rcu_torture, .exit = hotplug_all_online);

KTEST(rcu_torture, readers_never_see_a_freed_element)
{
	struct rcu_torture_cfg cfg = {.seed = 1, .max_updates = 300,
				      .hotplug = true};
	struct rcu_torture_result r;

	KASSERT_EQ(rcu_torture(&cfg, &r), 0);
	rcu_torture_print("rcu", &r);
	KEXPECT_EQ(r.updates, 300);
	KEXPECT_GT(r.reads, 0);
	KEXPECT_EQ(r.freed_seen, 0);
	KEXPECT_EQ(r.errors, 0);
	KEXPECT_EQ(r.pipe[0] + r.pipe[1], r.reads); /* none past stage 1 */
	if (num_online_cpus() > 1)
		KEXPECT_GT(r.hotplugs, 0);
}

/* A reader on another CPU overlaps the writer: on RT=0 with one CPU a
 * grace period that does not wait is correct (no reader can be running
 * when the writer runs), so this needs two. */
KTEST_CPUS(rcu_torture, busted_grace_period_caught, 2)
{
	struct rcu_torture_cfg cfg = {.seed = 1, .max_updates = 20000,
				      .busted = true, .stop_on_error = true};
	struct rcu_torture_result r;

	KASSERT_EQ(rcu_torture(&cfg, &r), 0);
	rcu_torture_print("rcu_busted", &r);
	KEXPECT_GT(r.errors, 0);
}
