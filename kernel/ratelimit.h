/*
 * Rate limiting of console messages, as Linux's include/linux/ratelimit.h:
 * a message that can come thousands of times a second (an unexpected NMI
 * each time a monitor injects one) is printed in bursts of at most burst
 * per interval; the first call after an interval in which some were
 * held back says how many ("nmi_report_deferred: 2871 callbacks
 * suppressed"). What the messages count is the caller's to keep: a
 * report held back should be folded into the next one printed.
 */
#ifndef RATELIMIT_H
#define RATELIMIT_H

#include <stdbool.h>

#include "locking/spinlock.h"
#include "time/time.h"

#define DEFAULT_RATELIMIT_INTERVAL (5 * HZ)
#define DEFAULT_RATELIMIT_BURST 10

struct ratelimit_state {
	raw_spinlock_t lock;    /* the fields below */
	unsigned long interval; /* jiffies; 0: no limit */
	int burst;              /* calls let through per interval */
	int printed;            /* ... so far in this one */
	int missed;             /* held back in this one */
	unsigned long begin;    /* jiffies at its start; 0: none yet */
};

#define RATELIMIT_STATE_INIT(name, interval_init, burst_init)                 \
	{                                                                     \
		.lock = __RAW_SPIN_LOCK_UNLOCKED(name.lock),                  \
		.interval = (interval_init), .burst = (burst_init),           \
	}
#define DEFINE_RATELIMIT_STATE(name, interval_init, burst_init)               \
	struct ratelimit_state name =                                         \
		RATELIMIT_STATE_INIT(name, interval_init, burst_init)

/* Whether the caller may print now; func names it in the "callbacks
 * suppressed" line. Any context: a call that finds the state busy on
 * another CPU (or an interrupt of this one) is held back too. */
bool ___ratelimit(struct ratelimit_state *rs, const char *func);
#define __ratelimit(state) ___ratelimit(state, __func__)

#endif
