/*
 * The exception table: pairs (faulting instruction, where to continue) for
 * the few kernel instructions that may fault on purpose, those that touch
 * user memory. A fault at one of them is not a kernel bug: the trap
 * handler continues at the fixup, which reports the failure to its caller
 * (-EFAULT in the end). As Linux's __ex_table.
 */
#ifndef EXTABLE_H
#define EXTABLE_H

#include <stdint.h>

struct exception_table_entry {
	uintptr_t insn;
	uintptr_t fixup;
};

/* The fixup address for a fault at ip, or 0 when ip has none. */
uintptr_t search_exception_tables(uintptr_t ip);

#endif
