/*
 * In-kernel benchmarks. KBENCH(name) registers a function that measures
 * something and reports it with kbench_report(); `kbench=GLOB` on the
 * command line runs the matching ones (make bench). Figures are for
 * comparing within one run: QEMU on a shared host is too noisy for
 * absolute numbers to mean much across runs.
 */
#ifndef KBENCH_H
#define KBENCH_H

#include <stdint.h>

struct kbench {
	const char *name;
	void (*fn)(void);
};

#define KBENCH(name_)                                                         \
	static void kbench_fn_##name_(void);                                  \
	static const struct kbench kbench_##name_                             \
		__attribute__((used, section(".kbenches"), aligned(8))) = {   \
			.name = #name_, .fn = kbench_fn_##name_};             \
	static void kbench_fn_##name_(void)

/*
 * One measured figure: `value` in hundredths of `unit` (so 1234 prints as
 * 12.34), for `variant` of `bench` at `cpus` CPUs. Printed as a table row
 * and as a JSON line ("BENCH {...}") that scripts/run-bench.sh collects.
 */
void kbench_report(const char *bench, const char *variant, int cpus,
		   uint64_t value_x100, const char *unit);

/*
 * One figure measured n times (n >= 1, values x100 as above): reports the
 * median as the figure, with the smallest and largest run and the spread
 * ((max - min) / median, in %) beside it, in the table and in the JSON
 * line ("min", "max", "runs"). Sorts values in place.
 */
void kbench_report_runs(const char *bench, const char *variant, int cpus,
			uint64_t *values_x100, int n, const char *unit);

/* The median of n values (sorted in place). */
uint64_t kbench_median(uint64_t *values, int n);

/* A free-form line in the same table (ratios, notes). */
void kbench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Run fn(arg, cpu) on CPUs 0..ncpus-1 (ncpus <= online CPUs; the caller is
 * CPU 0) at the same moment, interrupts off, and return when all are done.
 */
void kbench_on_cpus(int ncpus, void (*fn)(void *arg, int cpu), void *arg);

/* Runs the benchmarks whose name matches glob. */
void kbench_run_all(const char *glob);

#endif
