/*
 * The process's restartable-sequence area and the one sequence the
 * programs use: a per-CPU counter increment (docs/usermode.md).
 */
#include "../ulib.h"

struct rseq rseq_area;

int rseq_register(void)
{
	return rseq(&rseq_area, sizeof(rseq_area), 0, RSEQ_SIG);
}

/*
 * Load the counter at counter + (cpu << shift) bytes, spin (spin >= 1
 * rounds: the window a preemption can hit), store the incremented value:
 * the store is the commit. The
 * descriptor lives in .data next to the code it describes, as in Linux's
 * rseq selftests: start_ip = 1, post_commit_offset = 2 - 1, abort_ip = 4,
 * preceded by the signature.
 */
bool rseq_percpu_inc(uint64_t *counter, unsigned shift, bool publish,
		     unsigned spin)
{
	bool ok;

	__asm__ volatile(
		".pushsection .data\n\t"
		".balign 32\n"
		"5:\n\t"
		".long 0, 0\n\t"
		".quad 1f, 2f - 1f, 4f\n\t"
		".popsection\n\t"
		"xor %%eax, %%eax\n\t"
		"test %[publish], %[publish]\n\t"
		"jz 6f\n\t"
		"lea 5b(%%rip), %%rax\n"
		"6:\n\t"
		"mov %%rax, %[rseq_cs]\n"
		"1:\n\t"
		"mov %[cpu_id], %%eax\n\t"
		"mov %[shift], %%ecx\n\t"
		"shl %%cl, %%rax\n\t"
		"lea (%[counter], %%rax), %%rdx\n\t"
		"mov (%%rdx), %%rcx\n\t"
		"inc %%rcx\n\t"
		"mov %[spin], %%eax\n"
		"3:\n\t"
		"dec %%eax\n\t"
		"jnz 3b\n\t"
		"mov %%rcx, (%%rdx)\n" /* commit */
		"2:\n\t"
		"mov $1, %[ok]\n\t"
		"jmp 7f\n\t"
		RSEQ_SIG_BYTES          /* the kernel checks it is there */
		"4:\n\t"               /* abort: the kernel sent us here */
		"mov $0, %[ok]\n"
		"7:\n\t"
		: [ok] "=r"(ok), [rseq_cs] "=m"(rseq_area.rseq_cs)
		: [cpu_id] "m"(rseq_area.cpu_id), [counter] "r"(counter),
		  [spin] "r"(spin ? spin : 1), [publish] "r"(publish),
		  [shift] "r"(shift)
		: "rax", "rcx", "rdx", "memory", "cc");
	return ok;
}
