/*
 * The scheduler trace (trace.h): one array of events per CPU, filled in
 * order and never overwritten (a full one counts what it drops), so that
 * a dump is a consistent history from trace_start() on: every task a
 * switch puts on a CPU is the one the next switch there takes off.
 *
 * A writer runs on its own CPU with interrupts off, fills the entry and
 * only then publishes it by advancing count (release); the dump reads
 * count (acquire) and the entries below it, so a write still in flight on
 * another CPU is simply not seen. trace_start() empties a ring only once
 * no writer is inside it (busy), so a late write cannot land in a fresh
 * ring with an old index.
 *
 * A trace starts at any moment, perhaps while some CPU is inside an
 * interrupt handler: that interrupt's exit is left out (irq_gen), so an
 * irq_exit in a dump always closes an irq_entry before it.
 */
#include "trace/trace.h"
#include "atomic.h"
#include "mm/kmalloc.h"
#include "percpu.h"
#include "printk.h"
#include "sched/sched.h"
#include "smp.h"
#include "string.h"
#include "time/time.h"

struct trace_buf {
	struct trace_entry *entries;
	unsigned int size;           /* entries allocated */
	unsigned int count;          /* entries published */
	unsigned long dropped;
	int busy;                    /* a writer is between its trace_on
	                              * check and its publish; this CPU sets
	                              * it, trace_start() waits for 0 */
	unsigned long irq_gen;       /* trace_gen when this CPU's current
	                              * interrupt's entry was recorded, else
	                              * 0; this CPU only */
};

/* Reached with raw_cpu_ptr: each CPU writes only its own, interrupts off;
 * readers go through count's release/acquire. */
static DEFINE_PER_CPU(struct trace_buf, trace_bufs);
bool trace_on;
DEFINE_STATIC_KEY_FALSE(trace_migrate_key);
/* Counts trace_start() calls: tells this trace's irq entries from one
 * recorded before the rings were emptied. */
static atomic_long_t trace_gen;

static const char *const type_names[TRACE_NR_TYPES] = {
	"switch", "wakeup", "migrate", "migrate_disable", "migrate_enable",
	"lock_contended", "lock_acquired", "lock_released", "irq_entry",
	"irq_exit",
};

/* Whether an interrupt event belongs in the trace; records the entry of
 * the interrupt now being handled (interrupts off, one per CPU). */
static bool irq_event_wanted(struct trace_buf *tb, enum trace_type type,
			     unsigned long gen)
{
	if (type == TRACE_IRQ_ENTRY) {
		tb->irq_gen = gen;
	} else if (type == TRACE_IRQ_EXIT) {
		bool entered = tb->irq_gen == gen;

		tb->irq_gen = 0;
		return entered;
	}
	return true;
}

void __trace_event(enum trace_type type, uint64_t a, uint64_t b,
		   const char *name, int state)
{
	struct trace_buf *tb;
	struct trace_entry *e;
	unsigned long flags;
	struct task_struct *t = current;

	local_irq_save(flags);
	tb = raw_cpu_ptr(&trace_bufs);
	/* Dekker with trace_stop() and trace_start(): a store, then a load
	 * of another location, each side (smp_store_mb() both): busy is
	 * seen there, or trace_on off here. */
	smp_store_mb(tb->busy, 1);
	if (!READ_ONCE(trace_on) || !tb->entries)
		goto out;
	if (tb->count >= tb->size) {
		tb->dropped++;
		if (type == TRACE_IRQ_ENTRY)
			tb->irq_gen = 0;
		goto out;
	}
	if (!irq_event_wanted(tb, type, atomic_long_read(&trace_gen)))
		goto out;
	e = &tb->entries[tb->count];
	*e = (struct trace_entry){.ts = ktime_get_ns(), .pid = t ? t->pid : 0,
				  .type = type, .state = state, .a = a, .b = b};
	if (name)
		strlcpy(e->name, name, sizeof(e->name));
	smp_store_release(&tb->count, tb->count + 1); /* the entry first */
out:
	smp_store_release(&tb->busy, 0); /* done with the ring */
	local_irq_restore(flags);
}

int trace_start(unsigned int entries)
{
	int cpu;

	trace_stop();
	for_each_online_cpu(cpu) {
		struct trace_buf *tb = raw_per_cpu_ptr(&trace_bufs, cpu);

		/* A writer is busy for one entry, interrupts off: not long. */
		smp_cond_load_acquire(&tb->busy, !VAL);
		if (tb->entries && tb->size != entries) {
			kfree(tb->entries);
			tb->entries = 0;
		}
		if (!tb->entries &&
		    !(tb->entries = kmalloc(entries * sizeof(*tb->entries))))
			return -1;
		tb->size = entries;
		tb->dropped = 0;
		smp_store_release(&tb->count, 0);
	}
	/* The span hooks first, while nothing records: patching them sends
	 * each CPU a few IPIs per site, whose interrupt events would
	 * otherwise fill the rings before the trace has begun. */
	if (preemptible())
		static_branch_enable(&trace_migrate_key);
	atomic_long_inc(&trace_gen);
	/* Release: the emptied rings and the new generation before any
	 * writer sees the trace on. */
	smp_store_release(&trace_on, true);
	return 0;
}

/* Recording stops at the store; the span hooks' sites go back to nops
 * after. */
void trace_stop(void)
{
	smp_store_mb(trace_on, false); /* before trace_start() reads busy */
	if (preemptible())
		static_branch_disable(&trace_migrate_key);
}

/*
 * The outermost migrate_disable()/migrate_enable() of the running task
 * (its count is 1 right after the one, right before the other), as a
 * span. The key turns the hooks on and off site by site, so for a moment
 * a task may pass a live hook on one side and a nop on the other: each
 * task remembers the trace its open span belongs to (trace_span_gen),
 * opens a span only when none is open and closes only one this trace
 * opened. A missed close makes a span longer; none is left unpaired.
 */
void trace_migrate_span(enum trace_type type)
{
	struct task_struct *t = current;
	unsigned long gen = atomic_long_read(&trace_gen);

	if (t->migration_disabled != 1 || !trace_enabled())
		return;
	if (type == TRACE_MIGRATE_DISABLE) {
		if (t->trace_span_gen == gen)
			return;
		t->trace_span_gen = gen;
	} else {
		if (t->trace_span_gen != gen)
			return;
		t->trace_span_gen = 0;
	}
	__trace_event(type, 0, 0, 0, 0);
}

unsigned int trace_count(int cpu)
{
	return smp_load_acquire(&raw_per_cpu_ptr(&trace_bufs, cpu)->count);
}

const struct trace_entry *trace_get(int cpu, unsigned int i)
{
	struct trace_buf *tb = raw_per_cpu_ptr(&trace_bufs, cpu);

	return i < trace_count(cpu) ? &tb->entries[i] : 0;
}

unsigned long trace_dropped(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += raw_per_cpu_ptr(&trace_bufs, cpu)->dropped;
	return n;
}

/* Names go out as one word: spaces become '_'. */
static void dump_entry(int cpu, const struct trace_entry *e)
{
	char name[TRACE_NAME_LEN];

	strlcpy(name, e->name[0] ? e->name : "-", sizeof(name));
	for (char *c = name; *c; c++)
		if (*c == ' ')
			*c = '_';
	printk("TR %d %lu %d %s %lu %lu %d %s\n", cpu, e->ts, e->pid,
	       type_names[e->type], e->a, e->b, e->state, name);
}

void trace_dump(void)
{
	int cpu;

	trace_stop();
	printk("# TRACE begin cpus=%u dropped=%lu\n", num_online_cpus(),
	       trace_dropped());
	printk("# TR cpu ts_ns pid event a b state name\n");
	for_each_online_cpu(cpu) {
		unsigned int n = trace_count(cpu);

		for (unsigned int i = 0; i < n; i++)
			dump_entry(cpu, trace_get(cpu, i));
	}
	printk("# TRACE end\n");
}
