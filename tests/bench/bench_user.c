/*
 * User mode, measured from ring 3 (user/ubench.c, TSC cycles): the system
 * call round trip, getcpu with and without a system call, and a per-CPU
 * counter increment by rseq against one shared atomic counter at 1..N
 * CPUs. Each figure is the median of several runs, with their spread.
 */
#include "kbench.h"
#include "percpu.h"
#include "process.h"
#include "shm.h"
#include "smp.h"
#include "string.h"
#include "vsprintf.h"
#include "asm/page.h"

#define UBENCH_KEY 2           /* user/ubench.c's shared page */
#define SYSCALL_OPS "20000"
#define INC_OPS 200000
#define INC_RUNS 5

static struct process_output *out;

/* Run ubench with args; its output in out; false (with a note) if it
 * failed. */
static bool ubench(int argc, char *const argv[])
{
	struct process *p;
	int status;

	process_output_put(out);
	if (!(out = process_output_alloc()) ||
	    process_spawn("ubench", argc, argv, out, &p)) {
		kbench_note("ERROR: cannot spawn ubench");
		return false;
	}
	status = process_wait(p);
	if (status)
		kbench_note("ERROR: ubench %s exited %#x: %s", argv[1], status,
			    out->buf);
	return status == 0;
}

/* The k-th number after "ubench NAME " in the output, or 0. */
static uint64_t field(const char *name, int k)
{
	char key[40];
	const char *s;
	char *end;
	uint64_t v = 0;

	snprintf(key, sizeof(key), "ubench %s ", name);
	if (!(s = strstr(out->buf, key)))
		return 0;
	s += strlen(key);
	for (int i = 0; i <= k; i++) {
		v = simple_strtoul(s, &end, 10);
		s = end + 1;
	}
	return v;
}

/* A figure's median, with its minimum and maximum as the spread: three
 * rows, "VARIANT (min)", "VARIANT (max)" and median_name's. */
static void report_spread(const char *bench, const char *variant,
			  const char *median_name, int cpus, uint64_t min,
			  uint64_t max, uint64_t median)
{
	char v[64];

	snprintf(v, sizeof(v), "%s (min)", variant);
	kbench_report(bench, v, cpus, min, "cycles");
	snprintf(v, sizeof(v), "%s (max)", variant);
	kbench_report(bench, v, cpus, max, "cycles");
	kbench_report(bench, median_name, cpus, median, "cycles");
}

/* ubench prints NAME's median, minimum and maximum: report them. */
static uint64_t report_median(const char *bench, const char *name,
			      const char *variant)
{
	report_spread(bench, variant, variant, 1, field(name, 1),
		      field(name, 2), field(name, 0));
	return field(name, 0);
}

static uint64_t ratio_x100(uint64_t a, uint64_t b)
{
	return a * 100 / (b ? b : 1);
}

/* One run of ncpus processes, one per CPU: mean cycles per increment. */
static uint64_t inc_run(const char *mode, int ncpus)
{
	/* Not on the stack: NR_CPUS of each. One run at a time. */
	static struct process *p[NR_CPUS];
	static struct process_output *outs[NR_CPUS];
	void *page = shm_page(UBENCH_KEY);
	uint64_t sum = 0;
	int started = 0;

	if (!page)
		return 0;
	memset(page, 0, PAGE_SIZE);
	for (; started < ncpus; started++) {
		char cpu[8], n[8], ops[12];
		char *argv[] = {"ubench", "inc", (char *)mode, cpu, n, ops};

		snprintf(cpu, sizeof(cpu), "%d", started);
		snprintf(n, sizeof(n), "%d", ncpus);
		snprintf(ops, sizeof(ops), "%d", INC_OPS);
		if (!(outs[started] = process_output_alloc()))
			break;
		if (process_spawn("ubench", 6, argv, outs[started],
				  &p[started])) {
			process_output_put(outs[started]);
			break;
		}
	}
	for (int i = 0; i < started; i++) {
		const char *s;

		if (process_wait(p[i]) || !(s = strstr(outs[i]->buf, "inc ")))
			kbench_note("ERROR: ubench inc %s failed: %s", mode,
				    outs[i]->buf);
		else
			sum += simple_strtoul(s + 4, 0, 10);
		process_output_put(outs[i]);
	}
	if (started < ncpus)
		kbench_note("ERROR: only %d of %d ubench processes started",
			    started, ncpus);
	return started ? sum / started : 0;
}

static uint64_t inc_median(const char *mode, int ncpus)
{
	bool rseq = mode[0] == 'r';
	uint64_t v[INC_RUNS], median;

	for (int i = 0; i < INC_RUNS; i++)
		v[i] = inc_run(mode, ncpus);
	median = kbench_median(v, INC_RUNS); /* sorts v */
	report_spread("user_percpu_inc", rseq ? "rseq" : "atomic",
		      rseq ? "rseq per-CPU inc" : "shared atomic inc", ncpus,
		      v[0], v[INC_RUNS - 1], median);
	return median;
}

KBENCH(user_mode)
{
	char *sys[] = {"ubench", "syscall", SYSCALL_OPS};
	char *cpu[] = {"ubench", "getcpu", SYSCALL_OPS};
	uint64_t slow, fast;

	if (ubench(3, sys))
		report_median("user_syscall", "getpid", "getpid round trip");
	if (ubench(3, cpu)) {
		slow = report_median("user_getcpu", "getcpu_syscall",
				     "getcpu syscall");
		fast = report_median("user_getcpu", "getcpu_fast",
				     "getcpu without syscall");
		kbench_report("user_getcpu", "ratio syscall/fast", 1,
			      ratio_x100(slow, fast), "x");
	}
	for (int n = 1; n <= (int)num_online_cpus(); n++) {
		uint64_t r = inc_median("rseq", n), a = inc_median("atomic", n);

		kbench_report("user_percpu_inc", "ratio atomic/rseq", n,
			      ratio_x100(a, r), "x");
	}
	process_output_put(out);
	out = 0;
}
