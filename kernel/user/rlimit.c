/*
 * Resource limits (rlimit.h): getrlimit() and setrlimit() with Linux's
 * rules, the kernel's way to grant a process more, and the RLIMIT_RTPRIO
 * check of sched_setscheduler().
 */
#include "user/rlimit.h"
#include "user/syscalls.h"
#include "user/uaccess.h"

/* Guards every process's rlim[]: a process changes its own, the kernel
 * may change anyone's, and a spawn copies its parent's. */
static DEFINE_SPINLOCK(rlimit_lock);

/* The limits the kernel enforces; the others are refused (-EINVAL)
 * rather than kept and ignored. */
static bool rlimit_exists(unsigned long resource)
{
	return resource == RLIMIT_NPROC || resource == RLIMIT_RTPRIO;
}

void rlimit_inherit(struct process *p, const struct process *parent)
{
	if (!parent) {
		/* kzalloc'd: every limit 0 but the process count's. */
		p->rlim[RLIMIT_NPROC] = (struct rlimit){NPROC_TREE_MAX,
							NPROC_TREE_MAX};
		return;
	}
	spin_lock(&rlimit_lock);
	for (int i = 0; i < RLIM_NLIMITS; i++)
		p->rlim[i] = parent->rlim[i];
	spin_unlock(&rlimit_lock);
}

int process_setrlimit(struct process *p, unsigned resource,
		      const struct rlimit *rlim)
{
	if (!rlimit_exists(resource) || rlim->rlim_cur > rlim->rlim_max)
		return -EINVAL;
	spin_lock(&rlimit_lock);
	p->rlim[resource] = *rlim;
	spin_unlock(&rlimit_lock);
	return 0;
}

uint64_t rlimit_cur(const struct process *p, unsigned resource)
{
	uint64_t cur;

	spin_lock(&rlimit_lock);
	cur = p->rlim[resource].rlim_cur;
	spin_unlock(&rlimit_lock);
	return cur;
}

/* getrlimit(resource, struct rlimit *) */
long sys_getrlimit(SYSCALL_ARGS)
{
	struct process *p = current_process();
	struct rlimit r;

	if (!rlimit_exists(a0))
		return -EINVAL;
	spin_lock(&rlimit_lock);
	r = p->rlim[a0];
	spin_unlock(&rlimit_lock);
	return copy_to_user(a1, &r, sizeof(r)) ? -EFAULT : 0;
}

/* setrlimit(resource, const struct rlimit *): no program is privileged
 * (Linux's CAP_SYS_RESOURCE), so a hard limit can only come down. */
long sys_setrlimit(SYSCALL_ARGS)
{
	struct process *p = current_process();
	struct rlimit r;
	long err = 0;

	if (!rlimit_exists(a0))
		return -EINVAL;
	if (copy_from_user(&r, a1, sizeof(r)))
		return -EFAULT;
	if (r.rlim_cur > r.rlim_max)
		return -EINVAL;
	spin_lock(&rlimit_lock);
	if (r.rlim_max > p->rlim[a0].rlim_max)
		err = -EPERM;
	else
		p->rlim[a0] = r;
	spin_unlock(&rlimit_lock);
	return err;
}

bool rt_prio_allowed(const struct task_struct *t, int policy, int rt_priority)
{
	uint64_t limit;

	if (policy != SCHED_FIFO && policy != SCHED_RR)
		return true; /* SCHED_NORMAL: always */
	spin_lock(&rlimit_lock);
	limit = t->proc->rlim[RLIMIT_RTPRIO].rlim_cur;
	spin_unlock(&rlimit_lock);
	/* Linux's two rules: no RT policy taken up without a limit, and no
	 * raise past it (a task the kernel made RT may stay where it is or
	 * come down). */
	if (policy != t->policy && limit == 0)
		return false;
	return rt_priority <= t->rt_priority || (uint64_t)rt_priority <= limit;
}
