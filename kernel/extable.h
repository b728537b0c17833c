/*
 * The exception table: for the few kernel instructions that may fault on
 * purpose, those that touch user memory, where to continue and which of
 * their operands is the user's. A fault on the user's side is not a
 * kernel bug: the trap handler continues at the fixup, which reports the
 * failure to its caller (-EFAULT in the end). A fault on the kernel's side
 * is one, and is reported as such. As Linux's __ex_table with its entry
 * types.
 */
#ifndef EXTABLE_H
#define EXTABLE_H

#include <stdint.h>

/* Which side of a copy is user memory (the asm that builds the table
 * spells the same numbers). */
enum ex_type {
	EX_TYPE_UACCESS_FROM = 1,    /* a copy from user memory */
	EX_TYPE_UACCESS_TO = 2,      /* a copy to user memory */
};

struct exception_table_entry {
	uintptr_t insn;
	uintptr_t fixup;
	uintptr_t type;              /* enum ex_type */
};

/* The entry for a fault at ip, or NULL when ip has none. */
const struct exception_table_entry *search_exception_tables(uintptr_t ip);

#endif
