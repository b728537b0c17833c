/*
 * Restartable sequences (see rseq.h), with Linux's ABI and checks. The
 * scheduler marks a process's rseq event whenever its task is switched
 * out (preemption, a sleep, a migration all go through the switch); the
 * exit to ring 3 sees the mark and runs rseq_handle_notify_resume(): it
 * clears the mark, reads the critical-section descriptor the process
 * published in its struct rseq, and when the interrupted RIP lies in
 * [start_ip, start_ip + post_commit_offset) it restarts the section at
 * abort_ip. The section's last instruction is its commit (a single
 * store), so a section is either wholly done on one CPU without
 * interruption or not done at all.
 *
 * The descriptor is the program's, so nothing in it is trusted: the whole
 * section and the abort handler must lie in user space, the handler
 * outside the section, and the four bytes before the handler must be the
 * signature the process registered (RSEQ_SIG), so that the kernel only
 * ever sends a program to an address the program itself marked as an
 * abort handler. Flags are refused (Linux has deprecated every one). A
 * descriptor that breaks a rule kills the process with one line naming
 * the rule, where Linux sends SIGSEGV.
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
_Static_assert(__builtin_offsetof(struct rseq, flags) == 16, "rseq ABI");
_Static_assert(__builtin_offsetof(struct rseq_cs, abort_ip) == 24,
	       "rseq ABI");

#define RSEQ_KILL_VECTOR 0xff /* WAIT_KILLED | this: a bad registration */
#define RSEQ_FIELD(f) (__builtin_offsetof(struct rseq, f))

__noreturn static void rseq_kill(struct process *p, const char *why,
				 uint64_t what)
{
	printk("rseq: %s pid %d: %s (%#lx): killed\n", p->name, p->pid, why,
	       (unsigned long)what);
	process_exit(WAIT_KILLED | RSEQ_KILL_VECTOR);
}

/* In user space, end included: [start, start + len] below USER_TOP. */
static bool user_range(uint64_t start, uint64_t len)
{
	return start < USER_TOP && len < USER_TOP - start;
}

/* Read and check the descriptor at cs_ptr (Linux's rseq_get_rseq_cs());
 * a broken rule kills the process. */
static void rseq_get_rseq_cs(struct process *p, uint64_t cs_ptr,
			     struct rseq_cs *cs)
{
	uint32_t flags, sig;

	if (cs_ptr >= USER_TOP || copy_from_user(cs, cs_ptr, sizeof(*cs)))
		rseq_kill(p, "rseq_cs descriptor unreadable", cs_ptr);
	if (cs->version != 0)
		rseq_kill(p, "rseq_cs version not 0", cs->version);
	if (copy_from_user(&flags, p->rseq + RSEQ_FIELD(flags),
			   sizeof(flags)))
		rseq_kill(p, "struct rseq unreadable", p->rseq);
	if (cs->flags || flags)
		rseq_kill(p, "rseq flags set (none is supported)",
			  cs->flags | flags);
	if (!user_range(cs->start_ip, cs->post_commit_offset))
		rseq_kill(p, "critical section outside user space",
			  cs->start_ip);
	if (cs->abort_ip - cs->start_ip < cs->post_commit_offset)
		rseq_kill(p, "abort_ip inside the critical section",
			  cs->abort_ip);
	if (cs->abort_ip < sizeof(sig) || cs->abort_ip >= USER_TOP)
		rseq_kill(p, "abort_ip outside user space", cs->abort_ip);
	if (copy_from_user(&sig, cs->abort_ip - sizeof(sig), sizeof(sig)) ||
	    sig != p->rseq_sig)
		rseq_kill(p, "no RSEQ signature before abort_ip", cs->abort_ip);
}

/* Restart the section f's RIP is in, if any (Linux's rseq_ip_fixup()).
 * The descriptor is checked whether or not the RIP is inside, and
 * cleared when it is not: a section is over once it was left. */
static void rseq_ip_fixup(struct process *p, struct trap_frame *f)
{
	uintptr_t ip = instruction_pointer(f);
	uint64_t cs_ptr, zero = 0;
	struct rseq_cs cs;

	if (copy_from_user(&cs_ptr, p->rseq + RSEQ_FIELD(rseq_cs),
			   sizeof(cs_ptr)))
		rseq_kill(p, "struct rseq unreadable", p->rseq);
	if (!cs_ptr)
		return;
	rseq_get_rseq_cs(p, cs_ptr, &cs);
	if (copy_to_user(p->rseq + RSEQ_FIELD(rseq_cs), &zero, sizeof(zero)))
		rseq_kill(p, "struct rseq not writable", p->rseq);
	if (ip - cs.start_ip >= cs.post_commit_offset)
		return;
	instruction_pointer_set(f, cs.abort_ip);
	p->rseq_aborts++;
}

void rseq_handle_notify_resume(struct process *p, struct trap_frame *f)
{
	uint32_t cpu;

	p->rseq_event = false;
	barrier();
	rseq_ip_fixup(p, f);
	/* Preemptible here: the CPU stored may be left at once, but then
	 * the event is set again and this runs again before ring 3. */
	cpu = raw_smp_processor_id();
	if (copy_to_user(p->rseq + RSEQ_FIELD(cpu_id_start), &cpu,
			 sizeof(cpu)) ||
	    copy_to_user(p->rseq + RSEQ_FIELD(cpu_id), &cpu, sizeof(cpu)))
		rseq_kill(p, "struct rseq not writable", p->rseq);
}

/* rseq(area, len, flags, sig): register area with signature sig (flags
 * 0), or unregister it (RSEQ_FLAG_UNREGISTER, the same area, length and
 * signature). Linux's errors: -EINVAL for a bad area, length or flag or
 * another registration, -EPERM for a signature that does not match,
 * -EBUSY for the same registration twice. */
long sys_rseq(SYSCALL_ARGS)
{
	struct process *p = current_process();
	uintptr_t area = a0;
	uint32_t sig = (uint32_t)a3;

	if (a2 & RSEQ_FLAG_UNREGISTER) {
		if (a2 & ~(unsigned long)RSEQ_FLAG_UNREGISTER)
			return -EINVAL;
		if (!p->rseq || area != p->rseq || a1 != sizeof(struct rseq))
			return -EINVAL;
		if (sig != p->rseq_sig)
			return -EPERM;
		p->rseq = 0;
		return 0;
	}
	if (a2)
		return -EINVAL;
	if (p->rseq) {
		if (area != p->rseq || a1 != sizeof(struct rseq))
			return -EINVAL;
		return sig != p->rseq_sig ? -EPERM : -EBUSY;
	}
	if (a1 != sizeof(struct rseq) || area % __alignof__(struct rseq))
		return -EINVAL;
	if (!access_ok(area, sizeof(struct rseq)))
		return -EFAULT;
	p->rseq = area;
	p->rseq_sig = sig;
	p->rseq_event = true; /* cpu_id is filled in before ring 3 */
	return 0;
}
