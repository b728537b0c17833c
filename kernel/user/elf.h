/*
 * Loading a static ELF64 executable into a user address space. Every
 * header field the loader relies on is checked against the image first: a
 * bad file is refused with a message naming what is wrong, never loaded
 * half-way into a crash.
 */
#ifndef ELF_H
#define ELF_H

#include <stddef.h>
#include <stdint.h>
#include "mm/mm.h"

struct elf64_ehdr {
	unsigned char e_ident[16];
	uint16_t e_type, e_machine;
	uint32_t e_version;
	uint64_t e_entry, e_phoff, e_shoff;
	uint32_t e_flags;
	uint16_t e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum,
		e_shstrndx;
};

struct elf64_phdr {
	uint32_t p_type, p_flags;
	uint64_t p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

#define PT_LOAD 1
#define PF_X 1
#define PF_W 2
#define PF_R 4
#define ELF_MAX_PHNUM 16

/* Check image (size bytes) and map its PT_LOAD segments into mm; name is
 * for messages. Returns 0 and the entry point, or -ENOEXEC (with a line on
 * the console saying why) or -ENOMEM. On failure mm may hold some of the
 * segments; its owner destroys it. */
int elf_load(struct mm *mm, const void *image, size_t size, const char *name,
	     uintptr_t *entry);

#endif
