/*
 * Patching kernel code under running CPUs. Intel's rule for
 * cross-modifying code (SDM vol. 3, 8.1.3) is that another CPU may fetch
 * a half-written instruction unless the writer uses a one-byte int3 as a
 * fence, so text_poke_bp_batch() does what Linux's does, for a batch of
 * sites at once:
 *
 *   1. write int3 over the first byte of each; every CPU serialises;
 *   2. write the rest of each new instruction; every CPU serialises;
 *   3. write each new first byte; every CPU serialises;
 *
 * and, for QEMU's sake, each whole instruction once more (see below).
 * In between, a CPU reaching a site takes #BP, and the handler moves it
 * to where the new instruction would have taken it (its emulation). The
 * code is written through the direct map: the kernel image's own mapping
 * of text is read-only. A batch costs four rounds of IPIs however many
 * sites it holds (a static key has hundreds: migrate_disable() is inline).
 */
#include "asm/jump_label.h"
#include "asm/page.h"
#include "asm/processor.h"
#include "asm/text-patching.h"
#include "atomic.h"
#include "smp.h"
#include "string.h"
#include "trap.h"

#define INT3_INSN 0xcc
#define JMP32_INSN 0xe9
#define POKE_MAX_LEN 5
#define POKE_BATCH 128

/* One site of the batch: its new instruction and where a CPU that stops
 * at its int3 goes on. */
struct text_poke_loc {
	uintptr_t addr;
	uintptr_t emulate;
	uint8_t len;
	uint8_t insn[POKE_MAX_LEN];
};

/* The batch. Filled by one caller at a time (the core's lock); nr_live
 * is how many of its sites the #BP handler may find, published before
 * the first int3 is written and cleared after the last serialisation:
 * a release store, so that a CPU whose acquire load in the handler sees
 * n also sees the n sites filled in before it. */
static struct text_poke_loc poke_vec[POKE_BATCH];
static int poke_nr;
static int poke_nr_live;

/* int3s taken at a site whose patch had completed; by any CPU's #BP
 * handler, so atomic. */
static atomic_long_t text_poke_stale_int3;

unsigned long text_poke_nr_stale_int3(void)
{
	return atomic_long_read(&text_poke_stale_int3);
}

static void text_poke(uintptr_t addr, const void *src, size_t len)
{
	memcpy(phys_to_virt(virt_to_phys((const void *)addr)), src, len);
}

/* cpuid serialises: the CPU refetches whatever it had prefetched. */
static void sync_core(void *unused)
{
	uint32_t a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
}

/* Every online CPU, this one included, serialised after the last write:
 * the others in the IPI handler (which they leave with iretq, also
 * serialising), after any #BP handler they were in. The caller keeps
 * the task on this CPU (migrate_disable(), kernel/jump_label.c), so the
 * CPU the IPIs skip is the one serialised here. */
static void text_poke_sync(void)
{
	smp_call_function_many(cpu_online_mask, sync_core, 0, true);
	sync_core(0);
}

static void text_poke_bp_batch(struct text_poke_loc *v, int n)
{
	uint8_t int3 = INT3_INSN;

	smp_store_release(&poke_nr_live, n);
	for (int i = 0; i < n; i++)
		text_poke(v[i].addr, &int3, 1);
	text_poke_sync();
	for (int i = 0; i < n; i++)
		text_poke(v[i].addr + 1, v[i].insn + 1, v[i].len - 1);
	text_poke_sync();
	for (int i = 0; i < n; i++)
		text_poke(v[i].addr, v[i].insn, 1);
	text_poke_sync();
	/* Once more, the same bytes. Under QEMU's TCG a CPU can translate
	 * a site from memory just as the last write lands, and keep the
	 * int3 it read: TCG stops watching a page for writes when its last
	 * translation is dropped, and watches it again only once the new
	 * one is made. Every CPU has finished translating by now (it took
	 * the IPI since), so this write is seen and drops what was stale.
	 * On hardware it changes nothing. */
	for (int i = 0; i < n; i++)
		text_poke(v[i].addr, v[i].insn, v[i].len);
	text_poke_sync();
	/* No CPU can be at an int3 now: each has serialised since, so no
	 * handler still reads the batch and the store needs no order. */
	WRITE_ONCE(poke_nr_live, 0);
}

/* A full batch is the caller's to flush: it patches under the caller's
 * conditions (pinned, kernel/jump_label.c), never behind its back. */
bool text_poke_queue(void *addr, const void *insn, size_t len,
		     uintptr_t emulate)
{
	struct text_poke_loc *l;

	if (poke_nr == POKE_BATCH)
		return false;
	l = &poke_vec[poke_nr++];
	l->addr = (uintptr_t)addr;
	l->emulate = emulate;
	l->len = len;
	memcpy(l->insn, insn, len);
	return true;
}

void text_poke_finish(void)
{
	if (poke_nr)
		text_poke_bp_batch(poke_vec, poke_nr);
	poke_nr = 0;
}

static bool is_jump_site(uintptr_t at)
{
	for (const struct jump_entry *e = __start___jump_table;
	     e < __stop___jump_table; e++)
		if (e->code == at)
			return true;
	return false;
}

bool text_poke_int3_handler(struct trap_frame *f)
{
	/* RIP is past the one-byte int3. */
	uintptr_t at = f->rip - 1;
	int n = smp_load_acquire(&poke_nr_live);

	for (int i = 0; i < n; i++) {
		if (poke_vec[i].addr == at) {
			f->rip = poke_vec[i].emulate;
			return true;
		}
	}
	/* The int3 is gone from memory: this CPU fetched it just before the
	 * patch completed (as Linux's kprobes says of a removed probe). Run
	 * what is there now, if it is a site we patch. A real int3 is still
	 * in memory, and another #BP (an `int $3`, two bytes) is no site:
	 * not ours. READ_ONCE: the byte is being written by the patching
	 * CPU; it must be read from memory now, once. */
	if (READ_ONCE(*(const uint8_t *)at) != INT3_INSN && is_jump_site(at)) {
		atomic_long_inc(&text_poke_stale_int3);
		f->rip = at;
		return true;
	}
	return false;
}

bool arch_jump_label_transform_queue(const struct jump_entry *e, bool enable)
{
	uint8_t insn[JUMP_LABEL_NOP_SIZE] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	uintptr_t next = e->code + JUMP_LABEL_NOP_SIZE;

	if (enable) {
		int32_t rel = (int32_t)(e->target - next);

		insn[0] = JMP32_INSN;
		memcpy(&insn[1], &rel, sizeof(rel));
	}
	return text_poke_queue((void *)e->code, insn, sizeof(insn),
			       enable ? e->target : next);
}

void arch_jump_label_transform_apply(void)
{
	text_poke_finish();
}
