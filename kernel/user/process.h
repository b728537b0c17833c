/*
 * User processes (docs/usermode.md): a kernel task that runs a program
 * from the image in ring 3, in an address space of its own. There is no
 * fork: spawn() builds a new process from a program name and arguments,
 * wait() collects a child's exit status, exit() ends the caller. One task
 * per process.
 *
 * A process is freed by whoever collects its status: its parent's wait(),
 * the kernel caller's process_wait() (for processes the kernel spawned),
 * or, for an orphan (its parent exited first), its own exit.
 */
#ifndef PROCESS_H
#define PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include "list.h"
#include "refcount.h"
#include "mm/mm.h"
#include "sched/sched.h"
#include "locking/spinlock.h"
#include "user/uapi.h"
#include "asm/fpu.h"

#define PROCESS_MAX_ARGS 16
#define PROCESS_ARG_MAX  128
#define PROCESS_OUTPUT_MAX 4096

/* Where a process's (and its descendants') write() output goes when its
 * spawner wants to read it (tests); without one it goes to the console.
 * Output past PROCESS_OUTPUT_MAX - 1 bytes is dropped; buf stays a C
 * string (NUL-terminated, other unprintable bytes stored as '.').
 * Reference-counted (output.c): its creator's reference, and one for each
 * process writing into it, from spawn to exit; the last put frees it, so
 * an orphan that outlives its parent and the creator's interest still
 * writes into live memory. */
struct process_output {
	spinlock_t lock;
	refcount_t refcount;
	size_t len;
	char buf[PROCESS_OUTPUT_MAX];
};

/* The most processes (spawned and not yet freed) one process tree may
 * hold by default: its root's RLIMIT_NPROC, as Linux's per user; spawn()
 * beyond the caller's fails with -EAGAIN. A tree is a process the kernel
 * spawned and its descendants. */
#define NPROC_TREE_MAX 64

struct user_struct;

struct process {
	struct task_struct *task;
	struct mm mm;
	int pid;                     /* its task's id */
	char name[16];               /* the program's */
	struct process_output *out;  /* a reference; NULL once exited */
	struct user_struct *user;    /* its tree's */

	/* Family, under process_lock. */
	struct process *parent;      /* NULL: spawned by the kernel */
	struct list_head children;
	struct list_head sibling;
	bool exited;                 /* its status is in its task's exit code */
	bool orphan;                 /* its parent exited: it frees itself */

	/* Start-up: where ring 3 begins. */
	uintptr_t entry, user_sp, argv;
	int argc;

	/* Restartable sequences (rseq.c). rseq_event: switched out since
	 * the last return to ring 3; written by the scheduler on the CPU the
	 * task leaves, read by the task itself. */
	uintptr_t rseq;
	uint32_t rseq_sig;           /* before every abort handler */
	bool rseq_event;
	unsigned long rseq_aborts;   /* critical sections restarted */
	unsigned long nr_preempted;  /* switched out while runnable */

	/* Its resource limits (rlimit.h; uapi.h says which exist), under
	 * rlimit.c's lock; a child starts with its parent's, a process the
	 * kernel spawns with the defaults. */
	struct rlimit rlim[RLIM_NLIMITS];

	/* Its x87/MMX/SSE registers while it is switched out (asm/fpu.h);
	 * while it runs, they are in the CPU. */
	struct fpu fpu;
};

static inline struct process *current_process(void)
{
	return current->proc;
}

/* Start program path with argv[0..argc-1] as a child of the calling
 * process (of nobody, from a kernel task), output to out (NULL: the
 * console, or the parent's; the process takes a reference). 0 and *res,
 * or -ENOENT (no such program), -ENOEXEC (refused by the ELF loader),
 * -E2BIG, -ENOMEM, -EAGAIN (the tree is at RLIMIT_NPROC). */
int process_spawn(const char *path, int argc, char *const argv[],
		  struct process_output *out, struct process **res);

/* For a process the kernel spawned: wait for it to end, free it, and
 * return its status (uapi.h: the exit code, or WAIT_KILLED | vector). */
int process_wait(struct process *p);

/* For a process the kernel spawned and has not waited for: whether it has
 * ended (killed, or exited), so that a wait for what it would have done
 * can stop. */
bool process_exited(struct process *p);

/* End the calling process with status. */
__noreturn void process_exit(int status);

/* The scheduler, switching from prev to next (interrupts off): next's
 * address space, kernel stack and FPU registers (prev's saved), and
 * prev's rseq event. */
void process_switch(struct task_struct *prev, struct task_struct *next);

/* A capture with one reference, the caller's; NULL when out of memory. */
struct process_output *process_output_alloc(void);
void process_output_get(struct process_output *out);
/* Drop a reference (NULL: nothing); the last frees the capture. */
void process_output_put(struct process_output *out);

/* Append n bytes to out (may sleep). */
void process_output_write(struct process_output *out, const char *s,
			  size_t n);

#endif
