/*
 * Patching kernel code under running CPUs. Intel's rule for
 * cross-modifying code (SDM vol. 3, 8.1.3) is that another CPU may fetch
 * a half-written instruction unless the writer uses a one-byte int3 as a
 * fence, so text_poke_bp() does what Linux's does:
 *
 *   1. write int3 over the first byte; every CPU serialises;
 *   2. write the rest of the new instruction; every CPU serialises;
 *   3. write the new first byte; every CPU serialises.
 *
 * (and, for QEMU's sake, the whole instruction once more: see below).
 * In between, a CPU reaching the site takes #BP, and the handler moves it
 * to where the new instruction would have taken it (its emulation). The
 * code is written through the direct map: the kernel image's own mapping
 * of text is read-only.
 */
#include "asm/jump_label.h"
#include "asm/page.h"
#include "asm/processor.h"
#include "asm/text-patching.h"
#include "smp.h"
#include "string.h"
#include "trap.h"

#define INT3_INSN 0xcc
#define JMP32_INSN 0xe9

/* The site being patched and where a CPU that stops there goes on; read
 * by the #BP handler on any CPU, written only between the serialisations
 * of text_poke_bp() (one caller at a time). */
static struct {
	uintptr_t addr;
	uintptr_t emulate;
} bp_patch;

static void text_poke(void *addr, const void *src, size_t len)
{
	memcpy(phys_to_virt(virt_to_phys(addr)), src, len);
}

/* cpuid serialises: the CPU refetches whatever it had prefetched. */
static void sync_core(void *unused)
{
	uint32_t a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
}

/* Every online CPU, this one included, serialised after the last write:
 * the others in the IPI handler (which they leave with iretq, also
 * serialising), after any #BP handler they were in. */
static void text_poke_sync(void)
{
	smp_call_function_many(cpu_online_mask, sync_core, 0, true);
	sync_core(0);
}

void text_poke_bp(void *addr, const void *insn, size_t len, uintptr_t emulate)
{
	uint8_t int3 = INT3_INSN;

	__atomic_store_n(&bp_patch.emulate, emulate, __ATOMIC_RELAXED);
	__atomic_store_n(&bp_patch.addr, (uintptr_t)addr, __ATOMIC_RELEASE);
	text_poke(addr, &int3, 1);
	text_poke_sync();
	text_poke((uint8_t *)addr + 1, (const uint8_t *)insn + 1, len - 1);
	text_poke_sync();
	text_poke(addr, insn, 1);
	text_poke_sync();
	/* Once more, the same bytes. Under QEMU's TCG a CPU can translate
	 * the site from memory just as the last write lands, and keep the
	 * int3 it read: TCG stops watching a page for writes when its last
	 * translation is dropped, and watches it again only once the new
	 * one is made. Every CPU has finished translating by now (it took
	 * the IPI since), so this write is seen and drops what was stale.
	 * On hardware it changes nothing. */
	text_poke(addr, insn, len);
	text_poke_sync();
	/* No CPU can be at the int3 now: each has serialised since. */
	__atomic_store_n(&bp_patch.addr, 0, __ATOMIC_RELAXED);
}

/* int3s taken at a site whose patch had completed (see below). */
unsigned long text_poke_stale_int3;

bool text_poke_int3_handler(struct trap_frame *f)
{
	/* RIP is past the one-byte int3. */
	uintptr_t at = f->rip - 1;

	if (at == __atomic_load_n(&bp_patch.addr, __ATOMIC_ACQUIRE)) {
		f->rip = __atomic_load_n(&bp_patch.emulate, __ATOMIC_RELAXED);
		return true;
	}
	/* The int3 is gone from memory: this CPU fetched it just before the
	 * patch completed (as Linux's kprobes says of a removed probe). Run
	 * what is there now. A real int3 is still in memory: not ours. */
	if (*(volatile uint8_t *)at != INT3_INSN) {
		__atomic_fetch_add(&text_poke_stale_int3, 1, __ATOMIC_RELAXED);
		f->rip = at;
		return true;
	}
	return false;
}

void arch_jump_label_transform(const struct jump_entry *e, bool enable)
{
	uint8_t insn[JUMP_LABEL_NOP_SIZE] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	uintptr_t next = e->code + JUMP_LABEL_NOP_SIZE;

	if (enable) {
		int32_t rel = (int32_t)(e->target - next);

		insn[0] = JMP32_INSN;
		memcpy(&insn[1], &rel, sizeof(rel));
	}
	text_poke_bp((void *)e->code, insn, sizeof(insn),
		     enable ? e->target : next);
}
