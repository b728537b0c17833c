/*
 * Restartable sequences (see rseq.h). The scheduler marks a process's
 * rseq event whenever its task is switched out (preemption, a sleep, a
 * migration all go through the switch); the exit to ring 3 sees the mark
 * and runs rseq_handle_notify_resume(): it clears the mark, reads the
 * critical-section descriptor the process published in its struct rseq,
 * and when the interrupted RIP lies in [start_ip, start_ip +
 * post_commit_offset) it restarts the section at abort_ip. The section's
 * last instruction is its commit (a single store), so a section is either
 * wholly done on one CPU without interruption or not done at all.
 */
#include "user/rseq.h"
#include "entry.h"
#include "percpu.h"
#include "printk.h"
#include "user/syscalls.h"
#include "user/uaccess.h"

/* The field offsets user space relies on (uapi.h, as Linux). */
_Static_assert(__builtin_offsetof(struct rseq, cpu_id) == 4, "rseq ABI");
_Static_assert(__builtin_offsetof(struct rseq, rseq_cs) == 8, "rseq ABI");
_Static_assert(__builtin_offsetof(struct rseq_cs, abort_ip) == 24,
	       "rseq ABI");

#define RSEQ_KILL_VECTOR 0xff /* WAIT_KILLED | this: a bad registration */

__noreturn static void rseq_kill(struct process *p, const char *why)
{
	printk("rseq: %s pid %d: %s: killed\n", p->name, p->pid, why);
	process_exit(WAIT_KILLED | RSEQ_KILL_VECTOR);
}

/* Restart the section f's RIP is in, if any; false on a bad descriptor. */
static bool rseq_ip_fixup(struct process *p, struct trap_frame *f)
{
	uintptr_t ip = instruction_pointer(f);
	uint64_t cs_ptr, zero = 0;
	struct rseq_cs cs;

	if (copy_from_user(&cs_ptr, p->rseq + __builtin_offsetof(struct rseq,
								 rseq_cs),
			   sizeof(cs_ptr)))
		return false;
	if (!cs_ptr)
		return true;
	if (copy_from_user(&cs, cs_ptr, sizeof(cs)) || cs.version != 0 ||
	    cs.start_ip + cs.post_commit_offset < cs.start_ip)
		return false;
	if (ip - cs.start_ip >= cs.post_commit_offset)
		return true;
	/* Linux also clears rseq_cs: the abort handler starts afresh. The
	 * abort IP is not checked here: a non-canonical one is refused by
	 * the return to ring 3 itself (entry.asm), in the process's name. */
	if (copy_to_user(p->rseq + __builtin_offsetof(struct rseq, rseq_cs),
			 &zero, sizeof(zero)))
		return false;
	instruction_pointer_set(f, cs.abort_ip);
	p->rseq_aborts++;
	return true;
}

void rseq_handle_notify_resume(struct process *p, struct trap_frame *f)
{
	uint32_t cpu;

	p->rseq_event = false;
	barrier();
	if (!rseq_ip_fixup(p, f))
		rseq_kill(p, "bad critical section descriptor");
	/* Preemptible here: the CPU stored may be left at once, but then
	 * the event is set again and this runs again before ring 3. */
	cpu = raw_smp_processor_id();
	if (copy_to_user(p->rseq, &cpu, sizeof(cpu)) ||
	    copy_to_user(p->rseq + __builtin_offsetof(struct rseq, cpu_id),
			 &cpu, sizeof(cpu)))
		rseq_kill(p, "struct rseq not writable");
}

/* rseq(struct rseq *area, len, flags): register area (flags 0), or
 * unregister it (flags 1, the same area). */
long sys_rseq(SYSCALL_ARGS)
{
	struct process *p = current_process();
	uintptr_t area = a0;

	if (a2 == 1) {
		if (area != p->rseq)
			return -EINVAL;
		p->rseq = 0;
		return 0;
	}
	if (a2 != 0 || a1 != sizeof(struct rseq) ||
	    area % __alignof__(struct rseq))
		return -EINVAL;
	if (p->rseq)
		return -EBUSY;
	if (!access_ok(area, sizeof(struct rseq)))
		return -EFAULT;
	p->rseq = area;
	p->rseq_event = true; /* cpu_id is filled in before ring 3 */
	return 0;
}
