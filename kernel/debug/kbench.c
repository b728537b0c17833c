/* The benchmark runner: finds KBENCH entries in .kbenches, runs those the
 * kbench= option selects, and prints their figures. */
#include <stdarg.h>
#include "debug/kbench.h"
#include "atomic.h"
#include "cmdline.h"
#include "glob.h"
#include "irqflags.h"
#include "percpu.h"
#include "printk.h"
#include "smp.h"
#include "vsprintf.h"

extern const struct kbench __kbenches_start[], __kbenches_end[];

void kbench_report(const char *bench, const char *variant, int cpus,
		   uint64_t value_x100, const char *unit)
{
	printk("  %-22s %-26s %4d CPUs %10lu.%02lu %s\n", bench, variant, cpus,
	       value_x100 / 100, value_x100 % 100, unit);
	printk("BENCH {\"bench\": \"%s\", \"variant\": \"%s\", \"cpus\": %d, "
	       "\"value\": %lu.%02lu, \"unit\": \"%s\"}\n", bench, variant, cpus,
	       value_x100 / 100, value_x100 % 100, unit);
}

/* Insertion sort: a handful of runs. */
static void sort_u64(uint64_t *v, int n)
{
	for (int i = 1; i < n; i++) {
		uint64_t x = v[i];
		int j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t kbench_median(uint64_t *values, int n)
{
	sort_u64(values, n);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void kbench_report_runs(const char *bench, const char *variant, int cpus,
			uint64_t *v, int n, const char *unit)
{
	uint64_t med = kbench_median(v, n);
	uint64_t spread = med ? (v[n - 1] - v[0]) * 100 / med : 0;

	printk("  %-22s %-26s %4d CPUs %10lu.%02lu %s  (%d runs, %lu.%02lu..%lu.%02lu, "
	       "spread %lu%%)\n", bench, variant, cpus, med / 100, med % 100, unit,
	       n, v[0] / 100, v[0] % 100, v[n - 1] / 100, v[n - 1] % 100, spread);
	printk("BENCH {\"bench\": \"%s\", \"variant\": \"%s\", \"cpus\": %d, "
	       "\"value\": %lu.%02lu, \"unit\": \"%s\", \"runs\": %d, "
	       "\"min\": %lu.%02lu, \"max\": %lu.%02lu}\n", bench, variant, cpus,
	       med / 100, med % 100, unit, n, v[0] / 100, v[0] % 100,
	       v[n - 1] / 100, v[n - 1] % 100);
}

void kbench_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_line("  # ", fmt, ap);
	va_end(ap);
}

void kbench_run_all(const char *glob)
{
	for (const struct kbench *b = __kbenches_start; b < __kbenches_end; b++) {
		if (!glob_match_list(glob, b->name))
			continue;
		printk("== bench %s ==\n", b->name);
		b->fn();
	}
	/* Figures measured with other options than asked for mislead:
	 * the host script fails on this ERROR. */
	if (cmdline_refused())
		kbench_note("ERROR: %lu boot option(s) refused (see above)",
			    cmdline_refused());
	printk("== bench done ==\n");
}

/* kbench_on_cpus(): all workers wait at a start line, so they really run
 * at the same time, then each reports in. */
struct on_cpus {
	void (*fn)(void *arg, int idx);
	void *arg;
	int ncpus;
	atomic_t ready;
	atomic_t done;
};

static void on_cpus_worker(struct on_cpus *oc, int idx)
{
	atomic_inc(&oc->ready);
	while (atomic_read(&oc->ready) < oc->ncpus)
		cpu_relax();
	oc->fn(oc->arg, idx);
	/* fn's results before the count the caller waits on (acquire). */
	smp_mb__before_atomic();
	atomic_inc(&oc->done);
}

static void on_cpus_ipi(void *arg)
{
	struct on_cpus *oc = arg;

	on_cpus_worker(oc, raw_smp_processor_id());
}

void kbench_on_cpus(int ncpus, void (*fn)(void *arg, int idx), void *arg)
{
	struct on_cpus oc = {.fn = fn, .arg = arg, .ncpus = ncpus};
	unsigned long flags;
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != raw_smp_processor_id() && cpu < ncpus)
			smp_call_function_single(cpu, on_cpus_ipi, &oc, false);
	local_irq_save(flags);
	on_cpus_worker(&oc, raw_smp_processor_id());
	local_irq_restore(flags);
	while (atomic_read_acquire(&oc.done) < ncpus)
		cpu_relax();
}
