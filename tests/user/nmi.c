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
/* Storms while NMIs arrive and none has landed in ring 3 yet: where an
 * NMI lands depends on how the host runs the vCPUs, so the test waits
 * for the event, not for a time (alone, with no NMIs, it runs one). */
#define STORM_REPEATS 20

/* One storm: 2 processes per CPU; false if one could not start. */
static bool storm(struct process_output *out)
{
	char *argv[] = {"usertest", "storm", STORM_ROUNDS};
	struct process *p[STORM_MAX];
	int n = 2 * num_online_cpus(), started = 0;

	if (n > STORM_MAX)
		n = STORM_MAX;
	for (; started < n; started++)
		if (process_spawn("usertest", 3, argv, out, &p[started]))
			break;
	KEXPECT_EQ(started, n);
	for (int i = 0; i < started; i++)
		KEXPECT_EQ(process_wait(p[i]), 0);
	return started == n;
}

KTEST(nmi, syscall_storm_completes)
{
	struct process_output *out = process_output_alloc();
	unsigned long nmis = 0, in_user = 0;
	int storms = 0, cpu;

	KASSERT_TRUE(out);
	while (storms < STORM_REPEATS && storm(out)) {
		storms++;
		KEXPECT_EQ(gs_bases_wrong(), 0);
		nmis = in_user = 0;
		for_each_online_cpu(cpu) {
			nmis += nmi_unexpected_count(cpu, false);
			in_user += nmi_unexpected_count(cpu, true);
		}
		if (!nmis || in_user)
			break;
	}
	ktest_log("%d storms of " STORM_ROUNDS " rounds per process; NMIs "
		  "since boot: %lu unexpected, %lu of them in user mode",
		  storms, nmis, in_user);
	if (strstr(out->buf, "failed"))
		ktest_log("%s", out->buf);
	process_output_put(out);
}
