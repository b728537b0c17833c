/*
 * rseqcount MODE SLOT: exact per-CPU counters from many processes with a
 * restartable sequence (docs/usermode.md), until the kernel's test raises
 * stop in the shared page (uapi.h, struct rseq_counter_page).
 *
 * Each round reads this CPU's number from the rseq area, loads
 * counter[cpu], spins a little (widening the window a preemption can hit),
 * and stores the incremented value: the store is the commit. MODE rseq
 * publishes the critical-section descriptor first, so a preemption or
 * migration inside the window restarts the round at the abort label (and
 * no update is lost); MODE plain runs the same instructions unprotected,
 * the control that loses updates. SLOT: where to report own counts.
 */
#include "ulib.h"

#define WINDOW_SPIN 200

static struct rseq rs;

/*
 * One round; false when it was aborted. The descriptor lives in .data
 * next to the code it describes (as Linux's rseq selftests do): start_ip
 * = 1, post_commit_offset = 2 - 1, abort_ip = 4. publish: store its
 * address in rs.rseq_cs (rseq mode) or 0 (plain mode).
 */
static __attribute__((noinline)) bool percpu_inc(uint64_t *counter,
						 bool publish)
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
		"lea (%[counter], %%rax, 8), %%rdx\n\t"
		"mov (%%rdx), %%rcx\n\t"
		"inc %%rcx\n\t"
		"mov %[spin], %%eax\n"
		"3:\n\t"
		"dec %%eax\n\t"
		"jnz 3b\n\t"
		"mov %%rcx, (%%rdx)\n" /* commit */
		"2:\n\t"
		"mov $1, %[ok]\n\t"
		"jmp 7f\n"
		"4:\n\t"               /* abort: the kernel sent us here */
		"mov $0, %[ok]\n"
		"7:\n\t"
		: [ok] "=r"(ok), [rseq_cs] "=m"(rs.rseq_cs)
		: [cpu_id] "m"(rs.cpu_id), [counter] "r"(counter),
		  [spin] "i"(WINDOW_SPIN), [publish] "r"(publish)
		: "rax", "rcx", "rdx", "memory", "cc");
	return ok;
}

int main(int argc, char **argv)
{
	struct rseq_counter_page *pg = shm_map(RSEQ_COUNTER_KEY);
	bool publish = argc > 1 && !strcmp(argv[1], "rseq");
	unsigned slot = argc > 2 ? simple_strtoul(argv[2], 0, 10) : 0;
	uint64_t done = 0, aborts = 0;

	if ((long)pg < 0 || slot >= RSEQ_COUNTER_SLOTS)
		return 2;
	if (rseq(&rs, sizeof(rs), 0))
		return 3;
	while (!pg->stop) {
		if (percpu_inc(pg->counter, publish))
			done++;
		else
			aborts++;
	}
	pg->done[slot] = done;
	pg->aborts[slot] = aborts;
	return 0;
}
