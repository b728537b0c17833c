/*
 * fuzz SEED COUNT: COUNT system calls, every one the kernel has (exit,
 * nanosleep, rseq and sched_setscheduler included) plus unknown and
 * negative numbers, with arguments drawn from a pool of interesting values
 * (NULL, kernel and non-canonical addresses, unmapped and page-straddling
 * pointers, valid buffers, huge lengths), and each entered with a random
 * subset of RFLAGS.DF, AC and NT set, from a generator seeded with SEED,
 * which is printed so that a failure can be replayed. Every call must come
 * back with a result or -errno and the flags as they were; the kernel must
 * survive. What would end or stall the fuzzer itself runs where it can:
 *   - exit: in a child (fuzz exit STATUS), whose status must be STATUS's
 *     low byte;
 *   - rseq: registering a random area can legitimately get a process
 *     killed (the kernel writes the area and checks what it finds there,
 *     as Linux does), so it runs in a child (fuzz child SEED N) that makes
 *     N random calls of every kind; it must end by exit or be killed by
 *     the rseq checks, nothing else;
 *   - nanosleep: a timespec in the fuzzer's buffer is made short first (or
 *     one of the invalid kinds);
 *   - sched_setscheduler: the fuzzer returns to SCHED_NORMAL after each.
 * fuzz tf: a system call entered with RFLAGS.TF set: the kernel runs it
 * (TF is masked on entry) and the single-step trap lands in ring 3 once
 * it returns, which kills the program (status WAIT_KILLED | 1, #DB).
 */
#include "ulib.h"

#define RFLAGS_TF (1ul << 8)
#define RFLAGS_DF (1ul << 10)
#define RFLAGS_NT (1ul << 14)
#define RFLAGS_AC (1ul << 18)
#define CHILD_CALLS 16

static char scratch[2 * 4096] __attribute__((aligned(4096)));
/* A setrlimit() call of the fuzz lowered its own RLIMIT_NPROC (random
 * arguments can): from then on a spawn may rightly fail with -EAGAIN. */
static bool nproc_lowered;

/*
 * The system call entered with the RFLAGS bits in set raised (on top of
 * the program's own), the flags it came back with in *after; the bits are
 * cleared again before any C code runs (the ABI wants DF clear). Below the
 * red zone: the pushes must not overwrite the compiler's locals.
 */
static long syscall_flags(long nr, const long a[6], uint64_t set,
			  uint64_t *after)
{
	register long r10 __asm__("r10") = a[3];
	register long r8 __asm__("r8") = a[4];
	register long r9 __asm__("r9") = a[5];
	uint64_t fl;
	long ret;

	__asm__ volatile("sub $128, %%rsp\n\t"
			 "pushfq\n\t"
			 "or %[set], (%%rsp)\n\t"
			 "popfq\n\t"
			 "syscall\n\t"
			 "pushfq\n\t"
			 "pop %[fl]\n\t"
			 "pushfq\n\t"
			 "not %[set]\n\t"
			 "and %[set], (%%rsp)\n\t"
			 "popfq\n\t"
			 "add $128, %%rsp\n\t"
			 : "=a"(ret), [fl] "=&r"(fl), [set] "+r"(set),
			   "+r"(r10), "+r"(r8), "+r"(r9)
			 : "a"(nr), "D"(a[0]), "S"(a[1]), "d"(a[2])
			 : "rcx", "r11", "memory", "cc");
	*after = fl;
	return ret;
}

static long pick_arg(uint64_t *rng)
{
	static const unsigned long pool[] = {
		0, 1, 2, 8, 4096, ~0ul, 0x7fffffff,
		0xffffffff80100000ul, 0xffff800000000000ul,
		0x0000800000000000ul, 0x8000000000000000ul, 0x10000000ul,
		0x7ffffffff000ul, 0x7fffffffeff8ul, RSEQ_SIG,
	};
	uint64_t r = rand64(rng);

	switch (r % 4) {
	case 0:
		return pool[(r >> 8) % (sizeof(pool) / sizeof(pool[0]))];
	case 1:
		return (long)(scratch + (r >> 8) % sizeof(scratch));
	case 2:
		return (long)(r >> 8) % 64;
	default:
		return (long)rand64(rng);
	}
}

/* A timespec the fuzzer owns is made one that cannot stall it: a short
 * sleep, or one of the kinds the kernel refuses. */
static void bound_nanosleep(long a0, uint64_t *rng)
{
	static const struct timespec bad[] = {
		{-1, 0}, {0, -1}, {0, 1000000000}, {1000001, 0},
	};
	struct timespec *ts = (struct timespec *)a0;
	uint64_t r = rand64(rng);

	if ((char *)a0 < scratch ||
	    (char *)a0 > scratch + sizeof(scratch) - sizeof(*ts))
		return;
	if (r % 2)
		*ts = (struct timespec){0, (long)(r >> 8) % 1000000};
	else
		*ts = bad[(r >> 8) % 4];
}

/* Spawn fuzz with args and wait: its status, or the spawn's error. */
static int run_child(char *mode, char *arg1, char *arg2)
{
	char *argv[] = {"fuzz", mode, arg1, arg2, 0};
	int pid = spawn("fuzz", argv), status;

	if (pid < 0)
		return pid;
	if (wait(pid, &status) != pid)
		return -1000;
	return status;
}

/* One call, its flags and its result checked; false (and a line) on a
 * kernel answer no kernel should give. */
static bool fuzz_one(unsigned long i, long nr, long a[6], uint64_t *rng)
{
	uint64_t set = rand64(rng) & (RFLAGS_DF | RFLAGS_AC | RFLAGS_NT), fl;
	long r;

	if (nr == SYS_write)
		a[2] &= 7; /* keep the output readable */
	if (nr == SYS_nanosleep)
		bound_nanosleep(a[0], rng);
	r = syscall_flags(nr, a, set, &fl);
	if (nr == SYS_setrlimit && a[0] == RLIMIT_NPROC && r == 0)
		nproc_lowered = true;
	if (nr == SYS_sched_setscheduler)
		sched_setscheduler(0, SCHED_POLICY_NORMAL,
				   &(struct sched_param){0});
	if ((fl & (RFLAGS_DF | RFLAGS_AC | RFLAGS_NT)) != set) {
		printf("fuzz: call %lu: syscall %ld entered with flags %#lx, "
		       "returned with %#lx\n", i, nr, (unsigned long)set,
		       (unsigned long)fl);
		return false;
	}
	if (r < -4095 || ((nr < 0 || nr >= NR_SYSCALLS) && r != -ENOSYS)) {
		printf("fuzz: call %lu: syscall %ld returned %ld\n", i, nr, r);
		return false;
	}
	return true;
}

/* exit(status) with random other arguments and flags: must end the
 * child with status's low byte. */
static int fuzz_exit(unsigned long status, uint64_t seed)
{
	uint64_t rng = seed | 1, fl;
	long a[6];

	for (int j = 0; j < 6; j++)
		a[j] = pick_arg(&rng);
	a[0] = (long)status;
	syscall_flags(SYS_exit, a, rand64(&rng) & (RFLAGS_DF | RFLAGS_AC |
						   RFLAGS_NT), &fl);
	return 1; /* exit returned */
}

/* The parent's view of a child: exit drawn, its status must be the low
 * byte; rseq drawn, the child may exit any way or be killed by rseq. */
static bool fuzz_in_child(unsigned long i, long nr, long a0, uint64_t *rng)
{
	char x[24], y[24];
	int status;

	if (nr == SYS_exit) {
		snprintf(x, sizeof(x), "%lu", (unsigned long)a0);
		snprintf(y, sizeof(y), "%lu", (unsigned long)rand64(rng));
		status = run_child("exit", x, y);
		if (status == (int)(a0 & 0xff))
			return true;
	} else {
		snprintf(x, sizeof(x), "%lu", (unsigned long)rand64(rng));
		snprintf(y, sizeof(y), "%d", CHILD_CALLS);
		status = run_child("child", x, y);
		if ((status >= 0 && status <= 0xff) ||
		    status == (WAIT_KILLED | 0xff))
			return true;
	}
	if (status == -EAGAIN && nproc_lowered)
		return true;
	printf("fuzz: call %lu: child for syscall %ld (%s %s) ended with "
	       "status %#x\n", i, nr, x, y, status);
	return false;
}

/* COUNT calls; child: every call made here (exit and rseq too). */
static int fuzz(uint64_t seed, unsigned long count, bool child)
{
	uint64_t rng = seed ? seed : 1;
	unsigned long children = 0;

	if (!child)
		printf("fuzz: seed %lu, %lu calls\n", (unsigned long)seed,
		       count);
	for (unsigned long i = 0; i < count; i++) {
		long nr = (long)(rand64(&rng) % (NR_SYSCALLS + 8)) - 4, a[6];

		for (int j = 0; j < 6; j++)
			a[j] = pick_arg(&rng);
		if (!child && (nr == SYS_exit || nr == SYS_rseq)) {
			if (!fuzz_in_child(i, nr, a[0], &rng))
				return 1;
			children++;
			continue;
		}
		if (!fuzz_one(i, nr, a, &rng))
			return 1;
	}
	if (!child)
		printf("fuzz: done: %lu calls, %lu in children\n", count,
		       children);
	return 0;
}

/* A system call with TF set: it must complete (its output shows), and
 * the single-step trap then kill us in ring 3. */
static int fuzz_tf(void)
{
	static const char msg[] = "fuzz tf: the call ran\n";
	long a[6] = {1, (long)msg, sizeof(msg) - 1, 0, 0, 0};
	uint64_t fl;

	syscall_flags(SYS_write, a, RFLAGS_TF | RFLAGS_DF, &fl);
	printf("fuzz tf: no single-step trap\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "1";

	if (!strcmp(mode, "exit") && argc > 3)
		return fuzz_exit(simple_strtoul(argv[2], 0, 10),
				 simple_strtoul(argv[3], 0, 10));
	if (!strcmp(mode, "child") && argc > 3)
		return fuzz(simple_strtoul(argv[2], 0, 10),
			    simple_strtoul(argv[3], 0, 10), true);
	if (!strcmp(mode, "tf"))
		return fuzz_tf();
	return fuzz(simple_strtoul(mode, 0, 0),
		    argc > 2 ? simple_strtoul(argv[2], 0, 0) : 1000, false);
}
