/* CPU helpers: pinning, getcpu without a system call, a seeded generator. */
#include "../ulib.h"

#define CPUNUM_SEL (0x40 | 3) /* arch/x86_64/gdt.h */

int pin_to_cpu(unsigned cpu)
{
	uint64_t mask = 1ull << cpu;

	return sched_setaffinity(0, sizeof(mask), &mask);
}

static bool cpu_has_rdpid(void)
{
	uint32_t a, b, c, d;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(0), "c"(0));
	if (a < 7)
		return false;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
			 : "a"(7), "c"(0));
	return (c >> 22) & 1;
}

/* -1: not looked yet; cached after the first call. */
static int use_rdpid = -1;

unsigned getcpu_fast(void)
{
	unsigned long v;

	if (use_rdpid < 0)
		use_rdpid = cpu_has_rdpid();
	if (use_rdpid) {
		__asm__ volatile("rdpid %0" : "=r"(v));
		return (unsigned)v;
	}
	__asm__ volatile("lsl %k1, %k0" : "=r"(v) : "r"(CPUNUM_SEL));
	return (unsigned)v & 0xffff;
}

uint64_t rand64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}
