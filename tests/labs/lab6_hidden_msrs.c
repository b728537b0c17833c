/*
 * Lab 6's hidden check (docs/labs/lab6.md): the syscall MSRs on every
 * CPU, not only the one the user tests happened to run on. EFER.SCE on;
 * LSTAR at entry_syscall; STAR's kernel selector the CS the kernel runs
 * on, and its sysret base such that sysretq loads the user CS and SS that
 * a user frame carries (base + 16 and base + 8, RPL 3); FMASK clearing at
 * least IF, TF, DF and AC, each a way for ring 3 to reach into the
 * kernel's first instructions (docs/usermode.md).
 */
#include <stdint.h>

#include "asm/processor.h"
#include "asm/syscall.h"
#include "ktest.h"
#include "percpu.h"
#include "smp.h"

#define MSR_STAR  0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_FMASK 0xc0000084
#define EFER_SCE  (1ul << 0)
#define RFLAGS_TF (1ul << 8)
#define RFLAGS_DF (1ul << 10)
#define RFLAGS_AC (1ul << 18)

extern char entry_syscall[];

struct msr_snapshot {
	uint64_t efer, star, lstar, fmask;
	uint16_t cs;
};

static struct msr_snapshot snap[NR_CPUS];

static void read_msrs(void *arg)
{
	struct msr_snapshot *s = &snap[raw_smp_processor_id()];
	uint16_t cs;

	asm volatile("mov %%cs, %0" : "=r"(cs));
	*s = (struct msr_snapshot){.efer = rdmsr(MSR_EFER),
				   .star = rdmsr(MSR_STAR),
				   .lstar = rdmsr(MSR_LSTAR),
				   .fmask = rdmsr(MSR_FMASK), .cs = cs};
}

KTEST(lab6_hidden, syscall_msrs_on_every_cpu)
{
	const uint64_t must_clear = RFLAGS_IF | RFLAGS_TF | RFLAGS_DF |
				    RFLAGS_AC;
	struct trap_frame user;
	int cpu;

	arch_user_frame_init(&user, 0x400000, 0x7ffffff000, 0, 0);
	for_each_online_cpu(cpu) {
		const struct msr_snapshot *s = &snap[cpu];
		uint64_t base;

		KASSERT_EQ(smp_call_function_single(cpu, read_msrs, 0, true), 0);
		base = s->star >> 48;
		ktest_log("CPU %d: EFER %#lx STAR %#lx LSTAR %#lx FMASK %#lx",
			  cpu, (unsigned long)s->efer, (unsigned long)s->star,
			  (unsigned long)s->lstar, (unsigned long)s->fmask);
		KEXPECT_TRUE(s->efer & EFER_SCE);
		KEXPECT_EQ(s->lstar, (uint64_t)entry_syscall);
		KEXPECT_EQ((s->star >> 32) & 0xffff, s->cs);
		KEXPECT_EQ((base + 16) | 3, user.cs);
		KEXPECT_EQ((base + 8) | 3, user.ss);
		KEXPECT_EQ(s->fmask & must_clear, must_clear);
	}
}
