/*
 * printk: format into a stack buffer, then write it to the console under
 * the console lock with interrupts off, so lines from different CPUs (and
 * from an interrupt on this CPU) never interleave. Each message is also
 * kept in log_buf, a ring a debugger reads (`dmesg` in scripts/kernel.gdb)
 * when the serial log is not at hand. In NMI context nothing goes to the
 * console: the text waits in a per-CPU buffer (below).
 */
#include "atomic.h"
#include "irqflags.h"
#include "printk.h"
#include "percpu.h"
#include "preempt.h"
#include "string.h"
#include "asm/serial.h"
#include "asm/spinlock.h"
#include "vsprintf.h"

#define PRINTK_BUF 512
#define NO_CPU 0xffffffffu

#define LOG_BUF_LEN (64 * 1024)

bool oops_in_progress;

/* The last LOG_BUF_LEN bytes printed: byte i of the output is at
 * log_buf[i % LOG_BUF_LEN]; log_next counts every byte ever printed.
 * Written under the console lock; log_next is also read without it
 * (printk_log_pos()), so its stores are WRITE_ONCE(). */
char log_buf[LOG_BUF_LEN];
unsigned long log_next;

static arch_spinlock_t console_spin = ARCH_SPIN_LOCK_UNLOCKED;
/* The CPU holding the console and its nesting depth; only the
 * holder writes them, so that an exception inside printk, or a report
 * printed inside console_lock(), nests instead of deadlocking. Every
 * CPU reads console_owner to learn whether it is the holder: only its
 * own number there can make the answer yes, and only it writes that,
 * so a stale value is never a wrong answer; READ_ONCE()/WRITE_ONCE()
 * keep each access whole. */
static uint32_t console_owner = NO_CPU;
static unsigned console_depth;

static bool console_spin_bounded(void)
{
	for (unsigned long i = 0; i < 100000000ul; i++) {
		if (arch_spin_trylock(&console_spin))
			return true;
		cpu_relax();
	}
	return false;
}

unsigned long console_lock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	/* Nothing to take: printk() in NMI context writes no console. */
	if (in_nmi())
		return flags;
	uint32_t me = raw_smp_processor_id();

	if (READ_ONCE(console_owner) == me) {
		console_depth++;
		return flags;
	}
	if (READ_ONCE(oops_in_progress)) {
		/* Give up the lock rather than the report. */
		if (!console_spin_bounded())
			console_spin = (arch_spinlock_t)ARCH_SPIN_LOCK_UNLOCKED;
	} else {
		arch_spin_lock(&console_spin);
	}
	WRITE_ONCE(console_owner, me);
	console_depth = 1;
	return flags;
}

void console_unlock(unsigned long flags)
{
	if (!in_nmi() && --console_depth == 0) {
		WRITE_ONCE(console_owner, NO_CPU);
		arch_spin_unlock(&console_spin);
	}
	local_irq_restore(flags);
}

/* Out to the console and into log_buf; the caller holds the console
 * (or is past caring: an oops in NMI context). */
static void console_write(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned long pos = log_next;

		log_buf[pos % LOG_BUF_LEN] = s[i];
		WRITE_ONCE(log_next, pos + 1);
		serial_putc(s[i]);
	}
}

/*
 * printk() in NMI context (a requested backtrace). An NMI can land on a
 * CPU between its taking console_spin and recording itself the owner, or
 * on one that holds the console while the NMI's sender waits for its
 * answer: a console lock taken there may never be had. So the text goes
 * to the CPU's nmi_log, and printk_nmi_flush() writes it out from
 * ordinary context: the CPU that asked for it, once answered, and the
 * tick for anything else. As Linux's printk_safe buffers did (before its
 * lockless ring buffer made printk itself NMI-safe).
 *
 * The only writer is the buffer's own CPU in NMI context (NMIs do not
 * nest); flushers are serialised by nmi_flush_lock. Both move len by
 * compare-and-swap: the writer copies its text past len and then claims
 * it, retrying at the new len if a flush emptied the buffer meanwhile; a
 * flusher prints [0, len) and empties the buffer only if len is still
 * what it printed up to, else it prints the rest and tries again.
 */
#define NMI_LOG_LEN 2048 /* a whole backtrace: 32 frames of ~60 bytes */

struct nmi_log {
	unsigned len;       /* bytes of buf claimed, not yet flushed */
	atomic_long_t lost; /* bytes dropped because buf was full */
	char buf[NMI_LOG_LEN];
};

/* Its protection is the compare-and-swap on len, which the per-CPU
 * checker cannot see: unchecked, reached with raw_*_ptr() only. */
static DEFINE_PER_CPU_UNCHECKED(struct nmi_log, nmi_log);
static arch_spinlock_t nmi_flush_lock = ARCH_SPIN_LOCK_UNLOCKED;

static void nmi_log_store(const char *s, unsigned n)
{
	struct nmi_log *l = raw_cpu_ptr(&nmi_log);
	unsigned len = smp_load_acquire(&l->len);

	do {
		if (n > NMI_LOG_LEN - len) {
			atomic_long_add(n, &l->lost);
			return;
		}
		memcpy(l->buf + len, s, n);
		/* try_cmpxchg() is fully ordered: the text is in place before
		 * the length that covers it (the release a flusher's acquire
		 * pairs with); a failure reloads len, as a flush emptied. */
	} while (!try_cmpxchg(&l->len, &len, len + n));
}

/* Print cpu's buffered NMI text; the caller holds nmi_flush_lock. */
static void nmi_log_flush_locked(int cpu)
{
	struct nmi_log *l = raw_per_cpu_ptr(&nmi_log, cpu);
	unsigned printed = 0, len;
	unsigned long lost, flags = console_lock();

	/* Acquire: the text [0, len) the writer's cmpxchg published. */
	len = smp_load_acquire(&l->len);
	while (len) {
		console_write(l->buf + printed, len - printed);
		printed = len;
		/* Empty only if nothing was added since; else len is now the
		 * new length (acquire, as above), and the rest is printed. */
		if (try_cmpxchg(&l->len, &len, 0))
			break;
	}
	console_unlock(flags);
	lost = atomic_long_xchg(&l->lost, 0);
	if (lost)
		printk("printk: %lu byte(s) printed in NMI context on CPU %d "
		       "were lost (the buffer was full)\n", lost, cpu);
}

static bool nmi_log_empty(int cpu)
{
	const struct nmi_log *l = raw_per_cpu_ptr(&nmi_log, cpu);

	return !smp_load_acquire(&l->len) && !atomic_long_read(&l->lost);
}

void printk_nmi_flush_cpu(int cpu)
{
	unsigned long flags;

	if (nmi_log_empty(cpu))
		return;
	local_irq_save(flags);
	arch_spin_lock(&nmi_flush_lock);
	nmi_log_flush_locked(cpu);
	arch_spin_unlock(&nmi_flush_lock);
	local_irq_restore(flags);
}

void printk_nmi_flush(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		printk_nmi_flush_cpu(cpu);
}

unsigned printk_nmi_pending(int cpu)
{
	return smp_load_acquire(&raw_per_cpu_ptr(&nmi_log, cpu)->len);
}

unsigned long printk_log_pos(void)
{
	return READ_ONCE(log_next);
}

bool printk_log_contains(unsigned long since, const char *s)
{
	unsigned long end = READ_ONCE(log_next), n = strlen(s);

	/* What log_buf no longer holds cannot be searched. */
	if (end - since > LOG_BUF_LEN)
		since = end - LOG_BUF_LEN;
	for (unsigned long at = since; at + n <= end; at++) {
		unsigned long i = 0;

		while (i < n && log_buf[(at + i) % LOG_BUF_LEN] == s[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[PRINTK_BUF];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	unsigned long flags;

	/* A cut line still ends its line, so the next one starts clean. */
	if (n >= (int)sizeof(buf))
		buf[sizeof(buf) - 2] = '\n';
	if (in_nmi() && !READ_ONCE(oops_in_progress)) {
		nmi_log_store(buf, strlen(buf));
		return n;
	}
	/* Out now, and in NMI context (an oops there) with no lock. */
	flags = console_lock();
	console_write(buf, strlen(buf));
	console_unlock(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void vprintk_line(const char *prefix, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printk("%s%s\n", prefix, buf);
}
