/*
 * Rate limiting (ratelimit.h), Linux's lib/ratelimit.c: an interval
 * starts at the first call after the last one ended; within it, burst
 * calls pass and the rest are counted, and the call that starts the next
 * interval prints the count of the last. jiffies is CPU 0's tick count,
 * and CPU 0 never goes offline.
 */
#include "ratelimit.h"
#include "irqflags.h"
#include "printk.h"
#include "rwonce.h"

/* a is after b, on a clock that wraps (Linux's time_after()). */
static bool jiffies_after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
}

bool ___ratelimit(struct ratelimit_state *rs, const char *func)
{
	unsigned long flags, now = READ_ONCE(jiffies);
	int suppressed = 0;
	bool ok;

	if (!rs->interval)
		return true;
	/* Interrupts off: the tick uses it too, and must not find it held
	 * by the code it interrupted. A state busy elsewhere holds this
	 * call back rather than spin (Linux's trylock). */
	local_irq_save(flags);
	if (!raw_spin_trylock(&rs->lock)) {
		local_irq_restore(flags);
		return false;
	}
	if (!rs->begin)
		rs->begin = now;
	if (jiffies_after(now, rs->begin + rs->interval)) {
		suppressed = rs->missed;
		rs->missed = 0;
		rs->begin = now;
		rs->printed = 0;
	}
	ok = rs->burst > rs->printed;
	if (ok)
		rs->printed++;
	else
		rs->missed++;
	raw_spin_unlock(&rs->lock);
	local_irq_restore(flags);
	if (suppressed)
		printk("%s: %d callbacks suppressed\n", func, suppressed);
	return ok;
}
