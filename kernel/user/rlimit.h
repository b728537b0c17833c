/*
 * Resource limits of user processes, as Linux's getrlimit()/setrlimit()
 * (uapi.h lists the limits that exist; docs/usermode.md). RLIMIT_NPROC
 * bounds the processes of a process tree (process.c checks it at
 * spawn). RLIMIT_RTPRIO keeps ring 3 off the RT priorities unless the
 * kernel grants them: by default a program gets -EPERM for any RT
 * policy, so it cannot starve the kernel's own RT tasks (the test runner
 * is SCHED_FIFO 99).
 */
#ifndef RLIMIT_H
#define RLIMIT_H

#include <stdbool.h>
#include "user/process.h"

/* p's limits at spawn: its parent's, or the defaults for a process the
 * kernel spawns (RLIMIT_NPROC NPROC_TREE_MAX, every other one 0). Before
 * p runs. */
void rlimit_inherit(struct process *p, const struct process *parent);

/* Set p's limit on resource from the kernel (Linux's prlimit() by a
 * privileged caller: the hard limit may rise). 0, or -EINVAL for a limit
 * that does not exist or a soft limit above the hard one. */
int process_setrlimit(struct process *p, unsigned resource,
		      const struct rlimit *rlim);

/* p's soft limit on resource (which exists). */
uint64_t rlimit_cur(const struct process *p, unsigned resource);

/* Linux's user_check_sched_setscheduler() for t, a user task (any kernel
 * task may): an RT policy needs a non-zero RLIMIT_RTPRIO, and a priority
 * above the task's present one must not exceed it. Arguments valid. */
bool rt_prio_allowed(const struct task_struct *t, int policy, int rt_priority);

#endif
