/*
 * TSC calibration. QEMU's TCG TSC follows the host's clock, and its
 * frequency is not in CPUID; the PIT, whose input is a fixed 1.193182 MHz,
 * gives a reference: let channel 2 count down and see how far the TSC
 * moved while it counted at least CALIBRATE_MS worth.
 */
#include <stdbool.h>

#include "asm/timer.h"
#include "asm/processor.h"
#include "panic.h"

#define PIT_HZ 1193182
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61 /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 out */
#define CALIBRATE_MS 10      /* one window, at least */
#define CALIBRATE_WINDOWS 20 /* at most */
#define CALIBRATE_PPM 1000   /* a window this exact ends calibration */
#define SAMPLE_READS 8       /* reads of the PIT per sample */

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
 * The PIT's count is read at an instant between two TSC reads. The host
 * can stop this vCPU thread anywhere (QEMU's PIT follows the host's clock
 * meanwhile, and one stop once gave a 41 GHz TSC from a window that waited
 * for the PIT's output), but a stop inside a read's TSC bracket only
 * widens that bracket: of several reads keep the narrowest, and a window
 * between two such reads knows its own error.
 */
struct pit_sample {
	uint64_t tsc;     /* middle of the bracket */
	uint64_t half;    /* half its width: the TSC error of this read */
	uint16_t count;
};

static uint16_t pit_ch2_count(void)
{
	uint8_t lo, hi;

	outb(PIT_CMD, 0x80); /* latch channel 2's count */
	lo = inb(PIT_CH2);
	hi = inb(PIT_CH2);
	return (uint16_t)(hi << 8 | lo);
}

static struct pit_sample pit_sample(void)
{
	struct pit_sample best = {.half = ~0ull};

	for (int i = 0; i < SAMPLE_READS; i++) {
		uint64_t t0 = rdtsc(), t1;
		uint16_t c = pit_ch2_count();

		t1 = rdtsc();
		if ((t1 - t0) / 2 < best.half)
			best = (struct pit_sample){t0 + (t1 - t0) / 2,
						   (t1 - t0) / 2, c};
	}
	return best;
}

/* One window of at least CALIBRATE_MS of PIT counts: the TSC's rate, and
 * its error in parts per million; 0 if the count ran out (a stop longer
 * than the 55 ms the PIT counts from 0xffff) and the window is void. */
static uint64_t pit_window_khz(uint64_t *err_ppm)
{
	const uint32_t ticks = PIT_HZ * CALIBRATE_MS / 1000;
	struct pit_sample a, b;
	uint8_t gate = inb(PIT_GATE);
	bool ran_out;

	outb(PIT_GATE, (gate & ~0x02) | 0x01);  /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);                    /* ch2, lo/hi, mode 0 */
	outb(PIT_CH2, 0xff);
	outb(PIT_CH2, 0xff);
	a = pit_sample();
	do
		b = pit_sample();
	while ((uint32_t)(a.count - b.count) < ticks && b.count <= a.count &&
	       !(inb(PIT_GATE) & 0x20));
	ran_out = (inb(PIT_GATE) & 0x20) || b.count > a.count;
	outb(PIT_GATE, gate);
	if (ran_out || b.tsc <= a.tsc)
		return 0;
	*err_ppm = (a.half + b.half) * 1000000 / (b.tsc - a.tsc);
	return (b.tsc - a.tsc) * PIT_HZ / (a.count - b.count) / 1000;
}

/* Windows until one is within CALIBRATE_PPM, else the most exact one. */
static uint64_t tsc_khz_pit(void)
{
	uint64_t best = 0, best_err = ~0ull;

	for (int i = 0; i < CALIBRATE_WINDOWS && best_err > CALIBRATE_PPM;
	     i++) {
		uint64_t err, khz = pit_window_khz(&err);

		if (khz && err < best_err) {
			best = khz;
			best_err = err;
		}
	}
	return best;
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
