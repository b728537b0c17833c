/*
 * The set of CPUs, cross-CPU function calls, and stopping the other CPUs
 * when one panics.
 *
 * A cross-CPU call is a small request (struct call_single_data, "csd" as
 * in Linux) queued on the target CPU's call queue, followed by an IPI; the
 * target's interrupt handler runs every queued request. Making a call
 * allocates nothing, so it works when memory is exhausted (the kernel
 * stack drain flushes TLBs through it, kernel/mm/stack.c): a waiting
 * caller's request lives on its stack, and every other request is one of
 * the calling CPU's own, preallocated: one in per-CPU data for
 * smp_call_function_single() without wait (csd_data), and one per target
 * CPU for smp_call_function_many() (cfd_data, allocated at boot).
 *
 * A preallocated request is reused, so it carries a lock (CSD_FLAG_LOCK):
 * set by the caller that fills it, cleared by the target once it no
 * longer needs it. A caller first waits for the previous use of the
 * request to finish (csd_lock_wait()), as Linux's csd_lock() does.
 *
 * A CPU that goes offline closes its queue and runs what is left in it
 * (smpcfd_dying_cpu): a request is either run on its CPU or refused at
 * once, never left waiting in the queue of a CPU that has gone.
 */
#include "smp.h"
#include "atomic.h"
#include "irq_work.h"
#include "panic.h"
#include "percpu.h"
#include "preempt.h"
#include "printk.h"
#include "ratelimit.h"
#include "sched/sched.h"
#include "asm/ptrace.h"
#include "asm/smp.h"
#include "asm/stacktrace.h"
#include "locking/spinlock.h"
#include "mm/kmalloc.h"

enum {
	CSD_FLAG_LOCK = 1, /* in use: queued, or running fn */
	CSD_FLAG_SYNC = 2, /* the caller waits: unlock only after fn */
};

struct call_single_data {
	struct call_single_data *next;
	smp_call_func_t fn;
	void *arg;
	unsigned int flags;
};

/* smp_call_function_many()'s requests, one per possible target CPU:
 * nr_cpu_ids of them, allocated at boot (smp_prepare_boot_cpu()) rather
 * than NR_CPUS in the per-CPU area, which would make every CPU's area
 * grow with the most CPUs the kernel could number (16 KiB at 512). */
struct call_function_data {
	struct call_single_data *csd;
};

/* A CPU's pending calls; any CPU adds under the lock, the owner empties
 * it from its call-function interrupt. Reached with the unchecked raw_*
 * accessors: the lock inside is what protects it. closed: the CPU is not
 * (or no longer) taking calls; set and read under the lock, so a caller
 * that queued saw it open and the CPU's last flush runs the request. */
struct call_queue {
	raw_spinlock_t lock;
	struct call_single_data *head;
	struct call_single_data **tail;
	bool closed;
};

/* Where a CPU was when the stop NMI caught it, for the panic report: the
 * NMI's saved context, which stays in place since the CPU never returns
 * from that NMI (and takes no other until it would). Used from NMIs and
 * the panic path, unchecked (raw_*_ptr). `stopped` is the answer: a
 * release store by the CPU once regs (and its printk text) are in
 * place, polled with acquire loads by the CPU that asked. */
struct stop_state {
	const struct trap_frame *regs;
	bool stopped;
};

cpumask_t __cpu_online_mask, __cpu_possible_mask, __cpu_active_mask;
int nr_cpu_ids = 1;

static DEFINE_PER_CPU_UNCHECKED(struct call_queue, call_queue);
/* This CPU's own requests, used with preemption off by whoever runs here
 * (never an interrupt handler: calls need interrupts on), and released
 * by their target CPU: the csd lock protects them, unchecked. */
static DEFINE_PER_CPU_UNCHECKED(struct call_single_data, csd_data);
static DEFINE_PER_CPU_UNCHECKED(struct call_function_data, cfd_data);
static DEFINE_PER_CPU(struct stop_state, stop_state);
DEFINE_PER_CPU_STAT(unsigned long, resched_ipi_count);

static cpumask_t cpu_bit_masks[NR_CPUS];

const cpumask_t *cpumask_of(int cpu)
{
	return &cpu_bit_masks[cpu];
}

unsigned num_online_cpus(void)
{
	return cpumask_weight(cpu_online_mask);
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
	/* Everything this CPU set up before is seen by whoever sees it
	 * online (the CPU that started it waits for that, kernel/cpu.c):
	 * set_bit() orders nothing by itself. */
	smp_mb__before_atomic();
	cpumask_set_cpu(cpu, &__cpu_online_mask);
}

void set_cpu_offline(int cpu)
{
	/* Gone from the mask before anything this CPU does next (its
	 * DYING callbacks) is seen: whoever sees that sees it offline. */
	cpumask_clear_cpu(cpu, &__cpu_online_mask);
	smp_mb__after_atomic();
}

void set_cpu_active(int cpu, bool active)
{
	if (active)
		cpumask_set_cpu(cpu, &__cpu_active_mask);
	else
		cpumask_clear_cpu(cpu, &__cpu_active_mask);
	/* The new mask before the caller's next step (moving tasks off, or
	 * letting them on): a full barrier, as clear_bit() orders nothing. */
	smp_mb__after_atomic();
}

/* Wait for the previous use of csd to end. Its target may be waiting
 * for us with interrupts on, never off (callers have them on), so this
 * ends once that CPU takes its IPI. */
static void csd_lock_wait(struct call_single_data *csd)
{
	/* Acquire: what fn did (and a waited-for caller's results) before
	 * the target's release in csd_unlock(). */
	smp_cond_load_acquire(&csd->flags, !(VAL & CSD_FLAG_LOCK));
	lockdep_hb_acquire(csd); /* fn's work happens before our return */
}

/* Take csd for a new call. Preemption is off and no interrupt handler
 * makes calls, so nothing else on this CPU can take it between the wait
 * and the store. */
static void csd_lock(struct call_single_data *csd, smp_call_func_t fn,
		     void *arg, bool wait)
{
	csd_lock_wait(csd);
	csd->fn = fn;
	csd->arg = arg;
	csd->flags = CSD_FLAG_LOCK | (wait ? CSD_FLAG_SYNC : 0);
}

static void csd_unlock(struct call_single_data *csd)
{
	lockdep_hb_release(csd);
	/* Release: fn's work before the caller may reuse csd. */
	smp_store_release(&csd->flags, 0);
}

/* Queue csd on cpu and send the IPI; false (nothing queued, csd unlocked)
 * when the CPU has closed its queue on its way offline. */
static bool call_enqueue(int cpu, struct call_single_data *csd)
{
	struct call_queue *q = raw_per_cpu_ptr(&call_queue, cpu);
	unsigned long flags;
	bool open;

	lockdep_hb_release(csd); /* the caller's work happens before fn's */
	raw_spin_lock_irqsave(&q->lock, flags);
	open = !q->closed;
	if (open) {
		csd->next = 0;
		*q->tail = csd;
		q->tail = &csd->next;
	}
	raw_spin_unlock_irqrestore(&q->lock, flags);
	if (open)
		arch_send_ipi(cpu, IPI_CALL_FUNCTION);
	else
		csd_unlock(csd);
	return open;
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
	struct call_single_data on_stack, *csd = &on_stack;
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
	/* Two CPUs waiting on each other with interrupts off never finish,
	 * and this CPU's own requests are not reentrant. */
	WARN_ON(irqs_disabled());
	if (!wait)
		csd = raw_cpu_ptr(&csd_data);
	else
		on_stack.flags = 0;
	csd_lock(csd, fn, arg, wait);
	if (!call_enqueue(cpu, csd))
		ret = -1; /* it went offline since we looked */
	else if (wait)
		csd_lock_wait(csd);
out:
	preempt_enable();
	return ret;
}

void smp_call_function_many(const cpumask_t *mask, smp_call_func_t fn,
			    void *arg, bool wait)
{
	struct call_function_data *cfd;
	int self, cpu;

	WARN_ON(irqs_disabled());
	preempt_disable();
	self = raw_smp_processor_id();
	cfd = raw_cpu_ptr(&cfd_data);
	for_each_cpu(cpu, mask) {
		if (cpu == self || !cpu_online(cpu))
			continue; /* every online CPU is below nr_cpu_ids */
		csd_lock(&cfd->csd[cpu], fn, arg, wait);
		call_enqueue(cpu, &cfd->csd[cpu]);
	}
	/* A refused request was unlocked at once: waiting on every CPU of
	 * the mask covers exactly those that took it. */
	if (wait)
		for_each_cpu(cpu, mask)
			if (cpu != self && cpu < nr_cpu_ids)
				csd_lock_wait(&cfd->csd[cpu]);
	preempt_enable();
}

/* Take this CPU's queued calls, and close the queue if asked. */
static struct call_single_data *call_take_all(bool close)
{
	struct call_queue *q = raw_cpu_ptr(&call_queue);
	struct call_single_data *cd;

	raw_spin_lock(&q->lock);
	cd = q->head;
	q->head = 0;
	q->tail = &q->head;
	if (close)
		q->closed = true;
	raw_spin_unlock(&q->lock);
	return cd;
}

/* Run a list of requests. A request the caller does not wait for is
 * released before fn runs (fn and arg copied out), as in Linux, so that
 * its owner can queue the next one at once; a waited-for one after. */
static void call_run_list(struct call_single_data *csd)
{
	struct call_single_data *next;

	for (; csd; csd = next) {
		smp_call_func_t fn = csd->fn;
		void *arg = csd->arg;

		next = csd->next; /* csd may be reused once unlocked */
		lockdep_hb_acquire(csd);
		if (csd->flags & CSD_FLAG_SYNC) {
			fn(arg);
			csd_unlock(csd);
		} else {
			csd_unlock(csd);
			fn(arg);
		}
	}
}

void smp_call_function_interrupt(void)
{
	call_run_list(call_take_all(false));
}

/* Hotplug (kernel/cpu.c): before cpu starts, its queue opens; the CPU
 * itself closes it on its way out, interrupts off, and runs what was
 * queued as its interrupt handler would have. */
int smpcfd_prepare_cpu(unsigned int cpu)
{
	struct call_queue *q = raw_per_cpu_ptr(&call_queue, cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&q->lock, flags);
	q->closed = false;
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}

int smpcfd_dying_cpu(unsigned int cpu)
{
	irq_enter();
	call_run_list(call_take_all(true));
	irq_exit();
	return 0;
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
/* A CPU's mailbox for the NMI it is sent: written by the asker with a
 * release store (after its stop_state reset), taken by the CPU's NMI
 * handler with one xchg. Its protection is those atomics, which the
 * checker cannot see: unchecked, reached with raw_*_ptr() only. */
enum nmi_request { NMI_NONE, NMI_BACKTRACE, NMI_STOP };
static DEFINE_PER_CPU_UNCHECKED(int, nmi_request);

/*
 * Any other NMI (a watchdog, the QEMU monitor's nmi, a stray one) is
 * counted and ignored, never printed from NMI context: the NMI may have
 * interrupted this very CPU inside printk(), between taking the console
 * lock and marking itself its owner, and would spin on it for ever. The
 * tick reports the count later, from ordinary interrupt context
 * (nmi_report_deferred()), as Linux's printk defers what an NMI prints.
 */
static DEFINE_PER_CPU_STAT(unsigned long, nmi_unexpected);
static DEFINE_PER_CPU_STAT(unsigned long, nmi_unexpected_user);
static DEFINE_PER_CPU(unsigned long, nmi_reported); /* by the tick */
static DEFINE_PER_CPU(unsigned long, nmi_report_tried); /* count last seen */
static unsigned long early_nmis_reported;            /* CPU 0's tick */
/* NMIs injected every few milliseconds (QEMU's monitor, a watchdog) would
 * make a line per tick on every CPU: Linux rate-limits its "Uhhuh. NMI
 * received for unknown reason" the same way. A report held back is not
 * lost: the next one printed on that CPU counts it. */
static DEFINE_RATELIMIT_STATE(nmi_report_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

static void nmi_backtrace(const struct trap_frame *regs)
{
	struct task_struct *t = this_cpu_read(current_task);

	printk("NMI backtrace for CPU %d (running %s%s):\n",
	       raw_smp_processor_id(), t ? t->comm : "-",
	       user_mode(regs) ? ", in user mode" : "");
	show_stack_regs(regs);
}

void smp_nmi_interrupt(const struct trap_frame *regs)
{
	struct stop_state *s = raw_cpu_ptr(&stop_state);
	int req = xchg(raw_cpu_ptr(&nmi_request), NMI_NONE);

	if (req == NMI_BACKTRACE) {
		nmi_backtrace(regs);
		smp_store_release(&s->stopped, true);
		return;
	}
	if (req != NMI_STOP) {
		raw_cpu_inc(nmi_unexpected);
		if (user_mode(regs))
			raw_cpu_inc(nmi_unexpected_user);
		return;
	}
	s->regs = regs;
	smp_store_release(&s->stopped, true);
	for (;;) {
		local_irq_disable();
		halt();
	}
}

void nmi_report_deferred(void)
{
	unsigned long n = raw_cpu_read(nmi_unexpected);
	unsigned long seen = __this_cpu_read(nmi_reported), early;
	int cpu = raw_smp_processor_id();

	/* Whatever NMI context printed here that no requester took. */
	printk_nmi_flush_cpu(cpu);
	/* One report per tick that finds new NMIs, if the limit lets it
	 * through (only those count as held back). */
	if (n != __this_cpu_read(nmi_report_tried)) {
		__this_cpu_write(nmi_report_tried, n);
		if (__ratelimit(&nmi_report_rs)) {
			__this_cpu_write(nmi_reported, n);
			printk("NMI: %lu unexpected NMI(s) on CPU %d (%lu in "
			       "user mode since boot); ignored\n", n - seen,
			       cpu, raw_cpu_read(nmi_unexpected_user));
		}
	}
	early = arch_nmis_before_handler();
	if (cpu == 0 && early != early_nmis_reported) {
		printk("NMI: %lu NMI(s) before the NMI handler was set; "
		       "ignored\n", early - early_nmis_reported);
		early_nmis_reported = early;
	}
}

unsigned long nmi_unexpected_count(int cpu, bool user_only)
{
	return user_only ? *raw_per_cpu_ptr(&nmi_unexpected_user, cpu)
			 : *raw_per_cpu_ptr(&nmi_unexpected, cpu);
}

/* Ask cpu for req over an NMI; it answers through its stop_state. */
static void nmi_request_cpu(int cpu, int req)
{
	WRITE_ONCE(raw_per_cpu_ptr(&stop_state, cpu)->stopped, false);
	smp_store_release(raw_per_cpu_ptr(&nmi_request, cpu), req);
	arch_send_ipi(cpu, IPI_STOP);
}

/* Wait (bounded: it may never answer) for cpu's answer. */
static bool nmi_answered(int cpu)
{
	for (long i = 0; i < 20000000; i++) {
		if (smp_load_acquire(&raw_per_cpu_ptr(&stop_state, cpu)->stopped))
			return true;
		cpu_relax();
	}
	return false;
}

/* Send req to every other online CPU and wait for each to answer. */
static void nmi_others(int req)
{
	int self = raw_smp_processor_id(), cpu;

	for_each_online_cpu(cpu)
		if (cpu != self)
			nmi_request_cpu(cpu, req);
	for_each_online_cpu(cpu)
		if (cpu != self)
			nmi_answered(cpu);
}

/* The requester's own stack, printed directly (preemption off). */
static void backtrace_self(void)
{
	printk("NMI backtrace for CPU %d (running %s, the requester):\n",
	       raw_smp_processor_id(), current->comm);
	dump_stack();
}

/* The others print from NMI context into their printk buffers; their
 * text comes out here, once they have answered, in CPU order. */
void trigger_all_cpu_backtrace(void)
{
	preempt_disable();
	backtrace_self();
	nmi_others(NMI_BACKTRACE);
	printk_nmi_flush();
	preempt_enable();
}

bool trigger_single_cpu_backtrace(int cpu)
{
	bool answered = true;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return false;
	preempt_disable();
	if (cpu == raw_smp_processor_id()) {
		backtrace_self();
	} else {
		nmi_request_cpu(cpu, NMI_BACKTRACE);
		answered = nmi_answered(cpu);
		printk_nmi_flush_cpu(cpu);
		if (!answered)
			printk("CPU %d: did not answer the backtrace NMI\n", cpu);
	}
	preempt_enable();
	return answered;
}

static void show_stopped_cpu(int cpu)
{
	struct stop_state *s = raw_per_cpu_ptr(&stop_state, cpu);

	if (!smp_load_acquire(&s->stopped)) {
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
	int cpu;

	for_each_possible_cpu(cpu) {
		struct call_queue *q = raw_per_cpu_ptr(&call_queue, cpu);
		struct call_function_data *cfd = raw_per_cpu_ptr(&cfd_data, cpu);

		cfd->csd = kzalloc(nr_cpu_ids * sizeof(*cfd->csd));
		if (!cfd->csd)
			panic("smp: no memory for CPU %d's %d call requests", cpu,
			      nr_cpu_ids);
		raw_spin_lock_init(&q->lock);
		q->tail = &q->head;
		q->closed = true;
	}
	smpcfd_prepare_cpu(0);
	set_cpu_online(0);
	set_cpu_active(0, true);
	arch_set_ipi_handler(IPI_RESCHEDULE, scheduler_ipi);
	arch_set_ipi_handler(IPI_CALL_FUNCTION, smp_call_function_interrupt);
	arch_set_ipi_handler(IPI_IRQ_WORK, irq_work_run);
	arch_set_nmi_handler(smp_nmi_interrupt);
	panic_stop_other_cpus = smp_send_stop;
}
