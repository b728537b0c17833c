/*
 * TSC calibration. QEMU's TCG TSC follows the host's clock, and its
 * frequency is not in CPUID; the PIT, whose input is a fixed 1.193182 MHz,
 * gives a reference: gate channel 2 for a known count and see how far the
 * TSC moved before the count ran out.
 */
#include "asm/timer.h"
#include "asm/processor.h"
#include "panic.h"

#define PIT_HZ 1193182
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61 /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 out */
#define CALIBRATE_MS 10     /* one window */
#define CALIBRATE_WINDOWS 5 /* the best of them counts */

uint64_t tsc_khz;

/* CPUID 0x15: TSC = crystal * EBX / EAX, when the crystal (ECX) is given. */
static uint64_t tsc_khz_cpuid(void)
{
	uint32_t max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max < 0x15)
		return 0;
	cpuid(0x15, &a, &b, &c, &d);
	if (!a || !b || !c)
		return 0;
	return (uint64_t)c * b / a / 1000;
}

/*
 * One window: TSC cycles from just before the PIT starts counting down
 * CALIBRATE_MS to just after its output is seen high. The TSC interval
 * contains the PIT interval, so a window can only come out long: the host
 * can stop this vCPU thread at any point (QEMU's PIT runs on the host's
 * clock meanwhile), and one stop of 800 ms between the PIT expiring and
 * the read that sees it has given 41 GHz. Never short, so the smallest of
 * several windows is the best estimate.
 */
static uint64_t pit_window_cycles(void)
{
	uint32_t count = PIT_HZ * CALIBRATE_MS / 1000;
	uint64_t t0, t1;
	uint8_t gate = inb(PIT_GATE);

	outb(PIT_GATE, (gate & ~0x02) | 0x01);  /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);                    /* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	t0 = rdtsc();
	outb(PIT_CH2, count >> 8);              /* counting starts here */
	while (!(inb(PIT_GATE) & 0x20))
		cpu_relax();
	t1 = rdtsc();
	outb(PIT_GATE, gate);
	return t1 - t0;
}

static uint64_t tsc_khz_pit(void)
{
	uint64_t best = ~0ull;

	for (int i = 0; i < CALIBRATE_WINDOWS; i++) {
		uint64_t c = pit_window_cycles();

		if (c < best)
			best = c;
	}
	return best / CALIBRATE_MS;
}

const char *clock_calibrate(void)
{
	tsc_khz = tsc_khz_cpuid();
	if (tsc_khz)
		return "cpuid";
	tsc_khz = tsc_khz_pit();
	if (tsc_khz < 1000)
		panic("TSC calibration failed: %lu kHz", tsc_khz);
	return "pit";
}

void arch_udelay(unsigned long us)
{
	uint64_t end = rdtsc() + us * tsc_khz / 1000;

	while (rdtsc() < end)
		cpu_relax();
}
