/*
 * Bit operations (asm/bitops.h): set_bit()/clear_bit()/test_bit() reach
 * the right bit of the right word and leave the others alone, and CPUs
 * that change different bits of one word at once lose none of each
 * other's changes (a plain `|=` would: load, or, store).
 */
#include "asm/bitops.h"
#include "ktest.h"
#include "sched.h"
#include "smp.h"

KTEST(bitops, each_bit_of_each_word)
{
	static const long bits[] = {0, 1, 63, 64, 65, 127, 200, 255};
	unsigned long map[4] = {0};

	for (unsigned i = 0; i < ARRAY_SIZE(bits); i++) {
		set_bit(bits[i], map);
		KEXPECT_TRUE(test_bit(bits[i], map));
	}
	KEXPECT_EQ(map[0], 0x8000000000000003ul);
	KEXPECT_EQ(map[1], 0x8000000000000003ul);
	KEXPECT_EQ(map[2], 0ul);
	KEXPECT_EQ(map[3], (1ul << 8) | (1ul << 63));
	KEXPECT_FALSE(test_bit(2, map));
	KEXPECT_FALSE(test_bit(128, map));
	clear_bit(64, map);
	clear_bit(255, map);
	clear_bit(2, map); /* clear already: unchanged */
	KEXPECT_EQ(map[0], 0x8000000000000003ul);
	KEXPECT_EQ(map[1], 0x8000000000000002ul);
	KEXPECT_EQ(map[3], 1ul << 8);
	KEXPECT_FALSE(test_bit(64, map));
}

/* Each CPU owns bits cpu, cpu + 8, ... of one shared word and flips
 * them over and over; after its own set_bit() its bit must read set,
 * after clear_bit() clear, whatever the others did to the word. Counted,
 * not timed. */
#define BITOPS_ITERS 20000
#define BITOPS_CPUS 8
static unsigned long shared_word;

static int bit_flipper(void *arg)
{
	long first = (long)arg;
	int lost = 0;

	for (int i = 0; i < BITOPS_ITERS; i++) {
		long nr = first + BITOPS_CPUS * (i % 8);

		set_bit(nr, &shared_word);
		lost += !test_bit(nr, &shared_word);
		clear_bit(nr, &shared_word);
		lost += test_bit(nr, &shared_word);
	}
	set_bit(first, &shared_word); /* the final state: one bit each */
	return lost;
}

KTEST_CPUS(bitops, concurrent_changes_of_one_word_lose_nothing, 2)
{
	int n = num_online_cpus();
	struct task_struct *t[BITOPS_CPUS];
	unsigned long want = 0;

	if (n > BITOPS_CPUS)
		n = BITOPS_CPUS;
	shared_word = 0;
	for (long i = 0; i < n; i++) {
		t[i] = kthread_create(bit_flipper, (void *)i, "bitflip");
		KASSERT_TRUE(t[i]);
		kthread_bind(t[i], i);
		wake_up_process(t[i]);
		want |= 1ul << i;
	}
	for (int i = 0; i < n; i++)
		KEXPECT_EQ(kthread_join(t[i]), 0);
	KEXPECT_EQ(shared_word, want);
}
