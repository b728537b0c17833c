/*
 * The local APIC, in one of two modes chosen once at boot for every CPU:
 *
 *   xAPIC   4 KiB of registers at the physical address the MADT gives,
 *           each 32 bits on a 16-byte stride; 8-bit APIC ids; the ICR is
 *           two 32-bit writes (destination first, the write of the low
 *           half sends).
 *   x2APIC  the same registers as MSRs, 0x800 + offset / 16; 32-bit APIC
 *           ids; the ICR is one 64-bit MSR with the destination in the
 *           high half, so an IPI is a single write.
 *
 * x2APIC is used when CPUID.1:ECX bit 21 says the CPU has it (QEMU's TCG
 * since 8.x, KVM, real hardware); it is the only way to reach APIC ids
 * above 254, so more than 255 CPUs need it. Everything above the register
 * accessors is the same in both modes.
 */
#include "asm/apic.h"
#include "asm/processor.h"
#include "asm/irqflags.h"
#include "asm/pgtable.h"
#include "panic.h"
#include "printk.h"
#include "asm/timer.h"
#include "trap.h"

enum {
	APIC_ID = 0x20,
	APIC_TPR = 0x80,
	APIC_EOI = 0xb0,
	APIC_SVR = 0xf0,
	APIC_ESR = 0x280,
	APIC_ICR_LO = 0x300,
	APIC_ICR_HI = 0x310,
	APIC_LVT_TIMER = 0x320,
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
	APIC_LVT_ERROR = 0x370,
	APIC_TIMER_INIT = 0x380,
	APIC_TIMER_CUR = 0x390,
	APIC_TIMER_DIV = 0x3e0,
};

#define APIC_BASE_ENABLE (1u << 11)
#define APIC_BASE_X2APIC (1u << 10)   /* EXTD: registers as MSRs */
#define CPUID_1_ECX_X2APIC (1u << 21)
#define MSR_X2APIC_BASE 0x800
#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_DELIVERY_NMI (4u << 8)
#define ICR_PENDING (1u << 12)
#define ICR_NMI (4u << 8)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)
#define ICR_SELF (1u << 18)
#define TIMER_DIV_16 0x3

/* xAPIC mode only. volatile: MMIO registers, where every read and write
 * is an access to the device, made exactly as written. */
static volatile uint32_t *lapic_regs;
static bool x2apic_mode;              /* chosen in lapic_init(), then fixed */
static uint64_t timer_hz;   /* timer input clock after the divider */
static uint64_t count_per_ns; /* timer counts per ns, << 32 */

static uint32_t apic_read(unsigned reg)
{
	if (x2apic_mode)
		return (uint32_t)rdmsr(MSR_X2APIC_BASE + reg / 16);
	return lapic_regs[reg / 4];
}

static void apic_write(unsigned reg, uint32_t v)
{
	if (x2apic_mode)
		wrmsr(MSR_X2APIC_BASE + reg / 16, v);
	else
		lapic_regs[reg / 4] = v;
}

bool lapic_x2apic_mode(void)
{
	return x2apic_mode;
}

uint32_t lapic_max_apic_id(void)
{
	/* xAPIC: 8 bits, and 0xff is the broadcast destination. */
	return x2apic_mode ? 0xfffffffeu : 0xfeu;
}

uint32_t lapic_id(void)
{
	/* x2APIC: the whole register is the id; xAPIC: its top byte. */
	if (x2apic_mode)
		return apic_read(APIC_ID);
	return apic_read(APIC_ID) >> 24;
}

void lapic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

static void lapic_error_interrupt(struct trap_frame *f)
{
	uint32_t esr;

	apic_write(APIC_ESR, 0); /* latch the error bits, then read them */
	esr = apic_read(APIC_ESR);
	printk("APIC error on APIC id %u: ESR 0x%x\n", lapic_id(), esr);
}

static bool cpu_has_x2apic(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return c & CPUID_1_ECX_X2APIC;
}

/*
 * Turn this CPU's APIC on in the kernel's mode. The SDM allows only
 * disabled -> xAPIC -> x2APIC (going straight from disabled to x2APIC
 * faults), so EN is set first, then EXTD. A CPU restarted by INIT (CPU
 * hotplug) may still be in x2APIC mode: writing the same bits again is a
 * no-op. Back from x2APIC to xAPIC would need a disable in between; the
 * kernel never goes that way, as the mode is chosen once.
 */
static void lapic_enable(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	if (!(base & APIC_BASE_ENABLE))
		wrmsr(MSR_APIC_BASE, base |= APIC_BASE_ENABLE);
	if (x2apic_mode && !(base & APIC_BASE_X2APIC))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_X2APIC);
}

void lapic_init(uint64_t phys)
{
	x2apic_mode = cpu_has_x2apic();
	if (!x2apic_mode)
		lapic_regs = ioremap(phys, 4096);
	lapic_enable();
	trap_set_handler(ERROR_APIC_VECTOR, lapic_error_interrupt);
	printk("APIC: %s mode, %u-bit APIC ids%s\n",
	       x2apic_mode ? "x2APIC" : "xAPIC", x2apic_mode ? 32 : 8,
	       x2apic_mode ? ", registers as MSRs" : "");
}

void lapic_setup_cpu(void)
{
	lapic_enable();
	apic_write(APIC_SVR, SVR_ENABLE | SPURIOUS_APIC_VECTOR);
	apic_write(APIC_TPR, 0);                    /* accept every vector */
	apic_write(APIC_LVT_LINT0, LVT_MASKED);     /* the 8259 is unused */
	apic_write(APIC_LVT_LINT1, LVT_DELIVERY_NMI);
	apic_write(APIC_LVT_ERROR, ERROR_APIC_VECTOR);
	apic_write(APIC_ESR, 0);                    /* clear stale errors */
	apic_write(APIC_ESR, 0);
	lapic_eoi();
}

/*
 * One IPI in x2APIC mode: a single write of the 64-bit ICR, and no
 * delivery-status bit to wait for (x2APIC has none). A WRMSR to the
 * x2APIC registers is not serializing (SDM 10.12.3), so the stores the
 * receiver will look for (a queued call, a wake-up) could still sit in
 * this CPU's store buffer when the IPI arrives: the fences drain it
 * first, as Linux's weak_wrmsr_fence() does.
 */
static void x2apic_icr(uint32_t dest, uint32_t lo)
{
	__asm__ volatile("mfence; lfence" ::: "memory");
	wrmsr(MSR_X2APIC_BASE + APIC_ICR_LO / 16, (uint64_t)dest << 32 | lo);
}

/* One IPI in xAPIC mode: the two ICR writes must not be split by an
 * interrupt handler that sends its own IPI, hence interrupts off around
 * them. The MMIO writes are uncached, so ordered after earlier stores. */
static void apic_icr(uint32_t dest, uint32_t lo)
{
	unsigned long flags;

	if (x2apic_mode) {
		x2apic_icr(dest, lo);
		return;
	}
	flags = arch_local_irq_save();

	while (apic_read(APIC_ICR_LO) & ICR_PENDING)
		cpu_relax();
	apic_write(APIC_ICR_HI, dest << 24);
	apic_write(APIC_ICR_LO, lo);
	arch_local_irq_restore(flags);
}

void apic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	apic_icr(apic_id, vector);
}

void apic_send_self_ipi(uint8_t vector)
{
	apic_icr(0, ICR_SELF | vector);
}

void apic_send_nmi(uint32_t apic_id)
{
	apic_icr(apic_id, ICR_NMI);
}

void apic_send_init(uint32_t apic_id)
{
	apic_icr(apic_id, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
}

void apic_send_sipi(uint32_t apic_id, uint8_t page)
{
	apic_icr(apic_id, ICR_STARTUP | page);
}

/* Written once by arch_timer_init(), before the vector is routed. */
static void (*timer_handler)(void);

static void lapic_timer_interrupt(struct trap_frame *f)
{
	timer_handler();
}

/*
 * One calibration window: the timer's counts per second of TSC time, over
 * about 10 ms. Both TSC reads fall inside the two timer reads, so the TSC
 * interval is contained in the timer's: when the host stops this vCPU
 * thread (the timer runs on the host's clock meanwhile) the window can
 * only come out high, never low, and the smallest of several is the best.
 */
#define TIMER_WINDOWS 5

static uint64_t timer_window_hz(void)
{
	uint32_t c0, c1;
	uint64_t t0, t1;

	apic_write(APIC_TIMER_INIT, 0xffffffff);
	c0 = apic_read(APIC_TIMER_CUR);
	t0 = rdtsc();
	arch_udelay(10000);
	t1 = rdtsc();
	c1 = apic_read(APIC_TIMER_CUR);
	/* counts / (kcycles / kHz): no overflow below 2^32 counts and 4 THz */
	return (uint64_t)(c0 - c1) * tsc_khz / ((t1 - t0) / 1000 + 1);
}

void arch_timer_init(void (*handler)(void))
{
	timer_hz = ~0ull;
	apic_write(APIC_TIMER_DIV, TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	for (int i = 0; i < TIMER_WINDOWS; i++) {
		uint64_t hz = timer_window_hz();

		if (hz < timer_hz)
			timer_hz = hz;
	}
	apic_write(APIC_TIMER_INIT, 0);
	if (timer_hz < 1000)
		panic("LAPIC timer does not count (%lu Hz)", timer_hz);
	count_per_ns = (timer_hz << 32) / 1000000000u;
	timer_handler = handler;
	trap_set_handler(LOCAL_TIMER_VECTOR, lapic_timer_interrupt);
}

void arch_timer_oneshot(uint64_t ns)
{
	uint64_t count = (uint64_t)(((unsigned __int128)ns * count_per_ns) >> 32);

	if (count == 0)
		count = 1;
	if (count > 0xffffffffu)
		count = 0xffffffffu;
	apic_write(APIC_TIMER_DIV, TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, LOCAL_TIMER_VECTOR); /* one-shot */
	apic_write(APIC_TIMER_INIT, (uint32_t)count);
}

void arch_timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0); /* a count of 0 stops it */
}

uint64_t arch_timer_hz(void)
{
	return timer_hz;
}

uint32_t arch_timer_count(void)
{
	return apic_read(APIC_TIMER_CUR);
}
