/*
 * The explorer's own mechanism (EXPLORE=1 only): decisions are a function
 * of (seed, decision number) alone, at the seed's rate, PCT's priorities
 * and change points of the seed alone, and the explore_only= lists parse
 * as the host's shrinker writes them.
 */
#ifdef CONFIG_EXPLORE
#include "ktest.h"
#include "explore.h"

#define DECISIONS 4096

KTEST(explore, decide_is_a_function_of_seed_and_index)
{
	int differ = 0;

	for (uint64_t seed = 1; seed <= 4; seed++) {
		int injected = 0;

		for (unsigned long i = 0; i < DECISIONS; i++) {
			enum explore_action a = explore_decide(seed, i);

			KASSERT_EQ(a, explore_decide(seed, i));
			KASSERT_LT(a, EXPLORE_NR_ACTIONS);
			injected += a != EXPLORE_NONE;
			differ += a != explore_decide(seed + 100, i);
			if (a == EXPLORE_DELAY) {
				KEXPECT_GE(explore_delay_us(seed, i), 1);
				KEXPECT_LE(explore_delay_us(seed, i), 1000);
			}
		}
		/* Between 1 in 32 and 1 in 2, with room for chance. */
		KEXPECT_GT(injected, DECISIONS / 64);
		KEXPECT_LT(injected, DECISIONS * 3 / 4);
	}
	KEXPECT_GT(differ, 0);
}

KTEST(explore, every_action_is_drawn)
{
	int seen[EXPLORE_NR_ACTIONS] = {0};

	for (unsigned long i = 0; i < DECISIONS; i++)
		seen[explore_decide(7, i)]++;
	/* Every action but PCT's demotion, which no injection draws. */
	for (int a = 0; a < EXPLORE_DEMOTE; a++)
		KEXPECT_GT(seen[a], 0);
	KEXPECT_EQ(seen[EXPLORE_DEMOTE], 0);
	KEXPECT_GT(seen[EXPLORE_YIELD], seen[EXPLORE_DELAY]);
}

KTEST(explore, only_list_parses_numbers_and_ranges)
{
	unsigned long v[16];
	int n = explore_parse_list("17,3,40-42", v, 16);

	KASSERT_EQ(n, 5);
	KEXPECT_EQ(v[0], 3);
	KEXPECT_EQ(v[4], 42);
	KEXPECT_TRUE(explore_list_has(v, n, 3));
	KEXPECT_TRUE(explore_list_has(v, n, 17));
	KEXPECT_TRUE(explore_list_has(v, n, 41));
	KEXPECT_FALSE(explore_list_has(v, n, 4));
	KEXPECT_FALSE(explore_list_has(v, n, 39));
	KEXPECT_FALSE(explore_list_has(v, n, 43));
	KEXPECT_EQ(explore_parse_list("none", v, 16), 0);
	KEXPECT_EQ(explore_parse_list("", v, 16), 0);
	KEXPECT_FALSE(explore_list_has(v, 0, 0));
}

KTEST(explore, only_list_rejects_what_is_malformed)
{
	unsigned long v[4];

	KEXPECT_EQ(explore_parse_list("3,,4", v, 4), -1);
	KEXPECT_EQ(explore_parse_list("5-2", v, 4), -1);
	KEXPECT_EQ(explore_parse_list("x", v, 4), -1);
	KEXPECT_EQ(explore_parse_list("3,", v, 4), -1);
	KEXPECT_EQ(explore_parse_list("1-5", v, 4), -1); /* too long */
}
/* PCT's draws: first priorities distinct among a test's tasks and a
 * function of (seed, task); change points inside the first k decisions,
 * a function of (seed, i, k), different seeds drawing differently. */
KTEST(explore, pct_draws_are_functions_of_the_seed)
{
	int differ = 0;

	for (uint64_t seed = 1; seed <= 8; seed++) {
		for (unsigned int a = 0; a < 64; a++) {
			KASSERT_EQ(explore_pct_prio(seed, a),
				   explore_pct_prio(seed, a));
			for (unsigned int b = 0; b < a; b++)
				KASSERT_NE(explore_pct_prio(seed, a),
					   explore_pct_prio(seed, b));
		}
		for (unsigned int i = 1; i < 8; i++) {
			unsigned long c = explore_pct_change(seed, i, 300);

			KASSERT_LT(c, 300);
			KASSERT_EQ(c, explore_pct_change(seed, i, 300));
			differ += c != explore_pct_change(seed + 1, i, 300);
		}
		differ += (explore_pct_prio(seed, 0) > explore_pct_prio(seed, 1)) !=
			  (explore_pct_prio(seed + 1, 0) > explore_pct_prio(seed + 1, 1));
	}
	KEXPECT_GT(differ, 8);
	KEXPECT_EQ(explore_pct_change(3, 1, 1), 0);
}
#endif /* CONFIG_EXPLORE */
