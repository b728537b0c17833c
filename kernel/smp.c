/*
 * The set of CPUs, cross-CPU function calls, and stopping the other CPUs
 * when one panics.
 *
 * A cross-CPU call is a small request (struct call_data) queued on the
 * target CPU's call queue, followed by an IPI; the target's interrupt
 * handler runs every queued request. A waiting caller spins on the
 * request's done flag, so its request can live on its stack.
 */
#include "smp.h"
#include "irq_work.h"
#include "mm/kmalloc.h"
#include "panic.h"
#include "percpu.h"
#include "preempt.h"
#include "printk.h"
#include "sched/sched.h"
#include "asm/smp.h"
#include "asm/stacktrace.h"
#include "locking/spinlock.h"

struct call_data {
	struct call_data *next;
	smp_call_func_t fn;
	void *arg;
	bool free_after;   /* allocated by a caller that does not wait */
	volatile bool done;
};

/* A CPU's pending calls; any CPU adds under the lock, the owner empties
 * it from its call-function interrupt. Reached with the unchecked raw_*
 * accessors: the lock inside is what protects it. */
struct call_queue {
	raw_spinlock_t lock;
	struct call_data *head;
	struct call_data **tail;
};

/* Where a CPU was when the stop NMI caught it, for the panic report: the
 * NMI's saved context, which stays in place since the CPU never returns
 * from that NMI (and takes no other until it would). Used from NMIs and
 * the panic path, unchecked (raw_*_ptr). */
struct stop_state {
	const struct trap_frame *regs;
	volatile bool stopped;
};

cpumask_t __cpu_online_mask, __cpu_possible_mask;
int nr_cpu_ids = 1;
static volatile unsigned nr_online;

static DEFINE_PER_CPU(struct call_queue, call_queue);
static DEFINE_PER_CPU(struct stop_state, stop_state);
DEFINE_PER_CPU_STAT(unsigned long, resched_ipi_count);

static cpumask_t cpu_bit_masks[NR_CPUS];

const cpumask_t *cpumask_of(int cpu)
{
	return &cpu_bit_masks[cpu];
}

unsigned num_online_cpus(void)
{
	return nr_online;
}

void set_cpu_possible(int cpu)
{
	cpumask_set_cpu(cpu, &__cpu_possible_mask);
	cpumask_set_cpu(cpu, &cpu_bit_masks[cpu]);
	if (cpu >= nr_cpu_ids)
		nr_cpu_ids = cpu + 1;
}

void set_cpu_online(int cpu)
{
	struct call_queue *q = raw_per_cpu_ptr(&call_queue, cpu);

	raw_spin_lock_init(&q->lock);
	q->head = 0;
	q->tail = &q->head;
	/* Everything this CPU set up before is seen by whoever sees it
	 * online (the boot CPU waits for that in smp_boot_cpus()). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	cpumask_set_cpu(cpu, &__cpu_online_mask);
	__atomic_fetch_add(&nr_online, 1, __ATOMIC_SEQ_CST);
}

static void call_enqueue(int cpu, struct call_data *cd)
{
	struct call_queue *q = raw_per_cpu_ptr(&call_queue, cpu);
	unsigned long flags;

	lockdep_hb_release(cd); /* the caller's work happens before fn's */
	raw_spin_lock_irqsave(&q->lock, flags);
	cd->next = 0;
	*q->tail = cd;
	q->tail = &cd->next;
	raw_spin_unlock_irqrestore(&q->lock, flags);
	arch_send_ipi(cpu, IPI_CALL_FUNCTION);
}

static void call_wait(struct call_data *cd)
{
	while (!__atomic_load_n(&cd->done, __ATOMIC_ACQUIRE))
		cpu_relax();
	lockdep_hb_acquire(cd); /* fn's work happens before our return */
}

static void call_run_local(smp_call_func_t fn, void *arg)
{
	unsigned long flags;

	local_irq_save(flags);
	fn(arg);
	local_irq_restore(flags);
}

int smp_call_function_single(int cpu, smp_call_func_t fn, void *arg,
			     bool wait)
{
	struct call_data on_stack = {.fn = fn, .arg = arg};
	struct call_data *cd = &on_stack;
	int ret = 0;

	preempt_disable(); /* "this CPU" must stay this CPU */
	if (cpu == raw_smp_processor_id()) {
		call_run_local(fn, arg);
		goto out;
	}
	ret = -1;
	if (cpu < 0 || cpu >= NR_CPUS || !cpu_online(cpu))
		goto out;
	ret = 0;
	/* Two CPUs waiting on each other with interrupts off never finish. */
	WARN_ON(wait && irqs_disabled());
	if (!wait) {
		cd = kmalloc(sizeof(*cd));
		if (!cd)
			panic("smp_call_function_single: out of memory");
		*cd = (struct call_data){.fn = fn, .arg = arg, .free_after = true};
	}
	call_enqueue(cpu, cd);
	if (wait)
		call_wait(cd);
out:
	preempt_enable();
	return ret;
}

void smp_call_function_many(const cpumask_t *mask, smp_call_func_t fn,
			    void *arg, bool wait)
{
	int self, cpu, n = 0;
	struct call_data *cds = 0;

	WARN_ON(wait && irqs_disabled());
	if (wait && !(cds = kmalloc(sizeof(*cds) * nr_cpu_ids)))
		panic("smp_call_function_many: out of memory");
	preempt_disable();
	self = raw_smp_processor_id();
	for_each_cpu(cpu, mask) {
		if (cpu == self || !cpu_online(cpu))
			continue;
		if (!wait) {
			smp_call_function_single(cpu, fn, arg, false);
			continue;
		}
		cds[n] = (struct call_data){.fn = fn, .arg = arg};
		call_enqueue(cpu, &cds[n++]);
	}
	for (int i = 0; i < n; i++)
		call_wait(&cds[i]);
	preempt_enable();
	kfree(cds);
}

void smp_call_function_interrupt(void)
{
	struct call_queue *q = raw_cpu_ptr(&call_queue);
	struct call_data *cd, *next;

	raw_spin_lock(&q->lock);
	cd = q->head;
	q->head = 0;
	q->tail = &q->head;
	raw_spin_unlock(&q->lock);
	for (; cd; cd = next) {
		next = cd->next; /* cd may be gone once done is set */
		lockdep_hb_acquire(cd);
		cd->fn(cd->arg);
		if (cd->free_after) {
			kfree(cd);
		} else {
			lockdep_hb_release(cd);
			__atomic_store_n(&cd->done, true, __ATOMIC_RELEASE);
		}
	}
}

/* The flag that asks for the reschedule is already set (resched_curr):
 * the interrupt's only job is to get to the preemption check on return. */
void scheduler_ipi(void)
{
	this_cpu_inc(resched_ipi_count);
}

/*
 * NMIs carry two requests: show where you are (trigger_all_cpu_backtrace,
 * for the test runner's timeout report) and stop for good (panic). An NMI
 * gets through with interrupts off, so a CPU spinning with them off still
 * answers.
 */
enum nmi_request { NMI_NONE, NMI_BACKTRACE, NMI_STOP };
static DEFINE_PER_CPU(int, nmi_request);

static void nmi_backtrace(const struct trap_frame *regs)
{
	struct task *t = this_cpu_read(current_task);

	printk("NMI backtrace for CPU %d (running %s):\n",
	       raw_smp_processor_id(), t ? t->name : "-");
	show_stack_regs(regs);
}

void smp_nmi_interrupt(const struct trap_frame *regs)
{
	struct stop_state *s = raw_cpu_ptr(&stop_state);
	int req = __atomic_exchange_n(raw_cpu_ptr(&nmi_request), NMI_NONE,
				      __ATOMIC_ACQ_REL);

	if (req == NMI_BACKTRACE) {
		nmi_backtrace(regs);
		__atomic_store_n(&s->stopped, true, __ATOMIC_RELEASE);
		return;
	}
	if (req != NMI_STOP) {
		printk("NMI on CPU %d with no request; ignored\n",
		       raw_smp_processor_id());
		return;
	}
	s->regs = regs;
	__atomic_store_n(&s->stopped, true, __ATOMIC_RELEASE);
	for (;;) {
		local_irq_disable();
		halt();
	}
}

/* Send req to every other online CPU and wait (bounded) for each to
 * answer through its stop_state. */
static void nmi_others(int req)
{
	int self = raw_smp_processor_id(), cpu;

	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		raw_per_cpu_ptr(&stop_state, cpu)->stopped = false;
		__atomic_store_n(raw_per_cpu_ptr(&nmi_request, cpu), req,
				 __ATOMIC_RELEASE);
		arch_send_ipi(cpu, IPI_STOP);
	}
	for_each_online_cpu(cpu) {
		for (long i = 0; i < 20000000 && cpu != self &&
				 !raw_per_cpu_ptr(&stop_state, cpu)->stopped; i++)
			cpu_relax();
	}
}

void trigger_all_cpu_backtrace(void)
{
	preempt_disable();
	printk("NMI backtrace for CPU %d (running %s, the requester):\n",
	       raw_smp_processor_id(), current->name);
	dump_stack();
	nmi_others(NMI_BACKTRACE);
	preempt_enable();
}

static void show_stopped_cpu(int cpu)
{
	struct stop_state *s = raw_per_cpu_ptr(&stop_state, cpu);

	if (!s->stopped) {
		printk("CPU %d: did not answer the stop NMI\n", cpu);
		return;
	}
	printk("CPU %d: stopped at ", cpu);
	show_stack_regs(s->regs);
}

/* panic_stop_other_cpus: stop every other online CPU, then say where each
 * one was. */
static void smp_send_stop(void)
{
	int self = raw_smp_processor_id(), cpu;

	nmi_others(NMI_STOP);
	printk("Panic on CPU %d; the other CPUs:\n", self);
	for_each_online_cpu(cpu)
		if (cpu != self)
			show_stopped_cpu(cpu);
}

/* The boot CPU, before any other starts: it joins the online set, and
 * the IPIs and the stop NMI get their handlers. */
void smp_prepare_boot_cpu(void)
{
	set_cpu_online(0);
	arch_set_ipi_handler(IPI_RESCHEDULE, scheduler_ipi);
	arch_set_ipi_handler(IPI_CALL_FUNCTION, smp_call_function_interrupt);
	arch_set_ipi_handler(IPI_IRQ_WORK, irq_work_run);
	arch_set_nmi_handler(smp_nmi_interrupt);
	panic_stop_other_cpus = smp_send_stop;
}
