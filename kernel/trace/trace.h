/*
 * The scheduler trace: a per-CPU ring of events (context switches,
 * wake-ups, migrations, migrate_disable() spans, contended sleeping locks,
 * interrupts), started and stopped on request and dumped over the serial
 * port as text that scripts/trace2perfetto turns into a Perfetto/Chrome
 * JSON trace and ftrace-style text. See docs/realtime.md.
 *
 * Off, each trace point costs one load of trace_on and a branch not
 * taken: the hooks below are inline and call out only when it is set.
 * The migrate_disable() span's hooks, on the hottest path of all, cost a
 * 5-byte nop instead: they sit behind a static key (jump_label.h).
 */
#ifndef TRACE_H
#define TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "jump_label.h"
#include "rwonce.h"

enum trace_type {
	TRACE_SWITCH,          /* a = prev pid, b = next pid, state = prev's */
	TRACE_WAKEUP,          /* a = woken pid, b = the CPU it is queued on */
	TRACE_MIGRATE,         /* a = pid, b = from CPU << 16 | to CPU */
	TRACE_MIGRATE_DISABLE, /* the running task's outermost one */
	TRACE_MIGRATE_ENABLE,
	TRACE_LOCK_CONTENDED,  /* a = lock address; name: the lock's */
	TRACE_LOCK_ACQUIRED,   /* after contention */
	TRACE_LOCK_RELEASED,   /* handed to waiters */
	TRACE_IRQ_ENTRY,       /* a = vector */
	TRACE_IRQ_EXIT,
	TRACE_NR_TYPES
};

#define TRACE_NAME_LEN 16

/* One event, written on the CPU it happened on (interrupts off). */
struct trace_entry {
	uint64_t ts;           /* ktime_get_ns() */
	int32_t pid;           /* the running task */
	uint8_t type;          /* enum trace_type */
	uint8_t state;         /* TRACE_SWITCH: prev's task state */
	uint16_t pad;
	uint64_t a, b;
	char name[TRACE_NAME_LEN]; /* TRACE_SWITCH: next's; locks: the lock's */
};

/* Whether the trace records: written by trace_start()/trace_stop(). */
extern bool trace_on;

static inline bool trace_enabled(void)
{
	return unlikely(READ_ONCE(trace_on));
}

/*
 * Whether migrate_disable() and migrate_enable() call their trace hook
 * (trace_migrate_span()): on from trace_start() to trace_stop(). Patching
 * code sleeps, so only a start or stop from a task changes the key; one
 * inside an interrupt (or with preemption off) leaves it as it was until
 * the next start or stop from a task, and the hook, which checks
 * trace_on, records nothing while the trace is off.
 */
DECLARE_STATIC_KEY_FALSE(trace_migrate_key);

static __always_inline bool trace_migrate_enabled(void)
{
	return static_branch_unlikely(&trace_migrate_key);
}

/* Record an event on this CPU; name may be NULL. */
void __trace_event(enum trace_type type, uint64_t a, uint64_t b,
		   const char *name, int state);

static inline void trace_event(enum trace_type type, uint64_t a, uint64_t b,
			       const char *name)
{
	if (trace_enabled())
		__trace_event(type, a, b, name, 0);
}

/* Allocate the rings (entries per CPU) on first use, empty them and
 * start recording. 0, or -1 without memory. */
int trace_start(unsigned int entries);
void trace_stop(void);
/* Stop, and print every CPU's events, oldest first, between "# TRACE
 * begin" and "# TRACE end" lines (format: scripts/trace2perfetto). */
void trace_dump(void);

/* For tests: the number of events CPU cpu holds, and the i-th of them. */
unsigned int trace_count(int cpu);
const struct trace_entry *trace_get(int cpu, unsigned int i);
/* Events lost because a ring was full, since trace_start(). */
unsigned long trace_dropped(void);

#endif
