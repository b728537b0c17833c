/*
 * User mode: programs from user/ spawned by test tasks, their exit status
 * and output checked (kernel/user/process.h, docs/usermode.md). The programs
 * report their own failures by exit status (usertest: the number of the
 * check that failed, also in the output shown on failure).
 */
#include "ktest_util.h"
#include "kmalloc.h"
#include "process.h"
#include "shm.h"
#include "string.h"
#include "vsprintf.h"

static struct process_output *user_out;

/* Run program argv[0] with its output captured in user_out; its status,
 * or the spawn error (negative). The output is shown when status differs
 * from want. */
static int run_user(int want, int argc, char *const argv[])
{
	struct process *p;
	int err, status;

	if (!user_out && !(user_out = kmalloc(sizeof(*user_out))))
		return -ENOMEM;
	process_output_init(user_out);
	err = process_spawn(argv[0], argc, argv, user_out, &p);
	if (err)
		return err;
	status = process_wait(p);
	if (status != want)
		ktest_log("%s: status %#x, output: %s", argv[0], status,
			  user_out->buf);
	return status;
}

#define RUN_USER(want, ...)                                                   \
	({                                                                    \
		char *argv_[] = {__VA_ARGS__};                                \
		run_user(want, ARRAY_SIZE(argv_), argv_);                     \
	})

KTEST(user, hello)
{
	KASSERT_EQ(RUN_USER(0, "hello"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "hello from user mode: pid "));
	KEXPECT_TRUE(strstr(user_out->buf, "argv[0] \"hello\""));
}

/* Every system call's ordinary path, pinned to each CPU in turn. */
KTEST(user, syscalls)
{
	char ncpus[8];

	snprintf(ncpus, sizeof(ncpus), "%u", num_online_cpus());
	KEXPECT_EQ(RUN_USER(0, "usertest", "syscalls", ncpus), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "syscalls ok"));
}

KTEST(user, efault)
{
	KEXPECT_EQ(RUN_USER(0, "usertest", "efault"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "efault ok"));
}

KTEST(user, spawn_wait)
{
	KEXPECT_EQ(RUN_USER(0, "usertest", "spawn"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "spawn ok"));
	KEXPECT_EQ(RUN_USER(100, "usertest"), 100); /* its usage message */
}

KTEST(user, no_such_program)
{
	KEXPECT_EQ(RUN_USER(0, "no-such-program"), -ENOENT);
}

/* A bounded, seeded fuzz; the seed differs per boot and is printed. */
KTEST(user, fuzz)
{
	char seed[24];

	snprintf(seed, sizeof(seed), "%lu", (unsigned long)rdtsc());
	ktest_log("fuzz seed %s", seed);
	KEXPECT_EQ(RUN_USER(0, "fuzz", seed, "3000"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "fuzz: done"));
}

/* Each fault kills only its process, with the vector in its status. */
KTEST(user, faults_contained)
{
	static const struct {
		const char *kind;
		int vector;
	} faults[] = {
		{"ud", 6}, {"de", 0}, {"gp", 13}, {"null", 14},
		{"kernel", 14}, {"nx", 14},
	};

	for (unsigned i = 0; i < ARRAY_SIZE(faults); i++) {
		char *argv[] = {"fault", (char *)faults[i].kind};

		KEXPECT_EQ(run_user(WAIT_KILLED | faults[i].vector, 2, argv),
			   WAIT_KILLED | faults[i].vector);
	}
	/* And the kernel goes on running programs. */
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}

/* A return to a non-canonical RIP (an rseq abort handler set there) goes
 * through iretq, which faults in the program's name: #GP, or #PF on
 * the fetch if the CPU takes the RIP. Never a kernel fault. */
KTEST(user, noncanonical_return)
{
	int status = RUN_USER(-1, "fault", "noncanon");

	KEXPECT_TRUE(status == (WAIT_KILLED | 13) ||
		     status == (WAIT_KILLED | 14));
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}

/* swapgs under fire: interrupts arrive at a CPU while it runs a user
 * program (in ring 3 and in its system calls). */
struct gs_probe {
	int cpu;
	struct task *target;         /* the program's task */
	struct process *proc;        /* the program */
	volatile long hits;          /* IPIs that interrupted it */
	volatile long bad;           /* IPIs that found a GS base wrong */
};

static void gs_probe_ipi(void *arg)
{
	struct gs_probe *g = arg;

	if (rdmsr(MSR_GS_BASE) != __per_cpu_offset[g->cpu] ||
	    rdmsr(MSR_KERNEL_GS_BASE) != 0)
		g->bad++;
	if (current == g->target)
		g->hits++;
}

#define GS_PROBE_HITS 50
#define GS_PROBE_MAX_TRIES 2000000

/* From CPU 0: call-function and reschedule IPIs at g->cpu until enough
 * of them interrupted the program (or give up, and the test fails; at
 * once if the program is gone: killed early, it can be hit no more). */
static int gs_probe_sender(void *arg)
{
	struct gs_probe *g = arg;

	for (long i = 0; i < GS_PROBE_MAX_TRIES && g->hits < GS_PROBE_HITS &&
			 !__atomic_load_n(&g->proc->exited, __ATOMIC_RELAXED);
	     i++) {
		smp_call_function_single(g->cpu, gs_probe_ipi, g, true);
		resched_cpu(g->cpu);
	}
	return 0;
}

/* spin's loop, to check its hash. */
static uint64_t spin_hash(unsigned long n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull, rng = 1;

	for (unsigned long i = 0; i < n; i++) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		h = (h ^ (rng * 0x2545f4914f6cdd1dull)) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

KTEST_CPUS(user, swapgs_under_ipis, 2)
{
	volatile int *stop = shm_page(0);
	struct gs_probe g = {.cpu = last_cpu()};
	char cpu[8], *argv[] = {"spin", cpu}, *end;
	struct process *p;
	unsigned long n;
	int status;

	KASSERT_TRUE(stop);
	KASSERT_TRUE(user_out || (user_out = kmalloc(sizeof(*user_out))));
	process_output_init(user_out);
	*stop = 0;
	snprintf(cpu, sizeof(cpu), "%d", g.cpu);
	KASSERT_EQ(process_spawn("spin", 2, argv, user_out, &p), 0);
	g.target = p->task;
	g.proc = p;
	ktest_run_on(0, gs_probe_sender, &g, "gs-probe");
	*stop = 1;
	status = process_wait(p);
	KEXPECT_EQ(status, 0);
	KEXPECT_GE(g.hits, GS_PROBE_HITS);
	KEXPECT_EQ(g.bad, 0);
	end = strstr(user_out->buf, "spin: ");
	KASSERT_TRUE(end);
	n = simple_strtoul(end + 6, &end, 10);
	KEXPECT_EQ(simple_strtoul(end + 1, 0, 16), spin_hash(n));
	ktest_log("%ld IPIs hit the program in %lu rounds", g.hits, n);
}
