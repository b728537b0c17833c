/*
 * kmalloc's inside, shared by its two layers: the shared slabs under
 * kmalloc_lock (kmalloc.c) and the per-CPU sheaves in front of them
 * (kmalloc_pcp.c). Not for use outside kernel/mm/.
 */
#ifndef MM_SLAB_H
#define MM_SLAB_H

#include <stdbool.h>
#include <stdint.h>
#include "mm/kmalloc.h"
#include "preempt.h"
#include "rwonce.h"

#define SLAB_MAGIC  0x51ab51ab51ab51abul
#define FREE_POISON 0xf4eef4eef4eef4eeul
#define KMALLOC_MIN_SHIFT 4

/* At the start of every slab page. */
struct slab {
	uint64_t magic;
	struct slab *next;      /* next slab of this class with free objects */
	void *free;             /* free objects, linked through their first word */
	uint32_t obj_size;
	uint32_t nr_free;       /* on `free`: not counting those in sheaves */
	uint32_t nr_objs;
	uint32_t on_list;       /* on its class's partial list */
};

/*
 * A free object, on its slab's free list or in a sheaf: the poison word
 * lets kfree suspect a double free cheaply (then it looks the object up
 * to be sure: user data may hold the same bits). An object handed out
 * has poison 0.
 */
struct free_obj {
	struct free_obj *next;
	uint64_t poison;
};

static inline int kmalloc_class_of(uint32_t size)
{
	int shift = KMALLOC_MIN_SHIFT;

	while ((1ul << shift) < size)
		shift++;
	return shift - KMALLOC_MIN_SHIFT;
}

/* kmalloc_lock (mm_lock.h: interrupts off on RT=0), counted: the figure
 * the per-CPU caches exist to make small. */
unsigned long kmalloc_lock_irqsave(void);
void kmalloc_unlock_irqrestore(unsigned long flags);

/*
 * Under kmalloc_lock. slab_take_locked(): a free object of class cls
 * (poison left set), from a partial slab or a new one; NULL when no page
 * is left. slab_put_locked(): object o back to its slab s, unchecked (it
 * was checked on its way into a sheaf); a slab left with every object
 * free is unlinked and pushed on *empty, whose pages the caller frees
 * once the lock is dropped (slabs_release()).
 */
struct free_obj *slab_take_locked(int cls);
void slab_put_locked(struct slab *s, struct free_obj *o, struct slab **empty);
void slabs_release(struct slab *empty);

/* The shared path, for the callers that may not use a sheaf (and for
 * all calls while the sheaves are off): one object, one acquisition of
 * kmalloc_lock. kmalloc_shared_free() checks a suspected double free
 * and returns why the free is bad, or NULL. */
void *kmalloc_shared_alloc(int cls);
const char *kmalloc_shared_free(struct slab *s, struct free_obj *o);

/* Under kmalloc_lock: whether o, whose poison is set, is free for real:
 * on its slab's free list or in some CPU's sheaf. */
bool kmalloc_obj_is_free_locked(struct slab *s, struct free_obj *o);

/*
 * The per-CPU layer (kmalloc_pcp.c). kmalloc_pcp_usable(): the sheaves
 * are on and the caller could take a lock that sleeps on PREEMPT_RT
 * (preemptible task context); everything else takes the shared slabs
 * (see kmalloc_pcp.c for why). kmalloc_pcp_alloc(): an object of class
 * cls, poison cleared, or NULL. kmalloc_pcp_free(): o (checked to be an
 * object's start) into this CPU's sheaf; NULL, or why it is a bad free.
 */
extern bool kmalloc_pcp_on;

static inline bool kmalloc_pcp_usable(void)
{
	return READ_ONCE(kmalloc_pcp_on) && preemptible();
}

void *kmalloc_pcp_alloc(int cls);
const char *kmalloc_pcp_free(struct slab *s, struct free_obj *o, int cls);
/* Whether o is in one of the CPUs' sheaves of class cls (kmalloc_lock
 * held: see kmalloc_pcp.c for how exact that is). */
bool kmalloc_pcp_holds(const void *o, int cls);

#endif
