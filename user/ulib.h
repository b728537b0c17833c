/*
 * The user programs' tiny C library (user/lib/): a stub for each system call
 * (kernel/user/uapi.h), printf on write(), string functions (the kernel's
 * lib/string.c and lib/vsprintf.c, built again for ring 3), and getcpu
 * without a system call.
 */
#ifndef ULIB_H
#define ULIB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../kernel/user/uapi.h"   /* the ABI, shared with the kernel */
#include "../lib/rwonce.h"    /* READ_ONCE(), WRITE_ONCE() */
#include "../lib/string.h"    /* lib/ is built for ring 3 too */
#include "../lib/vsprintf.h"

/* The raw system call: number and up to six arguments; -errno on error. */
long syscall6(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

long write(int fd, const void *buf, size_t len);
__attribute__((noreturn)) void exit(int status);
int getpid(void);
int getcpu(unsigned *cpu, unsigned *node);
int sched_yield(void);
int nanosleep(const struct timespec *req, struct timespec *rem);
int sched_setaffinity(int pid, size_t len, const uint64_t *mask);
int sched_setscheduler(int pid, int policy, const struct sched_param *p);
int spawn(const char *path, char *const argv[]);
int wait(int pid, int *status);
int rseq(struct rseq *area, uint32_t len, int flags, uint32_t sig);
void *shm_map(unsigned long key);
int getrlimit(int resource, struct rlimit *rlim);
int setrlimit(int resource, const struct rlimit *rlim);

/* Formatted output to fd 1 (at most 512 bytes per call). */
int printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int puts(const char *s);

/* Pin the caller to one CPU. */
int pin_to_cpu(unsigned cpu);

/* The CPU this code runs on, read without entering the kernel: RDPID when
 * the CPU has it, else LSL on the kernel's per-CPU GDT descriptor (whose
 * limit is the CPU number), as Linux's vgetcpu. */
unsigned getcpu_fast(void);

/* The process's rseq area (user/lib/rseq.c), registered by
 * rseq_register() with RSEQ_SIG; the kernel keeps rseq_area.cpu_id
 * current. */
extern struct rseq rseq_area;
int rseq_register(void);

/* Increment this CPU's counter, the uint64_t at counter + (cpu << shift)
 * bytes (shift 3: an array; 6: one cache line each), as a restartable
 * sequence when publish is set (false: the section was aborted, nothing
 * was stored), or unprotected (always true). spin: rounds of delay inside
 * the section. */
bool rseq_percpu_inc(uint64_t *counter, unsigned shift, bool publish,
		     unsigned spin);

/* Put before an rseq abort handler (in an asm string): RSEQ_SIG as the
 * operand of ud1 (0f b9 3d), as Linux's x86 selftests do, so that the
 * kernel accepts the handler and execution that falls into it traps. */
#define RSEQ_STR_(x) #x
#define RSEQ_STR(x) RSEQ_STR_(x)
#define RSEQ_SIG_BYTES ".byte 0x0f, 0xb9, 0x3d\n\t.long " RSEQ_STR(RSEQ_SIG) "\n"

/* A small deterministic generator (xorshift64*), for seeded fuzzing. */
uint64_t rand64(uint64_t *state);

#endif
