/*
 * The memory-model vocabulary (atomic.h, rwonce.h, asm/barrier.h):
 * each atomic_t and atomic_long_t operation returns what Linux's does,
 * the compound ones (inc_not_zero, add_unless, dec_if_positive) refuse
 * where they must, xchg()/cmpxchg()/try_cmpxchg() work on any scalar
 * size, and atomic increments from every CPU at once lose nothing.
 */
#include <stdint.h>

#include "atomic.h"
#include "ktest.h"
#include "ktest_util.h"
#include "rwonce.h"
#include "sched.h"
#include "smp.h"

KTEST(atomic, int_operations_return_what_linux_does)
{
	atomic_t v = ATOMIC_INIT(5);

	KEXPECT_EQ(atomic_read(&v), 5);
	atomic_set(&v, 7);
	KEXPECT_EQ(atomic_read(&v), 7);
	atomic_inc(&v);
	atomic_add(10, &v);
	KEXPECT_EQ(atomic_read(&v), 18);
	atomic_dec(&v);
	atomic_sub(7, &v);
	KEXPECT_EQ(atomic_read(&v), 10);
	KEXPECT_EQ(atomic_add_return(5, &v), 15);
	KEXPECT_EQ(atomic_sub_return(3, &v), 12);
	KEXPECT_EQ(atomic_inc_return(&v), 13);
	KEXPECT_EQ(atomic_dec_return(&v), 12);
	KEXPECT_EQ(atomic_fetch_add(3, &v), 12);
	KEXPECT_EQ(atomic_fetch_sub(5, &v), 15);
	KEXPECT_EQ(atomic_read(&v), 10);
	KEXPECT_EQ(atomic_xchg(&v, 3), 10);
	KEXPECT_EQ(atomic_cmpxchg(&v, 4, 9), 3); /* no match: unchanged */
	KEXPECT_EQ(atomic_read(&v), 3);
	KEXPECT_EQ(atomic_cmpxchg(&v, 3, 9), 3);
	KEXPECT_EQ(atomic_read(&v), 9);
	KEXPECT_EQ(atomic_fetch_or(0x10, &v), 9);
	KEXPECT_EQ(atomic_fetch_and(0x18, &v), 0x19);
	KEXPECT_EQ(atomic_fetch_xor(0x18, &v), 0x18);
	KEXPECT_EQ(atomic_read(&v), 0);
	atomic_or(6, &v);
	atomic_and(3, &v);
	atomic_xor(1, &v);
	KEXPECT_EQ(atomic_read(&v), 3);
	KEXPECT_TRUE(atomic_add_negative(-4, &v));
	KEXPECT_TRUE(atomic_inc_and_test(&v));
	atomic_set(&v, 2);
	KEXPECT_FALSE(atomic_dec_and_test(&v));
	KEXPECT_TRUE(atomic_dec_and_test(&v));
	atomic_set(&v, 5);
	KEXPECT_TRUE(atomic_sub_and_test(5, &v));
	atomic_set_release(&v, 4);
	KEXPECT_EQ(atomic_read_acquire(&v), 4);
}

/* The fetch_ forms return the value before, andnot clears the bits given,
 * and the ordering variants compute what the fully ordered ones do. */
KTEST(atomic, fetch_andnot_and_ordering_variants)
{
	atomic_t v = ATOMIC_INIT(5);
	atomic_long_t l = ATOMIC_LONG_INIT(0xf0f0l);
	int old = 5;

	KEXPECT_EQ(atomic_fetch_inc(&v), 5);
	KEXPECT_EQ(atomic_fetch_dec(&v), 6);
	KEXPECT_EQ(atomic_read(&v), 5);
	atomic_andnot(4, &v);
	KEXPECT_EQ(atomic_read(&v), 1);
	KEXPECT_EQ(atomic_long_fetch_andnot(0xf000l, &l), 0xf0f0l);
	KEXPECT_EQ(atomic_long_read(&l), 0xf0l);

	atomic_set(&v, 5);
	KEXPECT_EQ(atomic_add_return_relaxed(2, &v), 7);
	KEXPECT_EQ(atomic_fetch_add_acquire(1, &v), 7);
	KEXPECT_EQ(atomic_xchg_release(&v, 3), 8);
	KEXPECT_EQ(atomic_cmpxchg_acquire(&v, 3, 4), 3);
	KEXPECT_EQ(atomic_cmpxchg_relaxed(&v, 3, 9), 4);
	KEXPECT_FALSE(atomic_try_cmpxchg_release(&v, &old, 6));
	KEXPECT_EQ(old, 4);
	KEXPECT_TRUE(atomic_long_try_cmpxchg_acquire(&l, &(long){0xf0l}, 1));
	KEXPECT_EQ(atomic_long_read(&l), 1);
}

KTEST(atomic, try_cmpxchg_reports_the_value_it_found)
{
	atomic_t v = ATOMIC_INIT(1);
	int old = 2;

	KEXPECT_FALSE(atomic_try_cmpxchg(&v, &old, 5));
	KEXPECT_EQ(old, 1); /* the value found */
	KEXPECT_EQ(atomic_read(&v), 1);
	KEXPECT_TRUE(atomic_try_cmpxchg(&v, &old, 5));
	KEXPECT_EQ(atomic_read(&v), 5);
}

KTEST(atomic, conditional_operations_refuse_where_they_must)
{
	atomic_t v = ATOMIC_INIT(0);

	KEXPECT_FALSE(atomic_inc_not_zero(&v));
	KEXPECT_EQ(atomic_read(&v), 0);
	atomic_set(&v, 1);
	KEXPECT_TRUE(atomic_inc_not_zero(&v));
	KEXPECT_EQ(atomic_read(&v), 2);
	KEXPECT_FALSE(atomic_add_unless(&v, 5, 2));
	KEXPECT_TRUE(atomic_add_unless(&v, 5, 3));
	KEXPECT_EQ(atomic_fetch_add_unless(&v, 1, 7), 7);
	KEXPECT_EQ(atomic_read(&v), 7);
	atomic_set(&v, 1);
	KEXPECT_EQ(atomic_dec_if_positive(&v), 0);
	KEXPECT_EQ(atomic_dec_if_positive(&v), -1); /* refused */
	KEXPECT_EQ(atomic_read(&v), 0);
}

KTEST(atomic, long_operations_use_the_whole_word)
{
	atomic_long_t v = ATOMIC_LONG_INIT(1L << 40);

	atomic_long_inc(&v);
	KEXPECT_EQ(atomic_long_read(&v), (1L << 40) + 1);
	KEXPECT_EQ(atomic_long_add_return(1L << 33, &v),
		   (1L << 40) + (1L << 33) + 1);
	KEXPECT_EQ(atomic_long_xchg(&v, -1L), (1L << 40) + (1L << 33) + 1);
	KEXPECT_TRUE(atomic_long_inc_and_test(&v));
	KEXPECT_FALSE(atomic_long_inc_not_zero(&v));
}

KTEST(atomic, xchg_and_cmpxchg_on_every_size)
{
	uint8_t b = 1;
	uint16_t w = 2;
	uint32_t l = 3;
	uint64_t q = 1ull << 50;
	void *p = &b;

	KEXPECT_EQ(xchg(&b, 0xfe), 1);
	KEXPECT_EQ(b, 0xfe);
	KEXPECT_EQ(cmpxchg(&w, 2, 0xfffe), 2);
	KEXPECT_EQ(w, 0xfffe);
	KEXPECT_EQ(cmpxchg(&l, 4, 5), 3);
	KEXPECT_EQ(l, 3);
	KEXPECT_EQ(xchg(&q, 7), 1ull << 50);
	KEXPECT_TRUE(try_cmpxchg(&q, &(uint64_t){7}, 1ull << 63));
	KEXPECT_EQ(q, 1ull << 63);
	KEXPECT_TRUE(xchg(&p, (void *)&w) == (void *)&b);
	KEXPECT_TRUE(p == (void *)&w);
}

KTEST(atomic, read_once_and_write_once_keep_the_value)
{
	const volatile int cv = 3;
	long x = 0;
	int y = READ_ONCE(cv); /* a const volatile source reads as plain */

	WRITE_ONCE(x, 1L << 45);
	KEXPECT_EQ(READ_ONCE(x), 1L << 45);
	smp_store_release(&y, y + 1);
	KEXPECT_EQ(smp_load_acquire(&y), 4);
	smp_mb();
}

/* Every CPU adds at once: a locked add loses nothing, however the CPUs
 * interleave. Counted, not timed. */
#define ATOMIC_ITERS 20000
static atomic_t shared = ATOMIC_INIT(0);
static atomic_long_t shared_long = ATOMIC_LONG_INIT(0);

static int atomic_adder(void *arg)
{
	for (int i = 0; i < ATOMIC_ITERS; i++) {
		atomic_inc(&shared);
		atomic_long_add(2, &shared_long);
	}
	return 0;
}

KTEST_CPUS(atomic, concurrent_increments_lose_nothing, 2)
{
	int n = num_online_cpus();
	struct task_struct *t[8];

	if (n > 8)
		n = 8;
	atomic_set(&shared, 0);
	atomic_long_set(&shared_long, 0);
	for (int i = 0; i < n; i++) {
		t[i] = kthread_create(atomic_adder, 0, "adder");
		KASSERT_TRUE(t[i]);
		kthread_bind(t[i], i);
		wake_up_process(t[i]);
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(kthread_join(t[i]), 0);
	KEXPECT_EQ(atomic_read(&shared), n * ATOMIC_ITERS);
	KEXPECT_EQ(atomic_long_read(&shared_long), 2L * n * ATOMIC_ITERS);
}
