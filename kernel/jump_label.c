/*
 * Static keys: the core walks the table of sites the compiler left in
 * __jump_table (asm/jump_label.h) and has arch rewrite those of one key
 * (text_patch.c), in batches, the task pinned to one CPU throughout. One
 * change at a time, and none while a CPU comes or goes: a CPU half-way up
 * would miss the serialisation the patching waits for.
 */
#include "cpuhotplug.h"
#include "jump_label.h"
#include "locking/mutex.h"
#include "panic.h"
#include "sched/sched.h"
#include "asm/barrier.h"

static DEFINE_MUTEX(jump_label_mutex);
/* The last change's flushes, under jump_label_mutex. */
static struct jump_label_flush last_flushes[JUMP_LABEL_FLUSH_LOG];
static int last_nr_flushes;

/* Patch what the arch has queued, noting where the task is. */
static void jump_label_flush(void)
{
	struct task_struct *t = current;

	if (last_nr_flushes < JUMP_LABEL_FLUSH_LOG)
		last_flushes[last_nr_flushes] = (struct jump_label_flush){
			raw_smp_processor_id(), t->migration_disabled};
	last_nr_flushes++;
	arch_jump_label_transform_apply();
}

/*
 * Every site of key, in batches: a full batch is flushed and the site
 * queued again (Linux's __jump_label_update()). Each flush serialises
 * every other CPU by IPI and this one by hand after its last write:
 * "this one" must stay the CPU the IPIs skipped, even if the task is
 * preempted, and for every batch, so the task is pinned from the first
 * queueing to the last flush. (Pinned, not preemption off: the flush
 * waits for every CPU, and on RT=1 may sleep on its locks.)
 */
static void jump_label_update(struct static_key *key, bool enable)
{
	last_nr_flushes = 0;
	migrate_disable();
	for (const struct jump_entry *e = __start___jump_table;
	     e < __stop___jump_table; e++) {
		if (e->key != key || arch_jump_label_transform_queue(e, enable))
			continue;
		jump_label_flush();
		BUG_ON(!arch_jump_label_transform_queue(e, enable));
	}
	jump_label_flush();
	migrate_enable();
}

static void static_key_set(struct static_key *key, bool enable)
{
	cpus_read_lock();
	mutex_lock(&jump_label_mutex);
	if (key->enabled != enable) {
		jump_label_update(key, enable);
		/* Release: whoever reads the new value (static_key_enabled())
		 * also finds every site patched. */
		smp_store_release(&key->enabled, enable);
	}
	mutex_unlock(&jump_label_mutex);
	cpus_read_unlock();
}

int jump_label_last_flushes(struct jump_label_flush *v, int max)
{
	int n;

	mutex_lock(&jump_label_mutex);
	n = last_nr_flushes;
	for (int i = 0; i < n && i < max && i < JUMP_LABEL_FLUSH_LOG; i++)
		v[i] = last_flushes[i];
	mutex_unlock(&jump_label_mutex);
	return n;
}

void static_branch_enable(struct static_key_false *k)
{
	static_key_set(&k->key, true);
}

void static_branch_disable(struct static_key_false *k)
{
	static_key_set(&k->key, false);
}
