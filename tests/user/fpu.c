/*
 * Per-process FPU state (arch/x86_64/fpu.c, docs/usermode.md): two
 * processes on one CPU use x87, MMX and SSE at once, each with its own
 * registers, control words and rounding modes, giving the CPU to each
 * other hundreds of times, and each checks its own results bit for bit
 * (user/fpu.c); every process starts with the clean state whatever ran
 * before it.
 */
#include "ktest_util.h"
#include "process.h"
#include "shm.h"
#include "string.h"
#include "vsprintf.h"

#define FPU_ROUNDS "20"

/* Start "fpu SLOT CPU ROUNDS" with its output in *out (allocated). */
static int spawn_fpu(const char *slot, const char *cpu,
		     struct process_output **out, struct process **p)
{
	char *argv[] = {"fpu", (char *)slot, (char *)cpu, FPU_ROUNDS};

	if (!(*out = process_output_alloc()))
		return -ENOMEM;
	return process_spawn("fpu", ARRAY_SIZE(argv), argv, *out, p);
}

/* The number after "ran during " in what slot printed: yields of this
 * process during which the other one ran. */
static long yields_shared(const char *out)
{
	const char *s = strstr(out, "ran during ");

	return s ? (long)simple_strtoul(s + 11, 0, 10) : -1;
}

KTEST(fpu, two_processes_one_cpu_exact)
{
	struct fpu_test_page *pg = shm_page(FPU_TEST_KEY);
	struct process_output *out[2] = {0, 0};
	struct process *p[2];
	char cpu[8];
	int status[2];

	KASSERT_TRUE(pg);
	memset(pg, 0, sizeof(*pg));
	snprintf(cpu, sizeof(cpu), "%d", last_cpu());
	KASSERT_EQ(spawn_fpu("0", cpu, &out[0], &p[0]), 0);
	KASSERT_EQ(spawn_fpu("1", cpu, &out[1], &p[1]), 0);
	for (int i = 0; i < 2; i++) {
		status[i] = process_wait(p[i]);
		KEXPECT_EQ(status[i], 0);
		ktest_log("%s", out[i]->buf);
		KEXPECT_TRUE(strstr(out[i]->buf, FPU_ROUNDS " rounds exact"));
		/* Each gave the CPU to the other, many times over. */
		KEXPECT_GT(yields_shared(out[i]->buf), 10);
		process_output_put(out[i]);
	}
}

/* Registers dirtied by the processes above (or any before) do not leak
 * into a new one: it starts with FNINIT's state and zeroed vectors. */
KTEST(fpu, new_process_starts_clean)
{
	struct process_output *out = process_output_alloc();
	char *argv[] = {"fpu", "clean"};
	struct process *p;

	KASSERT_TRUE(out);
	KASSERT_EQ(process_spawn("fpu", 2, argv, out, &p), 0);
	KEXPECT_EQ(process_wait(p), 0);
	KEXPECT_TRUE(strstr(out->buf, "started clean"));
	if (!strstr(out->buf, "started clean"))
		ktest_log("%s", out->buf);
	process_output_put(out);
}
