/*
 * The kernel's own symbol table, embedded in the image by a second link
 * (scripts/build/gensyms.sh), so that backtraces name functions.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* The function or data symbol containing addr, or NULL; *offset and
 * *size describe where addr lies in it. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size);

/* The address of a function by name, or 0. */
uintptr_t ksym_address(const char *name);

/* Print "name+0xoff/0xsize" (or the bare address) with no newline. */
void print_symbol(uintptr_t addr);

/* The same into buf (size bytes, always terminated); returns buf. */
const char *ksym_snprint(char *buf, size_t size, uintptr_t addr);

#endif
