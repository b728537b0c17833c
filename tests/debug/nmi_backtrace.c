/*
 * Backtraces asked for over an NMI (kernel/smp.c, kernel/printk.c): the
 * CPU that takes the NMI writes nothing to the console, whose lock it may
 * have interrupted; its text waits in its printk buffer until the CPU
 * that asked has its answer and prints it from ordinary context.
 */
#include "ktest_util.h"
#include "printk.h"

struct console_holder {
	int cpu;
	volatile int holding;    /* the console lock is held */
	unsigned long pos_held;  /* the console's position once held */
	unsigned long pos_after; /* ... when the NMI's text had come */
	unsigned buffered;       /* bytes the NMI left in the buffer */
};

/*
 * Hold the console (interrupts off) until the backtrace NMI has left its
 * text in this CPU's buffer, or the cap. While it is held no other CPU
 * prints, so a console position that moved is the NMI printing through
 * the lock its own CPU holds.
 */
static int hold_console(void *arg)
{
	struct console_holder *h = arg;
	unsigned long flags = console_lock();

	h->pos_held = printk_log_pos();
	store_int(&h->holding, 1);
	/* Bounded: with the console held, nothing could report a hang. */
	ktest_poll_until(printk_nmi_pending(h->cpu) > 0, KTEST_WAIT_MS,
			 POLL_SPIN);
	h->buffered = printk_nmi_pending(h->cpu);
	h->pos_after = printk_log_pos();
	console_unlock(flags);
	return 0;
}

/*
 * The requester sends the NMI while the target holds the console: the
 * target's text is buffered, not printed, and comes out once the
 * target lets go. The requester waits with interrupts off, so that its
 * own tick (which prints, e.g. the NMIs tests/host/nmi.sh injects)
 * cannot stall on the held console before the request is sent.
 */
KTEST_CPUS(nmi, backtrace_text_waits_out_of_nmi, 2)
{
	struct console_holder h = {.cpu = last_cpu()};
	struct task_struct *t = kthread_create(hold_console, &h, "console-holder");
	unsigned long flags;
	bool held, answered = false;

	KASSERT_TRUE(t);
	kthread_bind(t, h.cpu);
	wake_up_process(t);
	local_irq_save(flags);
	held = ktest_poll_until(load_int(&h.holding), KTEST_WAIT_MS, POLL_SPIN);
	if (held)
		answered = trigger_single_cpu_backtrace(h.cpu);
	local_irq_restore(flags);
	KEXPECT_TRUE(held);
	KEXPECT_TRUE(answered);
	KEXPECT_EQ(kthread_join(t), 0);
	KEXPECT_GT(h.buffered, 0);
	KEXPECT_EQ(h.pos_after, h.pos_held);
	KEXPECT_EQ(printk_nmi_pending(h.cpu), 0);
	KEXPECT_GE(printk_log_pos() - h.pos_after, (unsigned long)h.buffered);
}

/* Every CPU answers a backtrace request, and all of their text is out
 * when trigger_all_cpu_backtrace() returns. */
KTEST_CPUS(nmi, all_cpu_backtrace_flushed, 2)
{
	unsigned long before = printk_log_pos();
	int cpu;

	trigger_all_cpu_backtrace();
	for_each_online_cpu(cpu)
		KEXPECT_EQ(printk_nmi_pending(cpu), 0);
	/* At least a header line and a call trace from each CPU. */
	KEXPECT_GT(printk_log_pos() - before, 64ul * num_online_cpus());
	KEXPECT_FALSE(trigger_single_cpu_backtrace(-1));
	KEXPECT_FALSE(trigger_single_cpu_backtrace(NR_CPUS));
}
