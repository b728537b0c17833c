/*
 * refcount_t (refcount.h) with Linux's semantics: the ordinary gets and
 * puts, and each misuse warned about and saturated instead of wrapped:
 * an increment past INT_MAX, an increment from zero (a use after free),
 * a put below zero, and refcount_dec() taking the last reference. A
 * saturated count stays saturated: the object leaks, it is never freed.
 */
#include "ktest.h"
#include "refcount.h"

KTEST(refcount, gets_and_puts)
{
	refcount_t r = REFCOUNT_INIT(1);

	refcount_inc(&r);
	refcount_add(3, &r);
	KEXPECT_EQ(refcount_read(&r), 5u);
	KEXPECT_TRUE(refcount_inc_not_zero(&r));
	refcount_dec(&r);
	KEXPECT_FALSE(refcount_sub_and_test(3, &r));
	KEXPECT_FALSE(refcount_dec_and_test(&r));
	KEXPECT_TRUE(refcount_dec_and_test(&r));
	KEXPECT_EQ(refcount_read(&r), 0u);
	/* A dead object cannot be revived by a lookup. */
	KEXPECT_FALSE(refcount_inc_not_zero(&r));
	KEXPECT_EQ(refcount_read(&r), 0u);
}

KTEST(refcount, overflow_warns_and_saturates)
{
	refcount_t r = REFCOUNT_INIT(REFCOUNT_MAX);
	unsigned long w = refcount_warnings(REFCOUNT_ADD_OVF);

	refcount_inc(&r);
	KEXPECT_EQ(refcount_warnings(REFCOUNT_ADD_OVF), w + 1);
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
	/* Saturated for good: puts do not bring it back to zero. */
	KEXPECT_FALSE(refcount_dec_and_test(&r));
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);

	refcount_set(&r, REFCOUNT_MAX);
	w = refcount_warnings(REFCOUNT_ADD_NOT_ZERO_OVF);
	KEXPECT_TRUE(refcount_inc_not_zero(&r));
	KEXPECT_EQ(refcount_warnings(REFCOUNT_ADD_NOT_ZERO_OVF), w + 1);
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}

KTEST(refcount, increment_from_zero_warns_and_saturates)
{
	refcount_t r = REFCOUNT_INIT(0);
	unsigned long w = refcount_warnings(REFCOUNT_ADD_UAF);

	refcount_inc(&r);
	KEXPECT_EQ(refcount_warnings(REFCOUNT_ADD_UAF), w + 1);
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}

KTEST(refcount, underflow_warns_and_saturates)
{
	refcount_t r = REFCOUNT_INIT(1);
	unsigned long w = refcount_warnings(REFCOUNT_SUB_UAF);

	KEXPECT_TRUE(refcount_dec_and_test(&r));
	KEXPECT_FALSE(refcount_dec_and_test(&r)); /* one put too many */
	KEXPECT_EQ(refcount_warnings(REFCOUNT_SUB_UAF), w + 1);
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}

KTEST(refcount, dec_of_the_last_reference_warns)
{
	refcount_t r = REFCOUNT_INIT(1);
	unsigned long w = refcount_warnings(REFCOUNT_DEC_LEAK);

	refcount_dec(&r);
	KEXPECT_EQ(refcount_warnings(REFCOUNT_DEC_LEAK), w + 1);
	KEXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
}
