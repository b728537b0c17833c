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
#include "sched/sched.h"
#include "asm/barrier.h"

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
		/* The patch serialises every other CPU by IPI and this one
		 * by hand after the last write: "this one" must stay the
		 * CPU the IPIs skipped, even if the task is preempted. */
		migrate_disable();
		arch_jump_label_transform_apply();
		migrate_enable();
		/* Release: whoever reads the new value (static_key_enabled())
		 * also finds every site patched. */
		smp_store_release(&key->enabled, enable);
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
