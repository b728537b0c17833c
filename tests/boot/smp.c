/*
 * Tests of the CPU set and cross-CPU calls (kernel/smp.c,
 * arch/x86_64/smpboot.c): every CPU the firmware reported came up with its
 * own APIC id, IPIs reach each CPU and come back, calls run in hard-IRQ
 * context with interrupts off, and asking for a CPU that is not there fails
 * cleanly. Functions run on other CPUs only record what they saw.
 */
#include "asm/acpi.h"
#include "asm/apic.h"
#include "asm/pgtable.h"
#include "asm/processor.h"
#include "asm/realmode.h"
#include "asm/smp.h"
#include "cpuhotplug.h"
#include "ktest_util.h"
#include "page_alloc.h"
#include "panic.h"
#include "stack.h"

static void add_one(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELEASE);
}

/* A waited-for call to every other online CPU runs exactly once there. */
static void expect_round_trip_to_each_cpu(void)
{
	int cpu, self = raw_smp_processor_id();

	for_each_other_online_cpu(cpu, self) {
		int ran = 0;

		KEXPECT_EQ(smp_call_function_single(cpu, add_one, &ran, true), 0);
		KEXPECT_EQ(ran, 1);
	}
}

/* Every CPU the MADT reported is online, numbered 0..n-1, and the online
 * mask, its weight and for_each_online_cpu agree; none beyond exists. */
KTEST(smp, all_reported_cpus_online)
{
	int cpu, visited = 0, last = -1;

	KEXPECT_EQ(num_online_cpus(), madt.nr_cpus);
	KEXPECT_EQ(nr_cpu_ids, madt.nr_cpus);
	KEXPECT_EQ(cpumask_weight(cpu_online_mask), num_online_cpus());
	KEXPECT_TRUE(cpu_online(0));
	for_each_online_cpu(cpu) {
		KEXPECT_GT(cpu, last);
		KEXPECT_EQ(cpu, visited); /* contiguous from 0 */
		KEXPECT_TRUE(cpu_online(cpu));
		last = cpu;
		visited++;
	}
	KEXPECT_EQ(visited, num_online_cpus());
	for (cpu = nr_cpu_ids; cpu < NR_CPUS; cpu++) {
		KEXPECT_FALSE(cpu_online(cpu));
		KEXPECT_FALSE(cpumask_test_cpu(cpu, cpu_possible_mask));
	}
}

struct apic_view {
	uint32_t lapic_id;       /* the local APIC's ID register */
	uint32_t initial_id;     /* CPUID's initial APIC id */
	int cpu;
};

static void read_apic_view(void *arg)
{
	struct apic_view *v = arg;

	v->lapic_id = lapic_id();
	v->initial_id = cpu_initial_apic_id();
	v->cpu = raw_smp_processor_id();
}

static bool madt_lists(uint32_t apic_id)
{
	for (int i = 0; i < madt.nr_cpus; i++)
		if (madt.apic_ids[i] == apic_id)
			return true;
	return false;
}

/* APIC ids are unique, listed in the MADT, and the id the kernel keeps
 * for each CPU is what that CPU's local APIC says about itself. */
KTEST(smp, apic_ids_unique_and_match_hardware)
{
	static struct apic_view view[NR_CPUS];
	int cpu, other;

	for_each_online_cpu(cpu) {
		view[cpu] = (struct apic_view){~0u, ~0u, -1};
		KASSERT_EQ(smp_call_function_single(cpu, read_apic_view,
						    &view[cpu], true), 0);
		KEXPECT_EQ(view[cpu].cpu, cpu);
		KEXPECT_EQ(view[cpu].lapic_id, arch_cpu_hw_id(cpu));
		KEXPECT_EQ(view[cpu].initial_id, arch_cpu_hw_id(cpu));
		KEXPECT_TRUE(madt_lists(arch_cpu_hw_id(cpu)));
		for_each_online_cpu(other)
			if (other < cpu)
				KEXPECT_NE(arch_cpu_hw_id(other),
					   arch_cpu_hw_id(cpu));
	}
	KEXPECT_EQ(lapic_id(), arch_cpu_hw_id(raw_smp_processor_id()));
}

static void read_apic_base(void *arg)
{
	*(uint64_t *)arg = rdmsr(MSR_APIC_BASE);
}

#define APIC_BASE_ENABLE (1ul << 11)
#define APIC_BASE_X2APIC (1ul << 10)

/* One mode for all: x2APIC exactly when the CPU offers it (CPUID.1:ECX
 * bit 21), and every online CPU's APIC is enabled in that mode (the EXTD
 * bit of IA32_APIC_BASE), with an id that mode can address. */
KTEST(smp, apic_mode_same_on_every_cpu)
{
	uint32_t a, b, c, d;
	int cpu;

	cpuid(1, &a, &b, &c, &d);
	KEXPECT_EQ(lapic_x2apic_mode(), !!(c & (1u << 21)));
	KEXPECT_EQ(lapic_max_apic_id(),
		   lapic_x2apic_mode() ? 0xfffffffeu : 0xfeu);
	for_each_online_cpu(cpu) {
		uint64_t base = 0;

		KASSERT_EQ(smp_call_function_single(cpu, read_apic_base, &base,
						    true), 0);
		KEXPECT_TRUE(base & APIC_BASE_ENABLE);
		KEXPECT_EQ(!!(base & APIC_BASE_X2APIC), lapic_x2apic_mode());
		KEXPECT_LE(arch_cpu_hw_id(cpu), lapic_max_apic_id());
	}
}

#define ROUND_TRIPS 100

/* ROUND_TRIPS waited-for calls to each other CPU all complete; the
 * average round trip is logged. */
KTEST_CPUS(smp, ipi_round_trip_every_cpu, 2)
{
	int cpu, self = raw_smp_processor_id();

	for_each_other_online_cpu(cpu, self) {
		int ran = 0;
		uint64_t t0;

		t0 = ktime_get_ns();
		for (int i = 0; i < ROUND_TRIPS; i++)
			KASSERT_EQ(smp_call_function_single(cpu, add_one, &ran,
							    true), 0);
		ktest_log("CPU %d: average IPI round trip %lu ns", cpu,
			  (unsigned long)(ns_since(t0) / ROUND_TRIPS));
		KEXPECT_EQ(ran, ROUND_TRIPS);
	}
}

/* A call to a CPU that is not online (or not a CPU number) returns -1
 * and runs nothing. */
KTEST(smp, call_to_offline_or_invalid_cpu_fails)
{
	static int ran; /* outlives a call that should not have been queued */

	ran = 0;
	if (!cpu_online(NR_CPUS - 1))
		KEXPECT_EQ(smp_call_function_single(NR_CPUS - 1, add_one, &ran,
						    true), -1);
	KEXPECT_EQ(smp_call_function_single(nr_cpu_ids, add_one, &ran, true),
		   -1);
	KEXPECT_EQ(smp_call_function_single(-1, add_one, &ran, true), -1);
	KEXPECT_EQ(smp_call_function_single(NR_CPUS, add_one, &ran, false), -1);
	KEXPECT_EQ(smp_call_function_single(-1, add_one, &ran, false), -1);
	udelay(1000); /* a wrongly queued call would have run by now */
	KEXPECT_EQ(ran, 0);
}

/* A call to this CPU runs here, before the call returns, with interrupts
 * off inside and back on after. */
KTEST(smp, call_to_self_runs_synchronously_irqs_off)
{
	struct call_record r = {.cpu = -1};
	int self = raw_smp_processor_id();

	KASSERT_FALSE(irqs_disabled());
	KEXPECT_EQ(smp_call_function_single(self, record_context, &r, true), 0);
	KEXPECT_EQ(r.ran, 1);
	KEXPECT_EQ(r.cpu, self);
	KEXPECT_TRUE(r.irqs_off);
	KEXPECT_FALSE(irqs_disabled());
}

/* A call that is not waited for still runs, once, on its target. */
KTEST_CPUS(smp, call_without_wait_runs, 2)
{
	static struct call_record rec[NR_CPUS]; /* outlives the calls */
	int cpu, self = raw_smp_processor_id();

	for_each_other_online_cpu(cpu, self) {
		rec[cpu] = (struct call_record){.cpu = -1};
		KEXPECT_EQ(smp_call_function_single(cpu, record_context,
						    &rec[cpu], false), 0);
	}
	for_each_other_online_cpu(cpu, self) {
		if (!ktest_poll_until(load_int(&rec[cpu].ran) >= 1,
				      KTEST_WAIT_MS, POLL_SPIN)) {
			ktest_fail_msg(__FILE__, __LINE__,
				       "call to CPU %d did not run in %lu s",
				       cpu, KTEST_WAIT_MS / 1000);
			continue;
		}
		KEXPECT_EQ(rec[cpu].cpu, cpu);
	}
	udelay(2000);
	for_each_other_online_cpu(cpu, self)
		KEXPECT_EQ(load_int(&rec[cpu].ran), 1);
}

static unsigned long resched_ipis(int cpu)
{
	return __atomic_load_n(per_cpu_ptr(&resched_ipi_count, cpu),
			       __ATOMIC_RELAXED);
}

/* A reschedule IPI to each online CPU (this one too) is taken there and
 * counted in its resched_ipi_count. */
KTEST(smp, resched_ipi_counted_on_target)
{
	int cpu;

	for_each_online_cpu(cpu) {
		unsigned long before = per_cpu(resched_ipi_count, cpu);

		arch_send_ipi(cpu, IPI_RESCHEDULE);
		if (!ktest_poll_until(resched_ipis(cpu) != before,
				      KTEST_WAIT_MS, POLL_SPIN))
			ktest_fail_msg(__FILE__, __LINE__,
				       "CPU %d did not count the reschedule "
				       "IPI within %lu s", cpu,
				       KTEST_WAIT_MS / 1000);
		else
			KEXPECT_GT(per_cpu(resched_ipi_count, cpu), before);
	}
}

#define ABSENT_APIC_ID 0xfe
#define ABSENT_TIMEOUT_US 200000

/* Where a started CPU would go; nobody answers, so nobody gets here. */
__noreturn static void absent_cpu_entry(int cpu)
{
	panic("CPU %d started at an APIC id that is not there", cpu);
}

/* Nobody answers at ABSENT_APIC_ID (with 255 CPUs or more, CPU 254 would). */
static void assert_absent_apic_id_unused(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		KASSERT_NE(arch_cpu_hw_id(cpu), ABSENT_APIC_ID);
}

/* One attempt to start CPU cpu at an APIC id nobody has: it fails within
 * its bound and leaves the online set as it was. Within: counted in this
 * CPU's ticks (the attempt polls with interrupts on), which a busy host
 * can only make fewer; 2000 is the 200 ms bound with room to spare. */
static void expect_absent_boot_fails(int cpu, unsigned online)
{
	unsigned long ticks = this_cpu_read(cpu_ticks); /* bound to CPU 0 */
	uint64_t t0 = ktime_get_ns(), elapsed_ms;
	bool ok = arch_boot_cpu(cpu, ABSENT_APIC_ID, absent_cpu_entry,
				ABSENT_TIMEOUT_US);

	elapsed_ms = ns_since(t0) / NS_PER_MS;
	ticks = this_cpu_read(cpu_ticks) - ticks;
	ktest_log("arch_boot_cpu(%d, %#x) gave up after %lu ms, %lu ticks",
		  cpu, ABSENT_APIC_ID, (unsigned long)elapsed_ms, ticks);
	KEXPECT_FALSE(ok);
	KEXPECT_LT(ticks, 2000);
	KEXPECT_EQ(num_online_cpus(), online);
	KEXPECT_FALSE(cpu_online(cpu));
	KEXPECT_EQ(cpumask_weight(cpu_online_mask), online);
}

/*
 * Starting a CPU that does not exist fails within its bound, gives back
 * every page it took, marks nothing online, and leaves IPIs working; the
 * trampoline's page stays mapped, for a CPU given up on that starts
 * after all (it stops in tr_lost, in that page: smpboot.c). The
 * first attempt may build page tables the kernel keeps for good, as it
 * keeps every page table (on one CPU nothing mapped the trampoline page or
 * the stack region before); the second attempt must be page-neutral, and
 * shows that a failed attempt leaves the CPU number reusable.
 */
KTEST(smp, boot_absent_cpu_fails_cleanly)
{
	int cpu = nr_cpu_ids;
	unsigned online = num_online_cpus();
	size_t free_before;

	KASSERT_LT(cpu, NR_CPUS);
	assert_absent_apic_id_unused();
	/* Freed stacks come back in batches: drain before each count. */
	kstack_drain();
	free_before = page_free_count();
	expect_absent_boot_fails(cpu, online);
	kstack_drain();
	ktest_log("first attempt kept %ld page(s) (page tables)",
		  (long)(free_before - page_free_count()));
	free_before = page_free_count();
	expect_absent_boot_fails(cpu, online);
	kstack_drain();
	KEXPECT_EQ(page_free_count(), free_before);
	KEXPECT_TRUE(arch_trampoline_kept());
	KEXPECT_TRUE(paging_lookup(trampoline_phys) & PTE_P);
	expect_round_trip_to_each_cpu();
}

/* The silent CPU's bound. CPU 1 is restarted a quarter of the way
 * through it (a cpu_down() and cpu_up() took 6 ms with LOCKDEP=1 on 2
 * CPUs, as logged), and the old rule, from the kick only, gives up 1.5 s
 * after the restart, which the test tells from 2 s. */
#define ANSWER_BOUND_NS (2000 * NS_PER_MS)
/* How far the give-up may come after the bound, in ticks of this CPU
 * (which a busy host can only make fewer): only a runaway bound is
 * caught by it. */
#define ANSWER_SLACK_TICKS 5000
/* Kicks of the silent CPU, each until one whose polls before the restart
 * all came inside the bound (a host that holds this vCPU back for the
 * whole bound makes a poll give it up rightly, and spoils the try). */
#define SILENT_TRIES 5

/* Poll an absent CPU until the bound gives it up; the time it did, or 0
 * if it still had not at a poll begun some bounds after its kick. */
static uint64_t poll_until_given_up(int cpu, uint64_t t_kick)
{
	int alive;

	for (;;) {
		bool late = ns_since(t_kick) > 5 * ANSWER_BOUND_NS;

		alive = arch_poll_cpu_alive(cpu, ANSWER_BOUND_NS / 1000);
		if (alive)
			break;
		if (late)
			return 0; /* still kicked: the run ends with the kernel */
		msleep(1);
	}
	KEXPECT_EQ(alive, -1);
	return ktime_get_ns();
}

/* Kick the silent CPU and poll it for a quarter of its bound: true if it
 * was still waited for at every poll. A poll that gave it up is a failure
 * if it began inside the bound, and a spoiled try if the host held this
 * vCPU back past it (then its state is freed and it may be kicked
 * again); *t_kick is when it was kicked. */
static bool kick_silent_cpu(int absent, uint64_t *t_kick, bool *spoiled)
{
	int kicked = absent;

	*spoiled = false;
	arch_set_cpu_hw_id(absent, ABSENT_APIC_ID);
	*t_kick = ktime_get_ns();
	arch_kick_cpus(&kicked, 1, absent_cpu_entry);
	KASSERT_EQ(kicked, absent);
	while (ns_since(*t_kick) < ANSWER_BOUND_NS / 4) {
		unsigned long asked_ms = ns_since(*t_kick) / NS_PER_MS;
		int alive = arch_poll_cpu_alive(absent, ANSWER_BOUND_NS / 1000);

		if (alive) {
			*spoiled = alive < 0 &&
				   ns_since(*t_kick) >= ANSWER_BOUND_NS;
			if (!*spoiled)
				ktest_fail_msg(__FILE__, __LINE__,
					       "silent CPU %s at a poll %lu "
					       "ms after its kick (bound %lu)",
					       alive > 0 ? "answered"
							 : "given up",
					       asked_ms,
					       ANSWER_BOUND_NS / NS_PER_MS);
			return false;
		}
		msleep(1);
	}
	return true;
}

/*
 * The bound on a silent CPU runs from its kick or from the last CPU to
 * answer, whichever is later: hundreds of CPUs kicked together on a busy
 * host (tests/host/x2apic.sh) may take longer than the bound to answer
 * all, but not with nobody answering that long. Here CPU 1, taken offline
 * and started again a quarter of the way through the silent CPU's bound,
 * answers:
 * the silent one is given up a whole bound after that, not at the bound
 * from its own kick.
 */
KTEST_CPUS(smp, absent_cpu_bound_runs_from_last_answer, 2)
{
	int absent = nr_cpu_ids, tries = 0;
	uint64_t t_kick, t_restart, t_up, t_gone;
	unsigned long ticks_up;
	bool kicked = false, spoiled = true;

	KASSERT_LT(absent, NR_CPUS);
	assert_absent_apic_id_unused();
	while (spoiled && tries++ < SILENT_TRIES)
		kicked = kick_silent_cpu(absent, &t_kick, &spoiled);
	if (spoiled)
		ktest_fail_msg(__FILE__, __LINE__, "the host held this vCPU "
			       "past the whole bound in each of %d tries",
			       SILENT_TRIES);
	if (!kicked)
		return;
	t_restart = ktime_get_ns();
	KEXPECT_EQ(cpu_down(1), 0);
	KEXPECT_EQ(cpu_up(1), 0);
	t_up = ktime_get_ns();
	ticks_up = this_cpu_read(cpu_ticks); /* the test task is on CPU 0 */
	ktest_log("CPU 1 back online %lu ms after the silent CPU's kick "
		  "(try %d)", (unsigned long)((t_up - t_kick) / NS_PER_MS),
		  tries);
	if (t_up - t_kick >= ANSWER_BOUND_NS)
		ktest_log("(the restart outlasted the bound: the old rule, "
			  "from the kick only, would pass too)");
	t_gone = poll_until_given_up(absent, t_kick);
	KASSERT_NE(t_gone, 0);
	ticks_up = this_cpu_read(cpu_ticks) - ticks_up;
	ktest_log("silent CPU given up %lu ms after its kick, %lu ms after "
		  "CPU 1 was restarted, %lu ticks after it was back",
		  (unsigned long)((t_gone - t_kick) / NS_PER_MS),
		  (unsigned long)((t_gone - t_restart) / NS_PER_MS), ticks_up);
	/* CPU 1 answered after t_restart, before t_up: a bound from then. */
	KEXPECT_GE(t_gone - t_restart, ANSWER_BOUND_NS);
	KEXPECT_LT(ticks_up, ANSWER_BOUND_NS * HZ / (1000 * NS_PER_MS) +
				     ANSWER_SLACK_TICKS);
	KEXPECT_TRUE(cpu_online(1));
	KEXPECT_FALSE(cpu_online(absent));
	expect_round_trip_to_each_cpu();
}

/* record_context() into the running CPU's slot of the array arg. */
static void record_context_in_slot(void *arg)
{
	record_context((struct call_record *)arg + raw_smp_processor_id());
}

/* Functions sent to other CPUs, by _single and by _many, run in hard-IRQ
 * context with interrupts off, on the CPU they were sent to. */
KTEST_CPUS(smp, calls_run_in_hardirq_irqs_off, 2)
{
	static struct call_record rec[NR_CPUS];
	int cpu, self = raw_smp_processor_id();

	for_each_other_online_cpu(cpu, self) {
		struct call_record r = {.cpu = -1};

		KASSERT_EQ(smp_call_function_single(cpu, record_context, &r,
						    true), 0);
		expect_hardirq_record(&r, cpu);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		rec[cpu] = (struct call_record){.cpu = -1};
	smp_call_function_many(cpu_online_mask, record_context_in_slot, rec,
			       true);
	for_each_other_online_cpu(cpu, self)
		expect_hardirq_record(&rec[cpu], cpu);
	KEXPECT_EQ(rec[self].ran, 0);
	KEXPECT_FALSE(in_hardirq()); /* the caller is in task context */
}
