/*
 * Static keys: the core walks the table of sites the compiler left in
 * __jump_table (asm/jump_label.h) and has arch rewrite those of one key
 * (text_patch.c), as one batch. One change at a time, and none while a CPU comes or
 * goes: a CPU half-way up would miss the serialisation the patching waits
 * for.
 */
#include "cpuhotplug.h"
#include "jump_label.h"
#include "locking/mutex.h"

extern const struct jump_entry __start___jump_table[], __stop___jump_table[];

static DEFINE_MUTEX(jump_label_mutex);

static void static_key_set(struct static_key *key, bool enable)
{
	cpus_read_lock();
	mutex_lock(&jump_label_mutex);
	if (key->enabled != enable) {
		for (const struct jump_entry *e = __start___jump_table;
		     e < __stop___jump_table; e++)
			if (e->key == key)
				arch_jump_label_transform_queue(e, enable);
		arch_jump_label_transform_apply();
		__atomic_store_n(&key->enabled, enable, __ATOMIC_RELEASE);
	}
	mutex_unlock(&jump_label_mutex);
	cpus_read_unlock();
}

void static_branch_enable(struct static_key_false *k)
{
	static_key_set(&k->key, true);
}

void static_branch_disable(struct static_key_false *k)
{
	static_key_set(&k->key, false);
}
