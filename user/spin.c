/*
 * spin CPU: a register-heavy loop in ring 3, pinned to CPU, until the
 * kernel's swapgs test (tests/user/user.c) raises the stop flag in shared page
 * 0, while that test sends interrupts at this CPU; every 256 rounds a
 * system call and a system-call-free getcpu must both name CPU. Prints
 * the number of rounds and the loop's hash, which the test computes too:
 * a register that an entry or exit failed to restore shows as a wrong
 * hash, a wrong GS in the kernel as a crash.
 */
#include "ulib.h"

int main(int argc, char **argv)
{
	unsigned cpu = argc > 1 ? simple_strtoul(argv[1], 0, 0) : 0, got;
	int *stop = shm_map(0);
	uint64_t h = 0x9e3779b97f4a7c15ull, rng = 1;
	unsigned long n = 0;

	if (pin_to_cpu(cpu))
		return 2;
	while (!READ_ONCE(*stop)) {
		h = (h ^ rand64(&rng)) * 0x100000001b3ull;
		h ^= h >> 29;
		if (n++ % 256 == 0 &&
		    (getcpu(&got, 0) || got != cpu || getcpu_fast() != cpu))
			return 3;
	}
	printf("spin: %lu %lx\n", n, (unsigned long)h);
	return 0;
}
