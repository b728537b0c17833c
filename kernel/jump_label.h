/*
 * Static keys (Linux's jump_label.h): a flag that is almost never set,
 * tested on a hot path for nothing. static_branch_unlikely(&key) compiles
 * to a 5-byte nop in front of the likely path; static_branch_enable()
 * rewrites every site of the key into a jmp to its unlikely block, and
 * static_branch_disable() back into the nop (asm/jump_label.h). A test
 * costs no load and no conditional branch, which matters most under
 * QEMU's TCG, where every branch ends a translation block. Changing a key
 * is slow (it patches code and waits for every CPU three times) and may
 * sleep: for switches flipped by hand, such as the scheduler trace.
 */
#ifndef JUMP_LABEL_H
#define JUMP_LABEL_H

#include <stdbool.h>

#include "compiler.h"
#include "asm/barrier.h"
#include "asm/jump_label.h"

struct static_key {
	int enabled; /* as its sites are patched; under jump_label_mutex */
};

/* A key that starts off, its sites tested with static_branch_unlikely(). */
struct static_key_false {
	struct static_key key;
};

#define STATIC_KEY_FALSE_INIT { .key = { .enabled = 0 } }
#define DEFINE_STATIC_KEY_FALSE(name)                                         \
	struct static_key_false name = STATIC_KEY_FALSE_INIT
#define DECLARE_STATIC_KEY_FALSE(name) extern struct static_key_false name

static __always_inline bool static_branch_unlikely(struct static_key_false *k)
{
	return arch_static_branch(&k->key);
}

/* Whether the key is on (a plain read: not for hot paths). */
static inline bool static_key_enabled(const struct static_key_false *k)
{
	return smp_load_acquire(&k->key.enabled);
}

/* Patch every site of the key; each returns once every CPU sees the new
 * code. Task context, may sleep; idempotent. */
void static_branch_enable(struct static_key_false *k);
void static_branch_disable(struct static_key_false *k);

/*
 * A key with many sites is patched in batches (the arch's, 128 sites),
 * each flushed with its own rounds of IPIs. The whole change runs with
 * the task pinned (migrate_disable()): the IPIs serialise every CPU but
 * this one, which serialises itself, so "this one" must be the same CPU
 * from the first write to the last. For tests and the debugger, each
 * flush of the last change is noted: the task's CPU and its
 * migrate_disable() depth there.
 */
#define JUMP_LABEL_FLUSH_LOG 8
struct jump_label_flush {
	int cpu;
	int migration_disabled;
};
/* The last change's flushes into v (at most max, and at most
 * JUMP_LABEL_FLUSH_LOG are noted); returns how many it made in all. A
 * call that found its key already so changed nothing, and is not it. */
int jump_label_last_flushes(struct jump_label_flush *v, int max);

#endif
