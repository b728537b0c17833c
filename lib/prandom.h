/*
 * A small seeded pseudo-random generator (xorshift64*, Vigna 2016), with
 * Linux's names: each user keeps its own state, so a run seeded the same
 * way draws the same numbers in the same places (torture writers, and the
 * same schedule under DETERMINISTIC=1). Not for anything secret.
 */
#ifndef PRANDOM_H
#define PRANDOM_H

#include <stdint.h>

struct rnd_state {
	uint64_t s;
};

/* Any seed, 0 included, gives a non-zero state (xorshift's only rule). */
static inline void prandom_seed_state(struct rnd_state *st, uint64_t seed)
{
	seed = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ull; /* splitmix64 */
	seed = (seed ^ (seed >> 27)) * 0x94d049bb133111ebull;
	st->s = (seed ^ (seed >> 31)) | 1;
}

static inline uint32_t prandom_u32_state(struct rnd_state *st)
{
	uint64_t x = st->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	st->s = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

#endif
