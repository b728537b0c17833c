/*
 * User-mode benchmarks for `make bench` (tests/bench/bench_user.c), in TSC
 * cycles per operation x100:
 *   ubench syscall N      getpid round trip; prints the median, minimum
 *                         and maximum of 7 runs of N calls
 *   ubench getcpu N       getcpu by system call and without one
 *                         (RDPID or LSL), the same way
 *   ubench inc MODE CPU NPROC N
 *                         pinned to CPU, after all NPROC processes have
 *                         arrived (shared page UBENCH_KEY), N increments
 *                         of a per-CPU counter by rseq (MODE rseq, one
 *                         cache line per CPU, no false sharing) or of
 *                         one shared counter by lock xadd (MODE atomic);
 *                         prints the cycles per increment
 */
#include "ulib.h"

#define RUNS 7
#define UBENCH_KEY 2

/* The barrier and the shared counter; the per-CPU counters, one cache
 * line each (no false sharing), fill page UBENCH_KEY + 1. */
struct ubench_page {
	volatile int arrived;
	uint64_t shared __attribute__((aligned(64)));
};

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static unsigned sink;

static uint64_t per_op(uint64_t t0, unsigned long n)
{
	return (rdtsc() - t0) * 100 / n;
}

static uint64_t time_getpid(unsigned long n)
{
	uint64_t t0 = rdtsc();

	for (unsigned long i = 0; i < n; i++)
		sink += getpid();
	return per_op(t0, n);
}

static uint64_t time_getcpu_syscall(unsigned long n)
{
	uint64_t t0 = rdtsc();
	unsigned cpu;

	for (unsigned long i = 0; i < n; i++) {
		getcpu(&cpu, 0);
		sink += cpu;
	}
	return per_op(t0, n);
}

static uint64_t time_getcpu_fast(unsigned long n)
{
	uint64_t t0 = rdtsc();

	for (unsigned long i = 0; i < n; i++)
		sink += getcpu_fast();
	return per_op(t0, n);
}

/* RUNS runs of fn; prints "ubench NAME median min max". */
static void report(const char *name, uint64_t (*fn)(unsigned long),
		   unsigned long n)
{
	uint64_t v[RUNS];

	for (int i = 0; i < RUNS; i++) {
		uint64_t x = fn(n);
		int j = i;

		for (; j > 0 && v[j - 1] > x; j--) /* insertion sort */
			v[j] = v[j - 1];
		v[j] = x;
	}
	printf("ubench %s %lu %lu %lu\n", name, (unsigned long)v[RUNS / 2],
	       (unsigned long)v[0], (unsigned long)v[RUNS - 1]);
}

static int bench_inc(bool use_rseq, unsigned cpu, int nproc, unsigned long n)
{
	struct ubench_page *pg = shm_map(UBENCH_KEY);
	uint64_t *counters = shm_map(UBENCH_KEY + 1), t0;

	if ((long)pg < 0 || (long)counters < 0 || cpu >= 64 || pin_to_cpu(cpu) ||
	    rseq_register())
		return 2;
	__atomic_fetch_add(&pg->arrived, 1, __ATOMIC_SEQ_CST);
	while (pg->arrived < nproc)
		__asm__ volatile("pause");
	t0 = rdtsc();
	for (unsigned long i = 0; i < n; i++) {
		if (use_rseq)
			while (!rseq_percpu_inc(counters, 6, true, 1))
				;
		else
			__atomic_fetch_add(&pg->shared, 1, __ATOMIC_RELAXED);
	}
	printf("ubench inc %lu\n", (unsigned long)per_op(t0, n));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned long n = simple_strtoul(argv[argc - 1], 0, 0);

	if (!strcmp(mode, "syscall") && argc == 3) {
		report("getpid", time_getpid, n);
	} else if (!strcmp(mode, "getcpu") && argc == 3) {
		report("getcpu_syscall", time_getcpu_syscall, n);
		report("getcpu_fast", time_getcpu_fast, n);
	} else if (!strcmp(mode, "inc") && argc == 6) {
		return bench_inc(!strcmp(argv[2], "rseq"),
				 simple_strtoul(argv[3], 0, 0),
				 simple_strtoul(argv[4], 0, 0), n);
	} else {
		printf("usage: ubench syscall N | getcpu N | "
		       "inc rseq|atomic CPU NPROC N\n");
		return 1;
	}
	return 0;
}
