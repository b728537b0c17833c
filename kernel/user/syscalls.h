/*
 * The system calls (uapi.h lists them), as the table in syscall.c calls
 * them: six unsigned long arguments whatever they mean, a long result
 * that is -errno on failure. Each lives with the concept it belongs to.
 */
#ifndef SYSCALLS_H
#define SYSCALLS_H

#define SYSCALL_ARGS                                                          \
	unsigned long a0, unsigned long a1, unsigned long a2,                 \
		unsigned long a3, unsigned long a4, unsigned long a5

typedef long (*syscall_fn_t)(SYSCALL_ARGS);

/* syscall.c */
long sys_write(SYSCALL_ARGS);
long sys_exit(SYSCALL_ARGS);
long sys_getpid(SYSCALL_ARGS);
long sys_getcpu(SYSCALL_ARGS);
long sys_sched_yield(SYSCALL_ARGS);
long sys_nanosleep(SYSCALL_ARGS);
long sys_sched_setaffinity(SYSCALL_ARGS);
long sys_sched_setscheduler(SYSCALL_ARGS);
/* process.c */
long sys_spawn(SYSCALL_ARGS);
long sys_wait(SYSCALL_ARGS);
/* rseq.c */
long sys_rseq(SYSCALL_ARGS);
/* shm.c */
long sys_shm_map(SYSCALL_ARGS);
/* rlimit.c */
long sys_getrlimit(SYSCALL_ARGS);
long sys_setrlimit(SYSCALL_ARGS);

#endif
