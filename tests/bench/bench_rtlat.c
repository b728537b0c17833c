/*
 * The realtime latency experiment (docs/realtime.md), run by `make rtlat`
 * on an RT=0 and an RT=1 kernel: the in-kernel cyclictest (kernel/debug/rtlat.c)
 * on one CPU, with nothing else there (the floor), then with background
 * sections of each length in section_us[] under each protection, then
 * with kmalloc/kfree storms (the allocator's own sections, under its
 * local_lock) on that CPU alone and on every CPU; before those, with BH
 * sections of each length while the measuring task enters one of its
 * own. Each run
 * prints cyclictest's status lines and histogram and an RTLAT JSON line;
 * scripts/rtlat-report turns them into the table of ratios and the plot.
 *
 * The CPU is the last one, or rtlat_cpu=N on the command line.
 */
#include "compiler.h"
#include "kbench.h"
#include "cmdline.h"
#include "rtlat.h"
#include "smp.h"

/* Prime, so no L divides it: each wake-up meets the background's
 * sections 37 us later in their phase than the one before (1037 us, two
 * interleaved sequences 74 us apart, for L = 2000), so the 100 wake-ups
 * sample every phase and the maximum comes within a few percent of L.
 * (With 3000 us, which 250, 500 and 1000 divide, the phase was the same
 * at every wake-up, give or take the wake-up path's own length.) */
#define PERIOD_US 3037
#define LOOPS 100
#define PRIO 99

static const unsigned long section_us[] = {250, 500, 1000, 2000};

/* Big (two histograms): not on the stack. */
static struct rtlat_result result;

/* rtlat_cpu=N, an online CPU (the last one by default); -1 when refused. */
static int rtlat_cpu(void)
{
	unsigned long last = num_online_cpus() - 1, cpu = last;

	if (cmdline_get_ulong("rtlat_cpu", &cpu, 0, last) < 0)
		return -1;
	return (int)cpu;
}

static void measure(int cpu, enum rtlat_protect protect, unsigned long l_us)
{
	struct rtlat_config cfg = {
		.cpu = cpu, .period_ns = PERIOD_US * 1000ul,
		.section_ns = l_us * 1000, .protect = protect, .loops = LOOPS,
		.prio = PRIO,
	};

	if (rtlat_run(&cfg, &result)) {
		kbench_note("ERROR: rtlat on CPU %d (%s) could not run", cpu,
			    rtlat_protect_name(protect));
		return;
	}
	rtlat_print(&cfg, &result);
}

KBENCH(rtlat)
{
	int cpu = rtlat_cpu();

	if (cpu < 0) {
		kbench_note("ERROR: rtlat: boot option refused (see above): "
			    "nothing measured");
		return;
	}
	kbench_note("rtlat: SCHED_FIFO %d on CPU %d, period %d us, %d loops "
		    "per run", PRIO, cpu, PERIOD_US, LOOPS);
	measure(cpu, RTLAT_IDLE, 0);
	for (int p = RTLAT_PREEMPT_DISABLE; p <= RTLAT_MIGRATE_DISABLE; p++)
		for (unsigned int i = 0; i < ARRAY_SIZE(section_us); i++)
			measure(cpu, p, section_us[i]);
	for (unsigned int i = 0; i < ARRAY_SIZE(section_us); i++)
		measure(cpu, RTLAT_BH, section_us[i]);
	/* Last: with both vCPUs busy the deterministic mode's turn-taking
	 * does not repeat (docs/realtime.md), and a run after it would
	 * start from a state that differs. */
	measure(cpu, RTLAT_KMALLOC_LOCAL, 0);
	measure(cpu, RTLAT_KMALLOC_ALL, 0);
}
