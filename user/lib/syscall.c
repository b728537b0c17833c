/* System call stubs (see ulib.h): arguments in rdi, rsi, rdx, r10, r8,
 * r9, number in rax; syscall clobbers rcx (return RIP) and r11 (RFLAGS). */
#include "../ulib.h"

long syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register long r9 __asm__("r9") = a5;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			   "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

long write(int fd, const void *buf, size_t len)
{
	return syscall6(SYS_write, fd, (long)buf, (long)len, 0, 0, 0);
}

void exit(int status)
{
	syscall6(SYS_exit, status, 0, 0, 0, 0, 0);
	__builtin_unreachable();
}

int getpid(void)
{
	return syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

int getcpu(unsigned *cpu, unsigned *node)
{
	return syscall6(SYS_getcpu, (long)cpu, (long)node, 0, 0, 0, 0);
}

int sched_yield(void)
{
	return syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	return syscall6(SYS_nanosleep, (long)req, (long)rem, 0, 0, 0, 0);
}

int sched_setaffinity(int pid, size_t len, const uint64_t *mask)
{
	return syscall6(SYS_sched_setaffinity, pid, (long)len, (long)mask, 0,
			0, 0);
}

int sched_setscheduler(int pid, int policy, const struct sched_param *p)
{
	return syscall6(SYS_sched_setscheduler, pid, policy, (long)p, 0, 0, 0);
}

int spawn(const char *path, char *const argv[])
{
	return syscall6(SYS_spawn, (long)path, (long)argv, 0, 0, 0, 0);
}

int wait(int pid, int *status)
{
	return syscall6(SYS_wait, pid, (long)status, 0, 0, 0, 0);
}

int rseq(struct rseq *area, uint32_t len, int flags, uint32_t sig)
{
	return syscall6(SYS_rseq, (long)area, len, flags, sig, 0, 0);
}

void *shm_map(unsigned long key)
{
	return (void *)syscall6(SYS_shm_map, key, 0, 0, 0, 0, 0);
}

int getrlimit(int resource, struct rlimit *rlim)
{
	return syscall6(SYS_getrlimit, resource, (long)rlim, 0, 0, 0, 0);
}

int setrlimit(int resource, const struct rlimit *rlim)
{
	return syscall6(SYS_setrlimit, resource, (long)rlim, 0, 0, 0, 0);
}
