/*
 * User mode: programs from user/ spawned by test tasks, their exit status
 * and output checked (kernel/process.h, docs/usermode.md). The programs
 * report their own failures by exit status (usertest: the number of the
 * check that failed, also in the output shown on failure).
 */
#include "ktest.h"
#include "ktest_util.h"
#include "kmalloc.h"
#include "process.h"
#include "shm.h"
#include "string.h"
#include "vsprintf.h"
#include "asm/processor.h"

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
