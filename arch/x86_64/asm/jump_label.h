/*
 * The arch half of static keys (kernel/jump_label.h), as Linux's
 * asm/jump_label.h: each static_branch_unlikely() site is a 5-byte
 * instruction in the code, a nop while its key is off (execution falls
 * through to the likely path, with no load and no branch) and a jmp to the
 * unlikely block while it is on. Each site records (site, target, key) in
 * the __jump_table section, which the core walks to patch them.
 */
#ifndef _ASM_X86_JUMP_LABEL_H
#define _ASM_X86_JUMP_LABEL_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

#define JUMP_LABEL_NOP_SIZE 5

struct static_key;

/* One site: the address of its 5-byte instruction, where the jmp goes,
 * and its key. Linker script: __start___jump_table..__stop___jump_table. */
struct jump_entry {
	uintptr_t code;
	uintptr_t target;
	struct static_key *key;
};

extern const struct jump_entry __start___jump_table[], __stop___jump_table[];

/* False (falls through the nop) until the key's sites are patched. The
 * key must be a link-time constant: a static key is a global. */
static __always_inline bool arch_static_branch(struct static_key *key)
{
	__asm__ goto("1: .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t" /* nopl 0(%%rax,%%rax) */
		     ".pushsection __jump_table, \"a\"\n\t"
		     ".balign 8\n\t"
		     ".quad 1b, %l[l_yes], %c0\n\t"
		     ".popsection"
		     : : "i"(key) : : l_yes);
	return false;
l_yes:
	return true;
}

/* Queue the site to become a jmp to its target (enable) or the nop
 * again; false, with nothing queued, when the batch is full (the caller
 * applies it and queues again, as Linux's __jump_label_update() does).
 * _apply() patches what is queued, safely while other CPUs run through
 * it (text_patch.c), all sites in one go. Sleeps; one caller at a time
 * (the core's jump_label_mutex), kept on one CPU throughout. */
bool arch_jump_label_transform_queue(const struct jump_entry *e, bool enable);
void arch_jump_label_transform_apply(void);

#endif
