/*
 * System call checks from ring 3, run by the kernel's user tests
 * (tests/user/user.c). usertest MODE [ARG]:
 *   syscalls NCPUS  every system call's ordinary behaviour, on each CPU
 *   efault          every pointer argument refused with -EFAULT when bad
 *   spawn           spawn and wait from user space
 *   sleeper         sleeps a little and exits 7 (a child for spawn)
 *   rtlimit         RLIMIT_RTPRIO at its default, 0: every RT policy
 *                   refused with -EPERM (bad arguments still -EINVAL),
 *                   the limit readable, lowered but never raised
 *   nproclimit      RLIMIT_NPROC readable (64), lowered to 2: a second
 *                   child refused with -EAGAIN until the first is reaped
 *   storm N         N rounds of a register-heavy hash with a system call
 *                   in each (getpid, getcpu, now and then sched_yield),
 *                   then the hash again without them: equal, and every
 *                   getpid right (tests/user/nmi.c, under NMIs)
 * Exit status 0 when every check held; else the number of the first
 * check that failed, which is also printed.
 */
#include "ulib.h"

#define KERNEL_ADDR  0xffffffff80100000ul
#define NONCANON_LO  0x0000800000000000ul
#define NONCANON_HI  0x8000000000000000ul
#define UNMAPPED     0x10000000ul

static int checks;

/* Exits with the check's number if cond is false. */
#define CHECK(cond)                                                          \
	do {                                                                 \
		checks++;                                                    \
		if (!(cond)) {                                               \
			printf("usertest: check %d failed: %s (line %d)\n",  \
			       checks, #cond, __LINE__);                     \
			exit(checks);                                        \
		}                                                            \
	} while (0)

static int test_syscalls(unsigned ncpus)
{
	struct timespec ts = {0, 1000000}, rem = {5, 5};
	struct sched_param fifo = {10}, normal = {0}, bad = {100};
	int pid = getpid();

	CHECK(pid > 0 && getpid() == pid);
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		unsigned got = ~0u, node = ~0u;

		CHECK(pin_to_cpu(cpu) == 0);
		CHECK(getcpu(&got, &node) == 0);
		CHECK(got == cpu && node == 0);
		CHECK(getcpu_fast() == cpu);
		CHECK(sched_yield() == 0);
		CHECK(nanosleep(&ts, &rem) == 0 && rem.tv_sec == 0 &&
		      rem.tv_nsec == 0);
		CHECK(getcpu(&got, 0) == 0 && got == cpu);
	}
	/* No RT policy under the default RLIMIT_RTPRIO (test_rtlimit). */
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo) == -EPERM);
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &bad) == -EINVAL);
	CHECK(sched_setscheduler(0, 7, &normal) == -EINVAL);
	CHECK(sched_setscheduler(pid + 1000, SCHED_POLICY_NORMAL, &normal) ==
	      -ESRCH);
	CHECK(sched_setscheduler(pid, SCHED_POLICY_NORMAL, &normal) == 0);
	CHECK(sched_setaffinity(0, 8, &(uint64_t){0}) == -EINVAL);
	CHECK(sched_setaffinity(0, 2, &(uint64_t){1}) == -EINVAL);
	CHECK(pin_to_cpu(0) == 0);
	CHECK(write(1, "", 0) == 0);
	CHECK(write(3, "x", 1) == -EBADF);
	CHECK(nanosleep(&(struct timespec){0, 1000000000}, 0) == -EINVAL);
	CHECK(syscall6(NR_SYSCALLS, 0, 0, 0, 0, 0, 0) == -ENOSYS);
	CHECK(syscall6(1000, 0, 0, 0, 0, 0, 0) == -ENOSYS);
	CHECK(syscall6(-1, 0, 0, 0, 0, 0, 0) == -ENOSYS);
	CHECK(syscall6(1l << 40, 0, 0, 0, 0, 0, 0) == -ENOSYS);
	printf("usertest: syscalls ok on %u CPUs\n", ncpus);
	return 0;
}

/* Every way a pointer can be bad, for a call that reads (write) and one
 * that writes (getcpu). */
static const uintptr_t bad_ptrs[] = {
	0, KERNEL_ADDR, NONCANON_LO, NONCANON_HI, UNMAPPED,
	0xfffffffffffffff0ul,
};

static const int read_only_int = 1;

static int test_efault(void)
{
	/* The last page shm_map can map; the page after it never is. */
	char *page = shm_map(SHM_KEYS - 1);
	uintptr_t edge = (uintptr_t)page + 4096;
	char *argv[] = {"hello", 0};
	int child, status;

	CHECK((uintptr_t)page == SHM_BASE + (SHM_KEYS - 1) * 4096ul);
	memcpy(page + 4096 - 4, "abcd", 4);
	/* A key is its whole 64-bit argument: 2^32 + 1 is not key 1. */
	CHECK((long)shm_map(SHM_KEYS) == -EINVAL);
	CHECK((long)shm_map((1ul << 32) | 1) == -EINVAL);
	CHECK((long)shm_map(~0ul) == -EINVAL);
	for (unsigned i = 0; i < sizeof(bad_ptrs) / sizeof(bad_ptrs[0]); i++) {
		CHECK(write(1, (void *)bad_ptrs[i], 4) == -EFAULT);
		CHECK(getcpu((unsigned *)bad_ptrs[i], 0) ==
		      (bad_ptrs[i] ? -EFAULT : 0)); /* NULL: not wanted */
		CHECK(nanosleep((void *)bad_ptrs[i], 0) == -EFAULT);
		CHECK(sched_setaffinity(0, 8, (void *)bad_ptrs[i]) == -EFAULT);
		CHECK(sched_setscheduler(0, 0, (void *)bad_ptrs[i]) == -EFAULT);
		CHECK(spawn((void *)bad_ptrs[i], argv) == -EFAULT);
		CHECK(spawn("hello", (void *)bad_ptrs[i]) == -EFAULT);
	}
	/* Straddling the end of a mapped page: the part before the edge is
	 * fine, the whole is not. */
	CHECK(write(1, (void *)(edge - 4), 4) == 4);
	CHECK(write(1, (void *)(edge - 4), 8) == -EFAULT);
	CHECK(getcpu((unsigned *)(edge - 2), 0) == -EFAULT);
	CHECK(nanosleep((void *)(edge - 8), 0) == -EFAULT);
	/* A range that wraps around, and one that ends in the kernel. */
	CHECK(write(1, (void *)(edge - 4), ~0ul) == -EFAULT);
	CHECK(write(1, (void *)0x7ffffffff000ul, 0x2000) == -EFAULT);
	/* A read-only user page: copy_to_user faults on protection. */
	CHECK(getcpu((unsigned *)&read_only_int, 0) == -EFAULT);
	/* A string running into the unmapped page (the failed copies above
	 * wrote what they could, as on Linux: write the string again). */
	memcpy(page + 4096 - 4, "abcd", 4);
	CHECK(spawn((char *)edge - 4, argv) == -EFAULT);
	/* wait's status pointer: the child is collected all the same. */
	child = spawn("hello", argv);
	CHECK(child > 0);
	CHECK(wait(child, (int *)KERNEL_ADDR) == -EFAULT);
	CHECK(wait(child, &status) == -ECHILD);
	printf("usertest: efault ok\n");
	return 0;
}

static int test_spawn(void)
{
	char *argv[] = {"usertest", "sleeper", 0};
	char *none[] = {0};
	int a, b, status = -1;

	a = spawn("usertest", argv);
	b = spawn("usertest", argv);
	CHECK(a > 0 && b > 0 && a != b);
	CHECK(wait(b, &status) == b && status == 7);
	CHECK(wait(a, &status) == a && status == 7);
	CHECK(wait(a, &status) == -ECHILD);
	CHECK(wait(getpid(), &status) == -ECHILD);
	CHECK(spawn("no-such-program", argv) == -ENOENT);
	CHECK(spawn("hello", none) > 0); /* argc 0; an orphan once we exit */
	/* One left running: exiting first makes it an orphan. */
	CHECK(spawn("usertest", argv) > 0);
	printf("usertest: spawn ok\n");
	return 0;
}

/* One round of the storm's hash (spin's loop). */
static uint64_t storm_round(uint64_t h, uint64_t *rng)
{
	h = (h ^ rand64(rng)) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int test_storm(unsigned long n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull, h2 = h, rng = 1, rng2 = 1;
	int pid = getpid();
	unsigned cpu;

	for (unsigned long i = 0; i < n; i++) {
		h = storm_round(h, &rng);
		CHECK(getpid() == pid);
		CHECK(getcpu(&cpu, 0) == 0);
		if (i % 64 == 0)
			CHECK(sched_yield() == 0);
	}
	for (unsigned long i = 0; i < n; i++)
		h2 = storm_round(h2, &rng2);
	CHECK(h == h2);
	printf("usertest: storm of %lu rounds ok\n", n);
	return 0;
}

/* "orphan": start "usertest orphan-writer" and end at once, leaving it an
 * orphan that writes into the output capture after its parent (and the
 * kernel caller waiting for the parent) have gone. */
static int test_orphan(void)
{
	char *argv[] = {"usertest", "orphan-writer", 0};

	CHECK(spawn("usertest", argv) > 0);
	return 0;
}

static int orphan_writer(void)
{
	struct orphan_page *pg = shm_map(ORPHAN_KEY);

	if ((long)pg < 0)
		return 1;
	while (!__atomic_load_n(&pg->stop, __ATOMIC_ACQUIRE)) {
		printf("orphan writing, %d\n", pg->writes);
		__atomic_fetch_add(&pg->writes, 1, __ATOMIC_SEQ_CST);
		nanosleep(&(struct timespec){0, 100000}, 0);
	}
	__atomic_store_n(&pg->done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Linux's rules for an unprivileged process whose RLIMIT_RTPRIO is 0. */
static int test_rtlimit(void)
{
	struct sched_param fifo1 = {1}, fifo99 = {99}, bad = {100}, normal = {0};
	struct rlimit r = {5, 5};

	CHECK(getrlimit(RLIMIT_RTPRIO, &r) == 0 && r.rlim_cur == 0 &&
	      r.rlim_max == 0);
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo1) == -EPERM);
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo99) == -EPERM);
	CHECK(sched_setscheduler(0, SCHED_POLICY_RR, &fifo1) == -EPERM);
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &bad) == -EINVAL);
	CHECK(sched_setscheduler(0, SCHED_POLICY_NORMAL, &normal) == 0);
	/* A soft limit above the hard one, a hard one raised: refused. */
	CHECK(setrlimit(RLIMIT_RTPRIO, &(struct rlimit){1, 0}) == -EINVAL);
	CHECK(setrlimit(RLIMIT_RTPRIO, &(struct rlimit){0, 1}) == -EPERM);
	CHECK(setrlimit(RLIMIT_RTPRIO, &(struct rlimit){0, 0}) == 0);
	CHECK(sched_setscheduler(0, SCHED_POLICY_FIFO, &fifo1) == -EPERM);
	/* Limits the kernel does not enforce do not exist. */
	CHECK(getrlimit(RLIMIT_RTPRIO - 1, &r) == -EINVAL);
	CHECK(setrlimit(RLIM_NLIMITS, &r) == -EINVAL);
	CHECK(getrlimit(RLIMIT_RTPRIO, (void *)KERNEL_ADDR) == -EFAULT);
	CHECK(setrlimit(RLIMIT_RTPRIO, (void *)UNMAPPED) == -EFAULT);
	printf("usertest: RT priorities refused under RLIMIT_RTPRIO 0\n");
	return 0;
}

/* RLIMIT_NPROC, the most processes this process tree may hold: 64 at
 * first; lowered to 2 (this process and one child), a second child is
 * refused with -EAGAIN until the first is reaped; the hard limit never
 * raised. */
static int test_nproclimit(void)
{
	char *argv[] = {"usertest", "sleeper", 0};
	struct rlimit r = {5, 5};
	int child, status = -1;

	CHECK(getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur == 64 &&
	      r.rlim_max == 64);
	CHECK(setrlimit(RLIMIT_NPROC, &(struct rlimit){2, 64}) == 0);
	CHECK((child = spawn("usertest", argv)) > 0);
	CHECK(spawn("usertest", argv) == -EAGAIN);
	CHECK(wait(child, &status) == child && status == 7);
	CHECK((child = spawn("usertest", argv)) > 0);
	CHECK(wait(child, &status) == child && status == 7);
	CHECK(setrlimit(RLIMIT_NPROC, &(struct rlimit){64, 65}) == -EPERM);
	CHECK(setrlimit(RLIMIT_NPROC, &(struct rlimit){65, 64}) == -EINVAL);
	CHECK(setrlimit(RLIMIT_NPROC, &(struct rlimit){64, 64}) == 0);
	CHECK(getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur == 64);
	printf("usertest: RLIMIT_NPROC enforced\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "syscalls") && argc > 2)
		return test_syscalls(simple_strtoul(argv[2], 0, 10));
	if (!strcmp(mode, "efault"))
		return test_efault();
	if (!strcmp(mode, "spawn"))
		return test_spawn();
	if (!strcmp(mode, "storm") && argc > 2)
		return test_storm(simple_strtoul(argv[2], 0, 10));
	if (!strcmp(mode, "orphan"))
		return test_orphan();
	if (!strcmp(mode, "orphan-writer"))
		return orphan_writer();
	if (!strcmp(mode, "rtlimit"))
		return test_rtlimit();
	if (!strcmp(mode, "nproclimit"))
		return test_nproclimit();
	if (!strcmp(mode, "sleeper")) {
		nanosleep(&(struct timespec){0, 2000000}, 0);
		return 7;
	}
	printf("usage: usertest syscalls NCPUS | efault | spawn | sleeper | "
	       "storm N | orphan | orphan-writer | rtlimit | nproclimit\n");
	return 100;
}
