/*
 * The CPU's side of user mode (see docs/usermode.md): the MSRs that make
 * `syscall` enter entry_syscall on the kernel's code segment, SMEP and
 * SMAP so that the kernel never runs or touches user pages by accident,
 * UMIP so that user code cannot read the descriptor-table addresses,
 * the FPU and SSE for user code (fpu.c),
 * the CPU number for user space's getcpu without a system call, and the
 * per-CPU kernel stack that every entry from ring 3 switches to.
 */
#include "asm/syscall.h"
#include "asm/fpu.h"
#include "asm/processor.h"
#include "gdt.h"
#include "percpu.h"
#include "printk.h"

#define MSR_STAR     0xc0000081
#define MSR_LSTAR    0xc0000082
#define MSR_FMASK    0xc0000084
#define MSR_TSC_AUX  0xc0000103
#define EFER_SCE     (1u << 0)
#define CR4_SMEP     (1ul << 20)
#define CR4_SMAP     (1ul << 21)

/* RFLAGS bits syscall clears on entry: IF (interrupts stay off until the
 * kernel stack is ours), TF (no single-step trap on kernel code), DF (the
 * C ABI wants it clear), AC (set, it would switch SMAP off in the kernel),
 * NT and IOPL (user values have no business in the kernel). */
#define SYSCALL_RFLAGS_MASK 0x47700ul

extern char entry_syscall[];

/* Read by entry_syscall through GS (entry.asm): where this CPU's current
 * user task's kernel stack ends, and a slot for the user RSP while the
 * entry has no stack. */
DEFINE_PER_CPU(uint64_t, cpu_kstack_top);
DEFINE_PER_CPU(uint64_t, cpu_user_rsp);
static DEFINE_PER_CPU(struct tss *, cpu_tss);

/* Nonzero when CR4.SMAP is on: the user copies bracket their user
 * accesses with stac/clac only then (they are #UD without SMAP). */
uint8_t uaccess_smap;
static bool has_smep, has_umip, has_rdpid, has_rdtscp;

static void detect_features(void)
{
	uint32_t max, a, b, c, d;

	cpuid(0, &max, &b, &c, &d);
	if (max >= 7) {
		cpuid_count(7, 0, &a, &b, &c, &d);
		has_smep = (b >> 7) & 1;
		uaccess_smap = (b >> 20) & 1;
		has_umip = (c >> 2) & 1;
		has_rdpid = (c >> 22) & 1;
	}
	cpuid(0x80000000, &max, &b, &c, &d);
	if (max >= 0x80000001) {
		cpuid(0x80000001, &a, &b, &c, &d);
		has_rdtscp = (d >> 27) & 1;
	}
}

void usermode_cpu_init(struct tss *tss, int cpu)
{
	uint64_t cr4 = read_cr4();

	if (cpu == 0)
		detect_features();
	raw_cpu_write(cpu_tss, tss);
	/* LAB6 BEGIN */
	wrmsr(MSR_STAR, (uint64_t)STAR_SYSRET_BASE << 48 |
				(uint64_t)KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (uint64_t)entry_syscall);
	wrmsr(MSR_FMASK, SYSCALL_RFLAGS_MASK);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* LAB6 END */
	if (has_rdpid || has_rdtscp)
		wrmsr(MSR_TSC_AUX, cpu);
	if (has_smep)
		cr4 |= CR4_SMEP;
	if (uaccess_smap)
		cr4 |= CR4_SMAP;
	/* sgdt, sidt, sldt, smsw and str in ring 3 #GP: they would show
	 * user code where the kernel keeps its GDT, IDT and TSS. */
	if (has_umip)
		cr4 |= CR4_UMIP;
	write_cr4(cr4);
	fpu_init_cpu();
}

void usermode_print_features(void)
{
	printk("usermode: SMEP %s, SMAP %s, UMIP %s, NX on, user getcpu by "
	       "%s\n", has_smep ? "on" : "absent",
	       uaccess_smap ? "on" : "absent", has_umip ? "on" : "absent",
	       has_rdpid ? "rdpid" : "lsl");
}

/* Interrupts are off (the context switch): the two must agree. */
void arch_set_kernel_stack(uintptr_t top)
{
	raw_cpu_write(cpu_kstack_top, top);
	raw_cpu_read(cpu_tss)->rsp[0] = top;
}

void arch_user_frame_init(struct trap_frame *f, uintptr_t ip, uintptr_t sp,
			  uint64_t arg0, uint64_t arg1)
{
	*f = (struct trap_frame){
		.rip = ip, .cs = USER_CS, .rflags = RFLAGS_IF | 2,
		.rsp = sp, .ss = USER_DS, .rdi = arg0, .rsi = arg1,
	};
}
