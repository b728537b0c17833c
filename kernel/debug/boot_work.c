/*
 * The work a test or benchmark boot does, started from the command line
 * once the boot is done (a late_initcall(), kernel/init.h): ktest=GLOB
 * runs the tests, kbench=GLOB the benchmarks, torture=GLOB torture, in a
 * task bound to CPU 0 that leaves QEMU with the verdict (asm/qemu.h).
 * One of them per boot: ktest= first, then kbench=, then torture=; with
 * init=NAME the boot runs that program instead (kernel/main.c). With
 * "trace" too, the scheduler trace records from before the first test to
 * after the last, and is dumped over the serial port at the end.
 */
#include "bootinfo.h"
#include "cmdline.h"
#include "debug/kbench.h"
#include "debug/ktest.h"
#include "debug/torture.h"
#include "init.h"
#include "panic.h"
#include "printk.h"
#include "sched/sched.h"
#include "string.h"
#include "trace/trace.h"
#include "asm/qemu.h"

static char work_glob[BOOT_CMDLINE_MAX];

/* Boot with "trace" (make trace): events from before the first test to
 * after the last, dumped over the serial port at the end. */
#define BOOT_TRACE_ENTRIES 65536

/* In the work task, not in the idle task that creates it: starting a
 * trace patches code (static keys), which takes sleeping locks. */
static void boot_trace_start(void)
{
	char opt[16];

	if (cmdline_get("trace", opt, sizeof(opt)) &&
	    trace_start(BOOT_TRACE_ENTRIES))
		printk("trace: no memory for %d events per CPU\n",
		       BOOT_TRACE_ENTRIES);
}

static void boot_trace_dump(void)
{
	if (trace_enabled())
		trace_dump();
}

static int run_tests(void *arg)
{
	int failed;

	boot_trace_start();
	failed = ktest_run_all(work_glob);

	boot_trace_dump();
	qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	return failed;
}

static int run_torture(void *arg)
{
	boot_trace_start();
	qemu_exit(torture_run(work_glob) ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
	return 0;
}

static int run_benches(void *arg)
{
	boot_trace_start();
	kbench_run_all(work_glob);
	boot_trace_dump();
	qemu_exit(QEMU_EXIT_PASS);
	return 0;
}

/* The tests, benchmarks or torture the command line asks for, in a task
 * on CPU 0. */
static void debug_boot_work(void)
{
	char init_name[BOOT_CMDLINE_MAX];
	int (*fn)(void *) = 0;
	struct task_struct *t;

	if (cmdline_get("init", init_name, sizeof(init_name)))
		return; /* a user program runs instead */
	if (cmdline_get("ktest", work_glob, sizeof(work_glob)))
		fn = run_tests;
	else if (cmdline_get("kbench", work_glob, sizeof(work_glob)))
		fn = run_benches;
	else if (cmdline_get("torture", work_glob, sizeof(work_glob)))
		fn = run_torture;
	if (!fn) {
		printk("percpu-kernel: boot complete; no tests requested (boot "
		       "with ktest=GLOB or kbench=GLOB to run them).\n");
		return;
	}
	if (!work_glob[0])
		strlcpy(work_glob, "*", sizeof(work_glob));
	t = kthread_create(fn, 0, fn == run_tests ? "ktest" :
				  fn == run_torture ? "torture" : "kbench");
	if (!t)
		panic("cannot start the test task");
	kthread_bind(t, 0);
	/* The test runner above any test: a test that spins at RT priority
	 * on CPU 0 must not keep it from seeing a test overrun its bound. */
	if (fn != run_benches)
		sched_setscheduler(t, SCHED_FIFO, 99);
	wake_up_process(t);
}
late_initcall(debug_boot_work);
