/*
 * kmalloc's per-CPU layer: for each size class, each CPU keeps a "sheaf"
 * (Linux 6.18's name; a magazine in Bonwick's) of up to C =
 * KMALLOC_SHEAF_CAPACITY free objects. kmalloc pops one, kfree pushes
 * one; only an empty sheaf (refilled with C/2 objects) or a full one (C/2
 * flushed back) takes the shared kmalloc_lock. Between two acquisitions
 * on a CPU lie at least C/2 operations, so 10^6 operations take the lock
 * at most 2 * 10^6 / C times (plus the first refill).
 *
 * The sheaves are protected by a local_lock_t inside the per-CPU
 * structure. On RT=0 it is preempt_disable(): the fast path is the
 * preemption count, an array pop or push and the count again, with no
 * atomic instruction. On RT=1 it is this CPU's sleeping lock, taken with
 * migration disabled: a higher-priority task may preempt the holder, and
 * blocks (with priority inheritance) only if it wants the same sheaves.
 *
 * Which contexts may use a sheaf: those that could take a lock that
 * sleeps on PREEMPT_RT, i.e. preemptible task context
 * (kmalloc_pcp_usable()). The validator checks local_lock_t that way on
 * both worlds. Every other context takes the shared slabs under
 * kmalloc_lock, on RT=0 raw with interrupts off and legal everywhere (on
 * RT=1 it sleeps, and such a context may not allocate: mm_lock.h):
 *   - hardirq: on RT=1 it must not take the sleeping lock; on RT=0 it
 *     could have interrupted a task in the middle of a push on this very
 *     sheaf (preempt_disable() does not keep interrupts out). So no
 *     interrupt handler ever touches a sheaf, and a task needs no
 *     interrupts-off section to use one;
 *   - interrupts or preemption off, a raw spinlock held: the shared
 *     path too.
 * The price is one shared-lock acquisition per such call, which is why
 * they should be rare.
 *
 * An object may be freed on another CPU than the one it came from: it
 * joins the freeing CPU's sheaf, and a flush returns it to its own slab.
 */
#include "compiler.h"
#include "irqflags.h"
#include "mm/slab.h"
#include "mm/defer_free.h"
#include "mm/drain.h"
#include "asm/page.h"
#include "locking/local_lock.h"
#include "percpu.h"
#include "string.h"
#include "asm/barrier.h"

struct sheaf {
	unsigned int count;                      /* objs[0..count) are free */
	void *objs[KMALLOC_SHEAF_CAPACITY];
};

struct kmalloc_pcp {
	local_lock_t lock;
	struct sheaf sheaves[KMALLOC_NR_CLASSES];
};

static DEFINE_PER_CPU(struct kmalloc_pcp, kmalloc_pcp) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/* Off until kmalloc_pcp_init(): before the per-CPU areas exist the boot
 * CPU runs on the template, and a sheaf filled there would be copied to
 * every CPU (docs/percpu.md: nothing per-CPU may be live at copy time). */
bool kmalloc_pcp_on;

/*
 * This CPU's sheaf of class cls; the caller holds the local lock. The hot
 * path forms the pointer unchecked (raw_cpu_ptr): with LOCKDEP=1 the
 * per-CPU checker takes its global lock for a copy that many tasks use,
 * and on every kmalloc that serialises all CPUs. It checks the same copy
 * under the same lock at every refill and flush instead (this_cpu_ptr
 * there), once per C/2 calls at most; with LOCKDEP=0 the two are the
 * same instruction.
 */
static inline struct sheaf *this_sheaf(int cls)
{
	return &raw_cpu_ptr(&kmalloc_pcp)->sheaves[cls];
}

static inline struct sheaf *this_sheaf_checked(int cls)
{
	return &this_cpu_ptr(&kmalloc_pcp)->sheaves[cls];
}

/* Slabs are one page with the header at its start. */
static inline struct slab *obj_slab(const void *o)
{
	return (struct slab *)PAGE_ALIGN_DOWN((uintptr_t)o);
}

/* LAB8 BEGIN */
/* The sheaf is empty: up to a batch of objects from the slabs. */
static void sheaf_refill(struct sheaf *sh, int cls)
{
	unsigned long flags = kmalloc_lock_irqsave();
	struct free_obj *o;

	while (sh->count < KMALLOC_SHEAF_BATCH && (o = slab_take_locked(cls)))
		sh->objs[sh->count++] = o;
	kmalloc_unlock_irqrestore(flags);
}

/* o carries the poison: a double free, or data that looks like one. */
static bool obj_is_free(struct slab *s, struct free_obj *o)
{
	unsigned long flags = kmalloc_lock_irqsave();
	bool free = kmalloc_obj_is_free_locked(s, o);

	kmalloc_unlock_irqrestore(flags);
	return free;
}
/* LAB8 END */

/* The n oldest objects (the bottom: the coldest in the cache) back to
 * their slabs, and out of the array before kmalloc_lock is dropped, so
 * that a double-free check (under the lock) never finds an object both
 * here and on a slab's free list. Emptied slabs go to the page
 * allocator after the lock. */
static void sheaf_flush(struct sheaf *sh, unsigned int n)
{
	/* LAB8 BEGIN */
	struct slab *empty = 0;
	unsigned long flags = kmalloc_lock_irqsave();

	for (unsigned int i = 0; i < n; i++)
		slab_put_locked(obj_slab(sh->objs[i]), sh->objs[i], &empty);
	memmove(sh->objs, sh->objs + n, (sh->count - n) * sizeof(void *));
	sh->count -= n;
	kmalloc_unlock_irqrestore(flags);
	slabs_release(empty);
	/* LAB8 END */
}

void *kmalloc_pcp_alloc(int cls)
{
	/* LAB8 BEGIN */
	struct sheaf *sh;
	struct free_obj *o = 0;

	local_lock(&kmalloc_pcp.lock);
	sh = this_sheaf(cls);
	if (unlikely(sh->count == 0))
		sheaf_refill(this_sheaf_checked(cls), cls);
	if (sh->count) {
		o = sh->objs[--sh->count];
		o->poison = 0;
	}
	local_unlock(&kmalloc_pcp.lock);
	return o;
	/* LAB8 STUB: return kmalloc_shared_alloc(cls); */
	/* LAB8 END */
}

const char *kmalloc_pcp_free(struct slab *s, struct free_obj *o, int cls)
{
	/* LAB8 BEGIN */
	const char *err = 0;
	struct sheaf *sh;

	local_lock(&kmalloc_pcp.lock);
	sh = this_sheaf(cls);
	if (unlikely(o->poison == FREE_POISON) && obj_is_free(s, o)) {
		err = "double free";
	} else {
		if (unlikely(sh->count == KMALLOC_SHEAF_CAPACITY))
			sheaf_flush(this_sheaf_checked(cls),
				    KMALLOC_SHEAF_BATCH);
		o->poison = FREE_POISON;
		sh->objs[sh->count] = o;
		/* The entry before the count that covers it, for the
		 * lock-free readers (a plain store on x86). */
		smp_store_release(&sh->count, sh->count + 1);
	}
	local_unlock(&kmalloc_pcp.lock);
	return err;
	/* LAB8 STUB: return kmalloc_shared_free(s, o); */
	/* LAB8 END */
}

/*
 * Under kmalloc_lock, which every move between a sheaf and a slab holds:
 * an object in a sheaf stays there while we look, unless the sheaf's
 * owner hands it out meanwhile (then the free being checked is of an
 * object someone else now owns: a bug either way). Other CPUs' sheaves
 * are read without their locks, a word at a time: exact for this CPU
 * (whose lock the caller holds on the per-CPU path) and for idle CPUs.
 */
bool kmalloc_pcp_holds(const void *o, int cls)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sheaf *sh =
			&raw_per_cpu_ptr(&kmalloc_pcp, cpu)->sheaves[cls];
		unsigned int n = smp_load_acquire(&sh->count);

		for (unsigned int i = 0; i < n && i < KMALLOC_SHEAF_CAPACITY; i++)
			if (READ_ONCE(sh->objs[i]) == o)
				return true;
	}
	return false;
}

static void sheaves_drain(struct kmalloc_pcp *pcp)
{
	for (int cls = 0; cls < KMALLOC_NR_CLASSES; cls++)
		if (pcp->sheaves[cls].count)
			sheaf_flush(&pcp->sheaves[cls], pcp->sheaves[cls].count);
}

/* Precondition (kmalloc.h): nothing runs on cpu, so its sheaves are ours
 * without its lock; the checker cannot see that, hence raw. */
void kmalloc_drain_cpu(int cpu)
{
	sheaves_drain(raw_per_cpu_ptr(&kmalloc_pcp, cpu));
}

static void drain_this_cpu(void *arg)
{
	defer_free_flush(); /* into the sheaves, drained next */
	local_lock(&kmalloc_pcp.lock);
	sheaves_drain(this_cpu_ptr(&kmalloc_pcp));
	local_unlock(&kmalloc_pcp.lock);
}

void kmalloc_drain_all(void)
{
	on_each_cpu_hop(drain_this_cpu, 0);
}

unsigned int kmalloc_cached_objects(int cpu, int cls)
{
	return READ_ONCE(raw_per_cpu_ptr(&kmalloc_pcp, cpu)->sheaves[cls].count);
}

void kmalloc_pcp_init(bool on)
{
	kmalloc_pcp_on = on;
}

/* A call racing with the switch finishes on the path it chose; an object
 * it leaves in a sheaf after the drain stays free there until the next
 * drain (or the sheaves come back on). */
void kmalloc_pcp_set(bool on)
{
	WRITE_ONCE(kmalloc_pcp_on, on);
	if (!on)
		kmalloc_drain_all();
}

bool kmalloc_pcp_enabled(void)
{
	return READ_ONCE(kmalloc_pcp_on);
}
