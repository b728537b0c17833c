/*
 * The ELF loader (see elf.h). Validation comes first and is complete: the
 * identification bytes, the type and machine, the program header table's
 * place in the file, and for each PT_LOAD segment its place in the file
 * and in the user load window (all sums checked for overflow), its size
 * fields, its alignment, its permissions (never writable and executable),
 * no page shared with another segment, and an entry point inside an
 * executable segment. Only then is anything mapped.
 */
#include "user/elf.h"
#include "asm/page.h"
#include "printk.h"
#include "string.h"

static const unsigned char elf_magic[] = {0x7f, 'E', 'L', 'F',
					  2 /* 64-bit */, 1 /* LSB */,
					  1 /* version */};

#define ET_EXEC 2
#define EM_X86_64 62

static int elf_refuse(const char *name, const char *why)
{
	printk("elf: %s: %s: not loaded\n", name, why);
	return -ENOEXEC;
}

/* start + len without overflow and within [lo, hi]. */
static bool range_within(uint64_t start, uint64_t len, uint64_t lo,
			 uint64_t hi)
{
	return start >= lo && start <= hi && len <= hi - start;
}

static const char *check_ehdr(const struct elf64_ehdr *eh, size_t size)
{
	if (memcmp(eh->e_ident, elf_magic, sizeof(elf_magic)))
		return "bad identification (not a little-endian ELF64 file)";
	if (eh->e_type != ET_EXEC)
		return "not a static executable (e_type)";
	if (eh->e_machine != EM_X86_64)
		return "not an x86-64 program (e_machine)";
	if (eh->e_version != 1)
		return "unknown ELF version";
	if (eh->e_ehsize != sizeof(*eh))
		return "bad header size (e_ehsize)";
	if (eh->e_phentsize != sizeof(struct elf64_phdr))
		return "bad program header size (e_phentsize)";
	if (eh->e_phnum == 0 || eh->e_phnum > ELF_MAX_PHNUM)
		return "no or too many program headers (e_phnum)";
	if (!range_within(eh->e_phoff,
			  (uint64_t)eh->e_phnum * sizeof(struct elf64_phdr), 0,
			  size))
		return "program headers outside the file (e_phoff)";
	return 0;
}

static const char *check_load(const struct elf64_phdr *ph, size_t size)
{
	if (!range_within(ph->p_offset, ph->p_filesz, 0, size))
		return "segment outside the file (p_offset/p_filesz)";
	if (ph->p_filesz > ph->p_memsz)
		return "segment file size above its memory size";
	if (!range_within(ph->p_vaddr, ph->p_memsz, USER_LOAD_MIN,
			  USER_LOAD_MAX))
		return "segment outside the user load window (p_vaddr)";
	if ((ph->p_vaddr - ph->p_offset) % PAGE_SIZE)
		return "segment address and offset disagree modulo the page";
	if ((ph->p_flags & PF_W) && (ph->p_flags & PF_X))
		return "segment both writable and executable";
	return 0;
}

/* A segment to map: PT_LOAD and not empty (ld may emit empty ones). */
static bool loadable(const struct elf64_phdr *ph)
{
	return ph->p_type == PT_LOAD && ph->p_memsz;
}

static bool pages_overlap(const struct elf64_phdr *a,
			  const struct elf64_phdr *b)
{
	return PAGE_ALIGN_DOWN(a->p_vaddr) < PAGE_ALIGN(b->p_vaddr + b->p_memsz) &&
	       PAGE_ALIGN_DOWN(b->p_vaddr) < PAGE_ALIGN(a->p_vaddr + a->p_memsz);
}

/* All checks on the segments; 0 or why not. */
static const char *check_segments(const struct elf64_ehdr *eh,
				  const struct elf64_phdr *ph, size_t size)
{
	bool entry_ok = false;
	const char *why;

	for (int i = 0; i < eh->e_phnum; i++) {
		if (!loadable(&ph[i]))
			continue;
		if ((why = check_load(&ph[i], size)))
			return why;
		for (int j = 0; j < i; j++)
			if (loadable(&ph[j]) && pages_overlap(&ph[i], &ph[j]))
				return "two segments share a page";
		if ((ph[i].p_flags & PF_X) && eh->e_entry >= ph[i].p_vaddr &&
		    eh->e_entry < ph[i].p_vaddr + ph[i].p_filesz)
			entry_ok = true;
	}
	return entry_ok ? 0 : "entry point not in an executable segment";
}

static int load_segment(struct mm *mm, const char *image,
			const struct elf64_phdr *ph)
{
	unsigned prot = (ph->p_flags & PF_W ? MM_WRITE : 0) |
			(ph->p_flags & PF_X ? MM_EXEC : 0);
	int err = mm_map_zero(mm, ph->p_vaddr, ph->p_memsz, prot);

	if (err)
		return err;
	return mm_write(mm, ph->p_vaddr, image + ph->p_offset, ph->p_filesz);
}

int elf_load(struct mm *mm, const void *image, size_t size, const char *name,
	     uintptr_t *entry)
{
	struct elf64_ehdr eh;
	struct elf64_phdr ph[ELF_MAX_PHNUM];
	const char *why;
	int err;

	if (size < sizeof(eh))
		return elf_refuse(name, "shorter than an ELF header");
	memcpy(&eh, image, sizeof(eh));
	if ((why = check_ehdr(&eh, size)))
		return elf_refuse(name, why);
	memcpy(ph, (const char *)image + eh.e_phoff, eh.e_phnum * sizeof(*ph));
	if ((why = check_segments(&eh, ph, size)))
		return elf_refuse(name, why);
	for (int i = 0; i < eh.e_phnum; i++)
		if (loadable(&ph[i]) &&
		    (err = load_segment(mm, image, &ph[i])))
			return err;
	*entry = eh.e_entry;
	return 0;
}
