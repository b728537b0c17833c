/*
 * User processes: spawn, the first entry into ring 3, exit, wait, and the
 * scheduler's switch of address space (see process.h).
 */
#include "user/process.h"
#include "user/elf.h"
#include "user/rlimit.h"
#include "entry.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "printk.h"
#include "mm/stack.h"
#include "string.h"
#include "user/syscalls.h"
#include "user/uaccess.h"
#include "user/user_programs.h"
#include "asm/pgtable.h"
#include "asm/syscall.h"

/* What uapi.h promises programs is what the arch sets up. */
_Static_assert(FPU_INIT_CWD == FPU_DEFAULT_CWD && FPU_INIT_MXCSR ==
	       MXCSR_DEFAULT, "a new process's FPU state");

/* Guards every process's family fields (parent, children, exited,
 * orphan). */
static DEFINE_SPINLOCK(process_lock);

/*
 * Linux's per-user struct user_struct, here per process tree: every
 * process the kernel spawns starts a tree, as a login starts a user's
 * processes, and its descendants join it. processes counts the tree's
 * processes from spawn until they are freed (reaped, or an orphan's own
 * exit): the memory they hold, which RLIMIT_NPROC bounds. The last one
 * frees the struct.
 */
/* processes counts the tree's processes and is the tree's reference
 * count: the last process to be freed frees it. */
struct user_struct {
	atomic_t processes;
};

/* Join parent's tree (a new tree when the kernel spawns): 0, -EAGAIN at
 * the parent's RLIMIT_NPROC (as Linux checks the forking task's), -ENOMEM. */
static int user_charge(struct process *parent, struct user_struct **res)
{
	struct user_struct *u;
	uint64_t limit;
	int n;

	if (!parent) {
		if (!(u = kzalloc(sizeof(*u))))
			return -ENOMEM;
		atomic_set(&u->processes, 1);
		*res = u;
		return 0;
	}
	u = parent->user;
	limit = rlimit_cur(parent, RLIMIT_NPROC);
	n = atomic_read(&u->processes);
	do {
		if ((uint64_t)n >= limit)
			return -EAGAIN;
	} while (!atomic_try_cmpxchg(&u->processes, &n, n + 1));
	*res = u;
	return 0;
}

static void user_uncharge(struct user_struct *u)
{
	if (atomic_dec_and_test(&u->processes))
		kfree(u);
}

/*
 * The stack a program starts with: the argument strings at the top, below
 * them the argv array (NULL-terminated), 16-byte aligned; RSP points at
 * the array.
 */
static int setup_stack(struct process *p, int argc, char *const argv[])
{
	uintptr_t sp = USER_STACK_TOP, ptrs[PROCESS_MAX_ARGS + 1];
	int err = mm_map_zero(&p->mm, USER_STACK_TOP - USER_STACK_SIZE,
			      USER_STACK_SIZE, MM_WRITE);

	for (int i = argc - 1; i >= 0 && !err; i--) {
		size_t len = strlen(argv[i]) + 1;

		sp -= len;
		ptrs[i] = sp;
		err = mm_write(&p->mm, sp, argv[i], len);
	}
	if (err)
		return err;
	ptrs[argc] = 0;
	sp = (sp & ~15ul) - ((argc + 1) * sizeof(uintptr_t) + 15) / 16 * 16;
	p->argv = p->user_sp = sp;
	p->argc = argc;
	return mm_write(&p->mm, sp, ptrs, (argc + 1) * sizeof(uintptr_t));
}

/* The new task's first code: into ring 3 at the program's entry, with
 * argc and argv in the argument registers. The scheduler has loaded the
 * address space and the kernel stack (process_switch). The frame must be
 * on this task's kernel stack: arch_enter_user() runs the exit work (which
 * may schedule) on the stack below it, so a frame anywhere else would
 * have that work's calls written over whatever lies below it. */
static int process_start(void *arg)
{
	struct process *p = arg;
	struct trap_frame f;

	arch_user_frame_init(&f, p->entry, p->user_sp, p->argc, p->argv);
	local_irq_disable();
	arch_enter_user(&f);
}

static struct process *process_alloc(const char *path,
				     struct process_output *out)
{
	struct process *p = kzalloc(sizeof(*p));

	if (!p)
		return 0;
	if (mm_init(&p->mm)) {
		kfree(p);
		return 0;
	}
	strlcpy(p->name, path, sizeof(p->name));
	if ((p->out = out))
		process_output_get(out);
	fpstate_init(&p->fpu);
	INIT_LIST_HEAD(&p->children);
	INIT_LIST_HEAD(&p->sibling);
	return p;
}

/* Its last reference: the struct and its place in its tree. */
static void process_release(struct process *p)
{
	user_uncharge(p->user);
	kfree(p);
}

/* A process that never ran. */
static void process_free(struct process *p)
{
	mm_destroy(&p->mm);
	process_output_put(p->out);
	process_release(p);
}

/* Address space, program and stack: everything that can fail. */
static int process_build(struct process *p, const char *path, int argc,
			 char *const argv[])
{
	const struct user_program *prog = user_program_find(path);
	int err;

	if (!prog)
		return -ENOENT;
	err = elf_load(&p->mm, prog->start, prog->end - prog->start, path,
		       &p->entry);
	return err ? err : setup_stack(p, argc, argv);
}

int process_spawn(const char *path, int argc, char *const argv[],
		  struct process_output *out, struct process **res)
{
	struct process *parent = current_process(), *p;
	int err;

	if (argc < 0 || argc > PROCESS_MAX_ARGS)
		return -E2BIG;
	if (!out && parent)
		out = parent->out;
	if (!(p = process_alloc(path, out)))
		return -ENOMEM;
	if ((err = user_charge(parent, &p->user))) {
		mm_destroy(&p->mm);
		process_output_put(p->out);
		kfree(p);
		return err;
	}
	if ((err = process_build(p, path, argc, argv)) ||
	    !(p->task = kthread_create(process_start, p, p->name))) {
		process_free(p);
		return err ? err : -ENOMEM;
	}
	p->pid = p->task->pid;
	p->task->proc = p;
	p->parent = parent;
	rlimit_inherit(p, parent);
	if (parent) {
		spin_lock(&process_lock);
		list_add_tail(&p->sibling, &parent->children);
		spin_unlock(&process_lock);
	}
	wake_up_process(p->task);
	*res = p;
	return 0;
}

/* Collect an exited (or exiting) process no one else can reach. */
static int process_reap(struct process *p)
{
	int status = kthread_join(p->task);

	process_release(p);
	return status;
}

int process_wait(struct process *p)
{
	return process_reap(p);
}

bool process_exited(struct process *p)
{
	bool exited;

	spin_lock(&process_lock);
	exited = p->exited;
	spin_unlock(&process_lock);
	return exited;
}

/* wait(pid, int *status): collect child pid's status. */
long sys_wait(SYSCALL_ARGS)
{
	long pid = (long)a0;
	uintptr_t status_ptr = a1;
	struct process *self = current_process(), *c, *found = 0;
	int status;

	spin_lock(&process_lock);
	list_for_each_entry(c, &self->children, sibling)
		if (c->pid == pid) {
			found = c;
			list_del_init(&c->sibling);
			break;
		}
	spin_unlock(&process_lock);
	if (!found)
		return -ECHILD;
	status = process_reap(found);
	if (status_ptr && copy_to_user(status_ptr, &status, sizeof(status)))
		return -EFAULT;
	return pid;
}

/* The user's argv array, copied in: at most PROCESS_MAX_ARGS strings of
 * less than PROCESS_ARG_MAX bytes each, into args. Returns argc or
 * -errno. */
static int copy_argv(uintptr_t uargv, char (*args)[PROCESS_ARG_MAX],
		     char **argv)
{
	for (int argc = 0; argc <= PROCESS_MAX_ARGS; argc++) {
		uintptr_t s;
		long len;

		if (copy_from_user(&s, uargv + argc * sizeof(s), sizeof(s)))
			return -EFAULT;
		if (!s)
			return argc;
		if (argc == PROCESS_MAX_ARGS)
			return -E2BIG;
		len = strncpy_from_user(args[argc], s, PROCESS_ARG_MAX);
		if (len < 0)
			return len == -ENAMETOOLONG ? -E2BIG : (int)len;
		argv[argc] = args[argc];
	}
	return -E2BIG;
}

/* spawn(path, argv): start a child; its pid. */
long sys_spawn(SYSCALL_ARGS)
{
	char path[16], *argv[PROCESS_MAX_ARGS];
	char (*args)[PROCESS_ARG_MAX] = kmalloc(PROCESS_MAX_ARGS *
						PROCESS_ARG_MAX);
	struct process *p;
	long err = strncpy_from_user(path, a0, sizeof(path));
	int argc;

	if (!args)
		return -ENOMEM;
	if (err >= 0) {
		argc = err = copy_argv(a1, args, argv);
		if (err >= 0)
			err = process_spawn(path, argc, argv, 0, &p);
	}
	kfree(args);
	return err < 0 ? err : p->pid;
}

/* A process's children when it exits: those that exited already are
 * reaped now; the others become orphans that free themselves. Returns
 * whether the caller is an orphan itself. */
static bool exit_family(struct process *p)
{
	struct process *c, *n;
	LIST_HEAD(zombies);
	bool orphan;

	spin_lock(&process_lock);
	p->exited = true;
	list_for_each_entry_safe(c, n, &p->children, sibling) {
		list_del_init(&c->sibling);
		if (c->exited)
			list_add_tail(&c->sibling, &zombies);
		else
			c->orphan = true;
	}
	orphan = p->orphan;
	spin_unlock(&process_lock);
	list_for_each_entry_safe(c, n, &zombies, sibling)
		process_reap(c);
	return orphan;
}

__noreturn void process_exit(int status)
{
	struct task_struct *t = current;
	struct process *p = t->proc;

	/* From here the task switches as a kernel thread, on the kernel's
	 * page tables, so that its own can go. */
	preempt_disable();
	t->proc = 0;
	switch_pgd(paging_kernel_cr3());
	preempt_enable();
	mm_destroy(&p->mm);
	/* Nothing writes for p any more (t->proc is gone). */
	process_output_put(p->out);
	p->out = 0;
	if (exit_family(p)) {
		kthread_detach(t);
		process_release(p);
	}
	kthread_exit(status & (WAIT_KILLED | 0xff));
}

__noreturn void user_exception(unsigned vector, const char *fault,
			       uintptr_t ip, uintptr_t addr)
{
	struct process *p = current_process();

	if (!p)
		panic("user_exception: %s in a kernel thread", fault);
	printk("user fault: %s pid %d CPU %d: %s at RIP %#lx, address %#lx: "
	       "killed\n", p->name, p->pid, raw_smp_processor_id(), fault,
	       ip, addr);
	local_irq_enable();
	process_exit(WAIT_KILLED | vector);
}

void process_switch(struct task_struct *prev, struct task_struct *next)
{
	struct process *p = prev->proc, *n = next->proc;

	if (p) {
		p->rseq_event = true;
		if (task_is_running(prev))
			p->nr_preempted++;
		save_fpregs_to_fpstate(&p->fpu);
	}
	if (n) {
		/* Eager (fpu.c): the registers hold prev's state, or that of
		 * the last process that ran here; load next's in any case. */
		restore_fpregs_from_fpstate(&n->fpu);
		switch_pgd(n->mm.pgd);
		arch_set_kernel_stack((uintptr_t)next->stack + KSTACK_SIZE);
	} else {
		switch_pgd(paging_kernel_cr3());
	}
}
