/*
 * spin ITERATIONS: a register-heavy loop in ring 3 while the kernel's
 * swapgs test (tests/user.c) sends interrupts at this CPU, with a system
 * call every 256 rounds. Prints the loop's hash, which the test computes
 * too: a register an entry or exit failed to restore shows as a wrong
 * hash, a wrong GS in the kernel as a crash.
 */
#include "ulib.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? simple_strtoul(argv[1], 0, 0) : 1000;
	uint64_t h = 0x9e3779b97f4a7c15ull, rng = 1;
	unsigned cpu;

	for (unsigned long i = 0; i < n; i++) {
		h = (h ^ rand64(&rng)) * 0x100000001b3ull;
		h ^= h >> 29;
		if (i % 256 == 0)
			getcpu(&cpu, 0);
	}
	printf("spin: %lx\n", (unsigned long)h);
	return 0;
}
