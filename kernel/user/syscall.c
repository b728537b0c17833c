/*
 * System call dispatch (from entry_syscall through syscall_entry()) and
 * the small system calls that are thin layers over the scheduler. Every
 * pointer a program passes goes through uaccess.h.
 */
#include "entry.h"
#include "user/syscalls.h"
#include "printk.h"
#include "user/process.h"
#include "user/rlimit.h"
#include "sched/sched.h"
#include "user/uaccess.h"
#include "user/uapi.h"
#include "asm/syscall.h"

#define WRITE_CHUNK 256

static const syscall_fn_t syscall_table[NR_SYSCALLS] = {
	[SYS_write] = sys_write,
	[SYS_exit] = sys_exit,
	[SYS_getpid] = sys_getpid,
	[SYS_getcpu] = sys_getcpu,
	[SYS_sched_yield] = sys_sched_yield,
	[SYS_nanosleep] = sys_nanosleep,
	[SYS_sched_setaffinity] = sys_sched_setaffinity,
	[SYS_sched_setscheduler] = sys_sched_setscheduler,
	[SYS_spawn] = sys_spawn,
	[SYS_wait] = sys_wait,
	[SYS_rseq] = sys_rseq,
	[SYS_shm_map] = sys_shm_map,
	[SYS_getrlimit] = sys_getrlimit,
	[SYS_setrlimit] = sys_setrlimit,
};

void syscall_entry(struct trap_frame *f)
{
	unsigned long nr = (unsigned long)syscall_get_nr(f), a[6];
	long ret = -ENOSYS;

	local_irq_enable();
	syscall_get_arguments(f, a);
	if (nr < NR_SYSCALLS && syscall_table[nr])
		ret = syscall_table[nr](a[0], a[1], a[2], a[3], a[4], a[5]);
	syscall_set_return_value(f, ret);
	local_irq_disable();
}

/* write(fd, buf, len): fd 1 and 2 are the console (or the spawner's
 * capture buffer); copied in chunks, so any length is fine. */
long sys_write(SYSCALL_ARGS)
{
	struct process_output *out = current_process()->out;
	uintptr_t buf = a1;
	size_t len = a2, done = 0;
	char chunk[WRITE_CHUNK];

	if (a0 != 1 && a0 != 2)
		return -EBADF;
	if (!access_ok(buf, len))
		return -EFAULT;
	while (done < len) {
		size_t n = len - done < WRITE_CHUNK ? len - done : WRITE_CHUNK;

		if (copy_from_user(chunk, buf + done, n))
			return done ? (long)done : -EFAULT;
		if (out)
			process_output_write(out, chunk, n);
		else
			printk("%.*s", (int)n, chunk);
		done += n;
	}
	return (long)done;
}

/* exit(status) */
long sys_exit(SYSCALL_ARGS)
{
	process_exit((int)(a0 & 0xff));
}

long sys_getpid(SYSCALL_ARGS)
{
	return current_process()->pid;
}

/* getcpu(unsigned *cpu, unsigned *node): either may be NULL. One NUMA
 * node. The answer may be stale by the time the caller reads it, as on
 * Linux. */
long sys_getcpu(SYSCALL_ARGS)
{
	unsigned cpu = raw_smp_processor_id(), node = 0;

	if (a0 && copy_to_user(a0, &cpu, sizeof(cpu)))
		return -EFAULT;
	if (a1 && copy_to_user(a1, &node, sizeof(node)))
		return -EFAULT;
	return 0;
}

long sys_sched_yield(SYSCALL_ARGS)
{
	yield();
	return 0;
}

/* nanosleep(req, rem): sleeps are never interrupted, so rem (if given)
 * is set to zero. */
long sys_nanosleep(SYSCALL_ARGS)
{
	struct timespec ts, zero = {0, 0};

	if (copy_from_user(&ts, a0, sizeof(ts)))
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000 ||
	    ts.tv_sec > 1000000)
		return -EINVAL;
	usleep(((uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + 999) / 1000);
	if (a1 && copy_to_user(a1, &zero, sizeof(zero)))
		return -EFAULT;
	return 0;
}

/* Only the caller itself (pid 0 or its own) may be changed. */
static bool is_self(unsigned long pid)
{
	return pid == 0 || (long)pid == current_process()->pid;
}

/* sched_setaffinity(pid, len, const uint64_t *mask): CPUs 0..63. */
long sys_sched_setaffinity(SYSCALL_ARGS)
{
	uint64_t bits;
	cpumask_t mask;
	int cpu;

	if (!is_self(a0))
		return -ESRCH;
	if (a1 < sizeof(bits))
		return -EINVAL;
	if (copy_from_user(&bits, a2, sizeof(bits)))
		return -EFAULT;
	cpumask_clear(&mask);
	for_each_online_cpu(cpu)
		if (cpu < 64 && (bits >> cpu) & 1)
			cpumask_set_cpu(cpu, &mask);
	if (cpumask_weight(&mask) == 0)
		return -EINVAL;
	return set_cpus_allowed(current, &mask) ? -EINVAL : 0;
}

/* sched_setscheduler(pid, policy, const struct sched_param *): the
 * arguments are checked first (-EINVAL), then the caller's RLIMIT_RTPRIO
 * (-EPERM, rlimit.h); the kernel's own callers are not limited. */
long sys_sched_setscheduler(SYSCALL_ARGS)
{
	struct sched_param param;
	int policy = (int)a1;

	if (!is_self(a0))
		return -ESRCH;
	if (copy_from_user(&param, a2, sizeof(param)))
		return -EFAULT;
	if (!sched_param_valid(policy, param.sched_priority))
		return -EINVAL;
	if (!rt_prio_allowed(current, policy, param.sched_priority))
		return -EPERM;
	return sched_setscheduler(current, policy, param.sched_priority)
		       ? -EINVAL
		       : 0;
}
