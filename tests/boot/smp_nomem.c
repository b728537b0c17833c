/*
 * Cross-CPU calls with memory exhausted (kernel/smp.c): they take their
 * requests from per-CPU data and the caller's stack, never from kmalloc,
 * so the TLB flush of a kernel stack drain and every other call still
 * work, and work exactly once per CPU, when kmalloc returns NULL.
 */
#include "asm/pgtable.h"
#include "kmalloc.h"
#include "ktest_util.h"

static void add_one(void *arg)
{
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELEASE);
}

KTEST(smp, calls_need_no_memory)
{
	int self = raw_smp_processor_id(), others = num_online_cpus() - 1;
	/* Static: a call without wait that comes after the poll below gave
	 * up must not write into a stack that has moved on. */
	static int many, many_nowait, single, single_nowait;
	bool exhausted;
	void *blocks;
	int cpu;

	many = many_nowait = single = single_nowait = 0;
	blocks = ktest_kmalloc_exhaust();
	exhausted = kmalloc(16) == 0;
	/* With wait: the cfd requests, then the caller's stack. */
	smp_call_function_many(cpu_online_mask, add_one, &many, true);
	for_each_other_online_cpu(cpu, self)
		smp_call_function_single(cpu, add_one, &single, true);
	/* Without wait, twice in a row: the second reuse of each request
	 * waits for the first to be taken (the csd lock). */
	for (int round = 0; round < 2; round++) {
		smp_call_function_many(cpu_online_mask, add_one, &many_nowait,
				       false);
		for_each_other_online_cpu(cpu, self)
			smp_call_function_single(cpu, add_one, &single_nowait,
						 false);
	}
	flush_tlb_all();
	/* The calls without wait may still be on their way. */
	KEXPECT_TRUE(ktest_poll_until(load_int(&many_nowait) == 2 * others &&
					      load_int(&single_nowait) ==
						      2 * others,
				      KTEST_WAIT_MS, POLL_SPIN));
	ktest_kmalloc_release(blocks);
	KEXPECT_TRUE(exhausted);
	KEXPECT_EQ(many, others);
	KEXPECT_EQ(single, others);
	KEXPECT_EQ(load_int(&many_nowait), 2 * others);
	KEXPECT_EQ(load_int(&single_nowait), 2 * others);
}
