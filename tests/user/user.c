/*
 * User mode: programs from user/ spawned by test tasks, their exit status
 * and output checked (kernel/user/process.h, docs/usermode.md). The programs
 * report their own failures by exit status (usertest: the number of the
 * check that failed, also in the output shown on failure).
 */
#include "ktest_util.h"
#include "process.h"
#include "shm.h"
#include "stack.h"
#include "string.h"
#include "uaccess.h"
#include "user/user_util.h"
#include "vsprintf.h"
#include "asm/ptrace.h"

struct process_output *user_out;

int run_user(int want, int argc, char *const argv[])
{
	struct process *p;
	int err, status;

	/* A fresh capture each time: orphans of the last program may still
	 * be writing into the old one, which they keep alive. */
	process_output_put(user_out);
	if (!(user_out = process_output_alloc()))
		return -ENOMEM;
	err = process_spawn(argv[0], argc, argv, user_out, &p);
	if (err)
		return err;
	status = process_wait(p);
	if (status != want)
		ktest_log("%s: status %#x, output: %s", argv[0], status,
			  user_out->buf);
	return status;
}

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

/* The key of a shared page is the whole 64-bit number: one past the
 * last key, or a key with high bits set, names no page and makes none
 * (the system call used to make key 2^32 + 3's page as key 3's, through
 * a truncated argument, before refusing it). */
KTEST(user, shm_key_is_all_its_bits)
{
	static const unsigned long no_keys[] = {(1ul << 32) | 3, SHM_KEYS, ~0ul};

	for (unsigned i = 0; i < ARRAY_SIZE(no_keys); i++) {
		if (shm_page(no_keys[i]))
			ktest_log("key %#lx has a page", no_keys[i]);
		KEXPECT_TRUE(shm_page(no_keys[i]) == 0);
	}
	KEXPECT_TRUE(shm_page(3) != 0);
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

static void gs_bases_check(void *arg)
{
	int cpu = raw_smp_processor_id();

	if (rdmsr(MSR_GS_BASE) != __per_cpu_offset[cpu] ||
	    rdmsr(MSR_KERNEL_GS_BASE) != 0)
		__atomic_fetch_add((long *)arg, 1, __ATOMIC_RELAXED);
}

long gs_bases_wrong(void)
{
	long bad = 0;
	int cpu;

	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, gs_bases_check, &bad, true);
	return bad;
}

/* A bounded, seeded fuzz of every system call, entered with DF, AC and NT
 * set at random (the seed differs per boot and is printed); then one call
 * entered with TF set, whose single-step trap must land in ring 3 after
 * the call; then both GS bases of every CPU. */
KTEST(user, fuzz)
{
	char seed[24];

	snprintf(seed, sizeof(seed), "%lu", (unsigned long)rdtsc());
	ktest_log("fuzz seed %s", seed);
	KEXPECT_EQ(RUN_USER(0, "fuzz", seed, "3000"), 0);
	KEXPECT_TRUE(strstr(user_out->buf, "fuzz: done"));
	KEXPECT_EQ(RUN_USER(WAIT_KILLED | 1, "fuzz", "tf"), WAIT_KILLED | 1);
	KEXPECT_TRUE(strstr(user_out->buf, "fuzz tf: the call ran"));
	KEXPECT_EQ(gs_bases_wrong(), 0);
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

/* With UMIP (CR4.UMIP, where CPUID has it: QEMU's -cpu max does), the
 * instructions that read the GDT, IDT, LDT, TSS selectors and CR0 are
 * ring 0 only: #GP, and the process is killed; without, they run. */
KTEST(user, umip_hides_descriptor_tables)
{
	static const char *const insns[] = {"sgdt", "sidt", "sldt", "smsw",
					    "str"};
	uint32_t a, b, c, d;
	bool umip;

	cpuid_count(7, 0, &a, &b, &c, &d);
	umip = (c >> 2) & 1;
	KEXPECT_EQ((read_cr4() & CR4_UMIP) != 0, umip);
	for (unsigned i = 0; i < ARRAY_SIZE(insns); i++) {
		int want = umip ? WAIT_KILLED | 13 : 1;
		char *argv[] = {"fault", (char *)insns[i]};

		KEXPECT_EQ(run_user(want, 2, argv), want);
	}
}

/* swapgs under fire: interrupts arrive at a CPU while it runs a user
 * program (in ring 3 and in its system calls). */
struct gs_probe {
	int cpu;
	struct task_struct *target;         /* the program's task */
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
	process_output_put(user_out);
	KASSERT_TRUE(user_out = process_output_alloc());
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

/*
 * A return to ring 3 at a non-canonical RIP: sysretq would raise its #GP
 * in ring 0 on the user's stack (docs/usermode.md), so the exit goes by
 * iretq, which faults in the program's name. No system call can ask for
 * such a RIP any more (rseq refuses abort handlers outside user space),
 * so the test makes one: a FIFO helper on the CPU spin is pinned to, so
 * that spin is switched out while it runs, rewrites the RIP in spin's
 * entry frame (the top of its kernel stack; an interrupt in ring 3 or a
 * system call put it there). The program is killed with #GP (or #PF on
 * the fetch, if the CPU takes the RIP); the kernel never faults.
 */
static bool poison_user_rip(struct gs_probe *g)
{
	struct task_struct *t = g->target;
	struct trap_frame *top = (struct trap_frame *)((char *)t->stack +
						       KSTACK_SIZE) - 1;

	/* Not running (it shares our CPU), and its frame a user's. */
	if (task_cpu(t) != g->cpu ||
	    __atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE) || !user_mode(top) ||
	    top->rip >= USER_TOP || top->rsp >= USER_TOP)
		return false;
	top->rip = 0x0000800000000000ul; /* just past the user half */
	return true;
}

static int poison_sender(void *arg)
{
	struct gs_probe *g = arg;

	for (long i = 0; i < 5000 && !g->hits &&
			 !__atomic_load_n(&g->proc->exited, __ATOMIC_RELAXED);
	     i++) {
		msleep(1); /* spin runs, and is preempted when we wake */
		g->hits = poison_user_rip(g);
	}
	return 0;
}

KTEST(user, noncanonical_return)
{
	volatile int *stop = shm_page(0);
	struct gs_probe g = {.cpu = last_cpu()};
	char cpu[8], *argv[] = {"spin", cpu};
	struct process *p;
	int status;

	KASSERT_TRUE(stop);
	*stop = 0;
	snprintf(cpu, sizeof(cpu), "%d", g.cpu);
	KASSERT_EQ(process_spawn("spin", 2, argv, 0, &p), 0);
	g.target = p->task;
	g.proc = p;
	ktest_join(ktest_spawn(poison_sender, &g, "rip-poison", g.cpu,
			       SCHED_FIFO, 50, true));
	*stop = 1; /* if the poison never landed, let spin end */
	status = process_wait(p);
	KEXPECT_EQ(g.hits, 1);
	KEXPECT_TRUE(status == (WAIT_KILLED | 13) ||
		     status == (WAIT_KILLED | 14));
	KEXPECT_EQ(RUN_USER(0, "hello"), 0);
}
