/*
 * Single x86 instructions the portable kernel needs, as static inline
 * functions: port I/O, MSRs, control registers, CPUID, pause and halt.
 */
#ifndef _ASM_X86_PROCESSOR_H
#define _ASM_X86_PROCESSOR_H

#include <stdint.h>

#define MSR_EFER           0xc0000080
#define MSR_FS_BASE        0xc0000100
#define MSR_GS_BASE        0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102
#define MSR_APIC_BASE      0x1b
#define MSR_TSC_DEADLINE   0x6e0

#define EFER_LME (1u << 8)
#define EFER_LMA (1u << 10)
#define EFER_NXE (1u << 11)

#define CR0_PE (1ul << 0)
#define CR0_MP (1ul << 1)   /* WAIT/FWAIT honour TS */
#define CR0_EM (1ul << 2)   /* no x87: every FPU instruction #NM */
#define CR0_TS (1ul << 3)   /* task switched: the next FPU use #NM */
#define CR0_NE (1ul << 5)   /* x87 errors as #MF, not the legacy IRQ 13 */
#define CR0_WP (1ul << 16)
#define CR0_PG (1ul << 31)
#define CR4_PAE (1ul << 5)
#define CR4_PGE (1ul << 7)
#define CR4_OSFXSR (1ul << 9)       /* FXSAVE/FXRSTOR and SSE enabled */
#define CR4_OSXMMEXCPT (1ul << 10)  /* unmasked SIMD errors as #XM */
#define CR4_UMIP (1ul << 11)        /* sgdt/sidt/sldt/smsw/str: ring 0 only */

#define RFLAGS_IF (1ul << 9)

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr"
			 :
			 : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			 : "memory");
}

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t *a,
			       uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c,
			 uint32_t *d)
{
	cpuid_count(leaf, 0, a, b, c, d);
}

/* The APIC id the CPU was given at reset: identifies the running CPU before
 * (and without) any per-CPU data. CPUID leaf 0xB has all 32 bits of it
 * (the x2APIC id) where the CPU has that leaf (EBX non-zero); leaf 1 has
 * only the low 8, which is the whole id on a CPU without x2APIC. */
static inline uint32_t cpu_initial_apic_id(void)
{
	uint32_t a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	if (a >= 0xb) {
		cpuid_count(0xb, 0, &a, &b, &c, &d);
		if (b)
			return d;
	}
	cpuid(1, &a, &b, &c, &d);
	return b >> 24;
}

#define DEFINE_READ_CR(n)                                                   \
	static inline uint64_t read_cr##n(void)                             \
	{                                                                   \
		uint64_t v;                                                 \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));           \
		return v;                                                   \
	}
DEFINE_READ_CR(0)
DEFINE_READ_CR(2)
DEFINE_READ_CR(3)
DEFINE_READ_CR(4)
#undef DEFINE_READ_CR

static inline void write_cr0(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline void write_cr3(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline uint16_t read_cs(void)
{
	uint16_t v;
	__asm__ volatile("mov %%cs, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

/* Every busy-wait loop calls this: under TCG a spinning vCPU without pause
 * can starve the vCPU it waits for. */
static inline void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

#endif
