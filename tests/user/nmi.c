/*
 * NMIs at any time (docs/usermode.md): system calls at a high rate from
 * more processes than CPUs, each checking its own registers, must all
 * complete with every CPU's GS bases right afterwards. On its own this is
 * a plain stress test; tests/host/nmi.sh runs it while the QEMU monitor
 * injects NMIs at every CPU, so that they land in ring 3, in system
 * calls and in the swapgs windows, and reads the counts it logs.
 */
#include "ktest_util.h"
#include "process.h"
#include "smp.h"
#include "string.h"
#include "user/user_util.h"
#include "vsprintf.h"

#define STORM_ROUNDS "20000"
#define STORM_MAX 16

KTEST(nmi, syscall_storm_completes)
{
	struct process_output *out = process_output_alloc();
	char *argv[] = {"usertest", "storm", STORM_ROUNDS};
	struct process *p[STORM_MAX];
	int n = 2 * num_online_cpus(), started = 0, cpu;
	unsigned long nmis = 0, in_user = 0;

	KASSERT_TRUE(out);
	if (n > STORM_MAX)
		n = STORM_MAX;
	for (; started < n; started++)
		if (process_spawn("usertest", 3, argv, out, &p[started]))
			break;
	KEXPECT_EQ(started, n);
	for (int i = 0; i < started; i++)
		KEXPECT_EQ(process_wait(p[i]), 0);
	KEXPECT_EQ(gs_bases_wrong(), 0);
	for_each_online_cpu(cpu) {
		nmis += nmi_unexpected_count(cpu, false);
		in_user += nmi_unexpected_count(cpu, true);
	}
	ktest_log("%d storms of " STORM_ROUNDS " rounds; NMIs since boot: %lu "
		  "unexpected, %lu of them in user mode", started, nmis,
		  in_user);
	if (strstr(out->buf, "failed"))
		ktest_log("%s", out->buf);
	process_output_put(out);
}
