/*
 * The ABI between the kernel and user programs: system call numbers, error
 * numbers (lib/errno.h, Linux's), the restartable-sequence structures and
 * the encoding of an exit status. user/'s libc includes this file too, so
 * both sides agree by construction. Names and layouts follow Linux; the
 * system call numbers are our own.
 */
#ifndef UAPI_H
#define UAPI_H

#include <stdint.h>
/* By its path from here: user/'s programs build with no include path. */
#include "../../lib/errno.h"

enum {
	SYS_write,              /* (fd, buf, len) -> bytes written */
	SYS_exit,               /* (status), never returns */
	SYS_getpid,             /* () -> pid */
	SYS_getcpu,             /* (unsigned *cpu, unsigned *node), either NULL */
	SYS_sched_yield,        /* () */
	SYS_nanosleep,          /* (const struct timespec *req, struct timespec *rem) */
	SYS_sched_setaffinity,  /* (pid, len, const uint64_t *mask); pid 0: self */
	SYS_sched_setscheduler, /* (pid, policy, const struct sched_param *) */
	SYS_spawn,              /* (path, argv) -> pid of a new child */
	SYS_wait,               /* (pid, int *status) -> pid */
	SYS_rseq,               /* (struct rseq *, len, flags, sig) */
	SYS_shm_map,            /* (key) -> address of a page shared by key */
	SYS_getrlimit,          /* (resource, struct rlimit *) */
	SYS_setrlimit,          /* (resource, const struct rlimit *) */
	NR_SYSCALLS
};

struct timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

struct sched_param {
	int sched_priority;
};

/* Resource limits, as Linux's (numbers included): each process has a
 * soft limit (rlim_cur, the one enforced) and a hard one (rlim_max, the
 * ceiling for the soft one); a child starts with its parent's. A program
 * may lower either and raise the soft one up to the hard one; only the
 * kernel raises a hard limit. Only the limits the kernel enforces exist:
 * RLIMIT_NPROC, the most processes the caller's process tree may hold
 * (Linux's is per user; 64 by default, checked at spawn: -EAGAIN beyond
 * it), and RLIMIT_RTPRIO, the highest RT priority sched_setscheduler()
 * grants (0, the default: no RT policy at all; docs/usermode.md). */
#define RLIMIT_NPROC  6
#define RLIMIT_RTPRIO 14
#define RLIM_NLIMITS  16
#define RLIM_INFINITY (~0ul)

struct rlimit {
	uint64_t rlim_cur;
	uint64_t rlim_max;
};

/* Policies, as sched.h's enum sched_policy. */
#define SCHED_POLICY_NORMAL 0
#define SCHED_POLICY_FIFO   1
#define SCHED_POLICY_RR     2

/*
 * Restartable sequences (docs/usermode.md). A task registers one struct
 * rseq; the kernel keeps cpu_id current on every return to user space
 * after the task was switched out. A critical section is described by a
 * struct rseq_cs whose address user code stores in rseq_cs while it runs
 * the section: if the task is preempted or migrated with its RIP in
 * [start_ip, start_ip + post_commit_offset), the kernel resumes it at
 * abort_ip instead and clears rseq_cs.
 *
 * As on Linux, the four bytes just before abort_ip must hold the
 * signature given at registration (x86's RSEQ_SIG, placed as the operand
 * of a ud1 so that falling into it traps), the section and the handler
 * must lie in user space with the handler outside the section, and every
 * flag must be 0; a descriptor that breaks a rule kills the process.
 */
#define RSEQ_SIG 0x53053053
#define RSEQ_FLAG_UNREGISTER 1
struct rseq_cs {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} __attribute__((aligned(32)));

struct rseq {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;       /* address of the struct rseq_cs, or 0 */
	uint32_t flags;
} __attribute__((aligned(32)));

/*
 * The shared pages below are written by several processes, and by the
 * kernel's tests, at once: each field is one aligned word, and whoever
 * polls one or writes one another side reads does so with READ_ONCE()
 * and WRITE_ONCE() (lib/rwonce.h, which ring 3 builds too) or an atomic
 * builtin, never a plain access the compiler could keep in a register.
 */

/* The shared page (shm_map key RSEQ_COUNTER_KEY) of the per-CPU counter
 * demonstration, user/rseqcount.c: counter[cpu] is incremented by every
 * process running on cpu; done[i] and aborts[i] are process i's own
 * count of increments and of restarted critical sections. */
#define RSEQ_COUNTER_KEY 1
#define RSEQ_COUNTER_SLOTS 64
struct rseq_counter_page {
	int stop;
	uint64_t counter[RSEQ_COUNTER_SLOTS];
	uint64_t done[RSEQ_COUNTER_SLOTS];
	uint64_t aborts[RSEQ_COUNTER_SLOTS];
};

/* The FPU state every new process starts with (docs/usermode.md): the x87
 * unit as FNINIT leaves it (control word below, every register empty),
 * MXCSR as at reset (SIMD exceptions masked, round to nearest), every MMX
 * and XMM register zero. */
#define FPU_INIT_CWD   0x037f
#define FPU_INIT_MXCSR 0x1f80

/* The shared page (shm_map key FPU_TEST_KEY) of the FPU isolation test,
 * user/fpu.c: two processes on one CPU, slots 0 and 1, each counting the
 * times it gave the CPU away in ticks[slot] (so each sees whether the
 * other ran in between) and raising ready[slot] once it has started. */
#define FPU_TEST_KEY 2
struct fpu_test_page {
	uint64_t ticks[2];
	int ready[2];
};

/* The shared page (shm_map key BOMB_KEY) of the fork bomb, user/forkbomb.c:
 * what its processes did, counted by them (atomically), for the kernel
 * test to check that every one completed. */
#define BOMB_KEY 4
struct bomb_page {
	int spawned;   /* children started */
	int refused;   /* spawns refused with -EAGAIN */
	int nomem;     /* spawns refused with -ENOMEM */
	int failed;    /* spawns that failed any other way */
	int killed;    /* children the kernel killed */
	int completed; /* processes that reaped every child */
};

/* The shared page (shm_map key ORPHAN_KEY) of the orphan writer,
 * usertest orphan: the orphan counts its writes and stops at stop. */
#define ORPHAN_KEY 5
struct orphan_page {
	int writes;
	int stop;
	int done;
};

/* The shared page (shm_map key RT_SPIN_KEY) of the RT throttling test,
 * user/rtspin.c: process i waits for go (the kernel has raised its
 * RLIMIT_RTPRIO by then), becomes SCHED_FIFO 99 pinned to its CPU,
 * raises ready[i] and spins until stop; denied[i] is what asking for
 * FIFO 99 gave before go (-EPERM: the default limit). */
#define RT_SPIN_KEY 6
#define RT_SPIN_SLOTS 64
struct rt_spin_page {
	int go;
	int stop;
	int ready[RT_SPIN_SLOTS];
	int denied[RT_SPIN_SLOTS];
};

/* The user-visible address where shm_map(key) maps its page. */
#define SHM_BASE   0x40000000ul
#define SHM_KEYS   16

/* wait()'s status: the exit code (0..255), or WAIT_KILLED | the exception
 * vector for a process the kernel killed. */
#define WAIT_KILLED 0x100

#endif
