/*
 * Lab 5's tests (docs/labs/lab5.md): each runs one driver of
 * tests/labs/lab5_drivers.c and passes when the driver's results are right
 * and the lock validator made no report while it ran (the test framework
 * fails a test outside the lockdep suites on any report).
 */
#include "ktest.h"
#include "lab5_drivers.h"

KTEST(lab5, devtable_lock_order)
{
	KEXPECT_EQ(lab5_devtable_run(), 0);
}

KTEST(lab5, pktstats_percpu_protected)
{
	KEXPECT_EQ(lab5_pktstats_run(), 0);
}

KTEST(lab5, hwlog_wait_context)
{
	KEXPECT_EQ(lab5_hwlog_run(), 0);
}

KTEST(lab5, events_irq_safe)
{
	KEXPECT_EQ(lab5_events_run(), 0);
}

/* On one CPU smp_processor_id() is always right: the bug needs two. */
KTEST_CPUS(lab5, workqueue_cpu_id, 2)
{
	KEXPECT_EQ(lab5_workqueue_run(), 0);
}

KTEST(lab5, rxcount_percpu_irq)
{
	KEXPECT_EQ(lab5_rxcount_run(), 0);
}

KTEST(lab5, config_unlock_on_error)
{
	KEXPECT_EQ(lab5_config_run(), 0);
}
