/*
 * The out-of-line half of refcount_t (refcount.h): what happens when a
 * count goes wrong. The count is saturated first, so that a CPU racing
 * with the warning already sees a count that neither frees nor wraps.
 */
#include "refcount.h"
#include "panic.h"
#include "printk.h"

static const char *const refcount_what[REFCOUNT_NR_SATURATION_TYPES] = {
	[REFCOUNT_ADD_NOT_ZERO_OVF] = "saturated; leaking memory",
	[REFCOUNT_ADD_OVF] = "saturated; leaking memory",
	[REFCOUNT_ADD_UAF] = "addition on 0; use-after-free",
	[REFCOUNT_SUB_UAF] = "underflow; use-after-free",
	[REFCOUNT_DEC_LEAK] = "decrement hit 0; leaking memory",
};

/* Per kind: how many times it happened; the first one is printed (Linux
 * warns once per kind too), the count tells the tests about the rest. */
static atomic_long_t refcount_warned[REFCOUNT_NR_SATURATION_TYPES];

void refcount_warn_saturate(refcount_t *r, enum refcount_saturation_type t)
{
	refcount_set(r, REFCOUNT_SATURATED);
	if (atomic_long_inc_return(&refcount_warned[t]) != 1)
		return;
	printk("WARNING: refcount_t: %s.\n", refcount_what[t]);
	dump_stack();
}

unsigned long refcount_warnings(enum refcount_saturation_type t)
{
	return atomic_long_read(&refcount_warned[t]);
}
