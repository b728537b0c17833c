/*
 * fuzz SEED COUNT: COUNT system calls with random numbers (valid ones,
 * unknown ones, negative ones) and arguments drawn from a pool of
 * interesting values (NULL, kernel and non-canonical addresses, unmapped
 * and page-straddling pointers, valid buffers, huge lengths), from a
 * generator seeded with SEED, which is printed so that a failure can be
 * replayed. Every call must come back with a result or -errno; the kernel
 * must survive. Calls that would end or stall the fuzzer itself (exit,
 * nanosleep, rseq, sched_setscheduler) are left out.
 */
#include "ulib.h"

static char scratch[2 * 4096] __attribute__((aligned(4096)));

static long pick_arg(uint64_t *rng)
{
	static const unsigned long pool[] = {
		0, 1, 2, 8, 4096, ~0ul, 0x7fffffff,
		0xffffffff80100000ul, 0xffff800000000000ul,
		0x0000800000000000ul, 0x8000000000000000ul, 0x10000000ul,
		0x7ffffffff000ul, 0x7fffffffeff8ul,
	};
	uint64_t r = rand64(rng);

	switch (r % 4) {
	case 0:
		return pool[(r >> 8) % (sizeof(pool) / sizeof(pool[0]))];
	case 1:
		return (long)(scratch + (r >> 8) % sizeof(scratch));
	case 2:
		return (long)(r >> 8) % 64;
	default:
		return (long)rand64(rng);
	}
}

static bool excluded(long nr)
{
	return nr == SYS_exit || nr == SYS_nanosleep || nr == SYS_rseq ||
	       nr == SYS_sched_setscheduler;
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? simple_strtoul(argv[1], 0, 0) : 1;
	unsigned long count = argc > 2 ? simple_strtoul(argv[2], 0, 0) : 1000;
	uint64_t rng = seed ? seed : 1;
	unsigned long ok = 0, failed = 0, nosys = 0;

	printf("fuzz: seed %lu, %lu calls\n", (unsigned long)seed, count);
	for (unsigned long i = 0; i < count; i++) {
		long nr = (long)(rand64(&rng) % (NR_SYSCALLS + 8)) - 4, r;
		long a[6];

		if (excluded(nr))
			continue;
		for (int j = 0; j < 6; j++)
			a[j] = pick_arg(&rng);
		if (nr == SYS_write)
			a[2] &= 7; /* keep the output readable */
		r = syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r < -4095) {
			printf("fuzz: call %lu: syscall %ld returned %ld\n", i,
			       nr, r);
			return 1;
		}
		if ((nr < 0 || nr >= NR_SYSCALLS) && r != -ENOSYS) {
			printf("fuzz: call %lu: unknown syscall %ld gave %ld\n",
			       i, nr, r);
			return 1;
		}
		r == -ENOSYS ? nosys++ : r < 0 ? failed++ : ok++;
	}
	printf("fuzz: done: %lu succeeded, %lu failed, %lu -ENOSYS\n", ok,
	       failed, nosys);
	return 0;
}
