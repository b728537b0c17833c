/*
 * The ELF loader's validation (kernel/user/elf.c): the hello program's image
 * with one header field corrupted at a time must be refused with
 * -ENOEXEC, never loaded half-way or crash; the untouched image loads.
 */
#include "ktest.h"
#include "elf.h"
#include "kmalloc.h"
#include "string.h"
#include "user_programs.h"

/* One corruption: size bytes of value at offset off of the ELF header
 * (phdr < 0) or of program header phdr; or a shortened file. */
struct corruption {
	const char *what;
	int phdr;
	size_t off, size;
	uint64_t value;
};

#define EH(field, v) {#field, -1, __builtin_offsetof(struct elf64_ehdr, field), \
	sizeof(((struct elf64_ehdr *)0)->field), (v)}
#define PH(n, field, v) {#field, n, __builtin_offsetof(struct elf64_phdr, field), \
	sizeof(((struct elf64_phdr *)0)->field), (v)}

static const struct corruption corruptions[] = {
	{"magic", -1, 1, 1, 'X'},
	{"class (32-bit)", -1, 4, 1, 1},
	{"data (big-endian)", -1, 5, 1, 2},
	EH(e_type, 3),                   /* ET_DYN */
	EH(e_machine, 3),                /* i386 */
	EH(e_version, 2),
	EH(e_entry, 0x10),               /* not in any segment */
	EH(e_entry, 0x7ffffffff000ul),
	EH(e_phoff, 0xfffffffffffffff0ul), /* offset + size wraps */
	EH(e_phoff, 1ul << 40),
	EH(e_ehsize, 32),
	EH(e_phentsize, 32),
	EH(e_phnum, 0),
	EH(e_phnum, ELF_MAX_PHNUM + 1),
	PH(0, p_offset, 1ul << 40),      /* beyond the file */
	PH(0, p_offset, 0xfffffffffffff000ul), /* offset + size wraps */
	PH(0, p_filesz, 1ul << 40),
	PH(0, p_memsz, 1),               /* below p_filesz */
	PH(0, p_vaddr, 0xffffffff80000000ul), /* the kernel's half */
	PH(0, p_vaddr, 0),               /* below the load window */
	PH(0, p_vaddr, 0x3ffff000),      /* runs past the load window */
	PH(0, p_vaddr, 0xfffffffffffff000ul), /* vaddr + memsz wraps */
	PH(0, p_vaddr, 0x400800),        /* vaddr and offset disagree */
	PH(0, p_flags, PF_R | PF_W | PF_X),
	PH(0, p_flags, PF_R),            /* entry no longer executable */
	PH(1, p_vaddr, 0x400000),        /* shares the text's page */
};

static uint8_t *image_copy(const struct user_program *prog)
{
	size_t size = prog->end - prog->start;
	uint8_t *copy = kmalloc(size);

	if (copy)
		memcpy(copy, prog->start, size);
	return copy;
}

static int try_load(const uint8_t *image, size_t size)
{
	struct mm mm;
	uintptr_t entry;
	int err;

	if (mm_init(&mm))
		return -ENOMEM;
	err = elf_load(&mm, image, size, "corrupt-hello", &entry);
	mm_destroy(&mm);
	return err;
}

KTEST(elf, hello_loads)
{
	const struct user_program *prog = user_program_find("hello");

	KASSERT_TRUE(prog);
	KEXPECT_EQ(try_load(prog->start, prog->end - prog->start), 0);
}

KTEST(elf, corrupt_headers_refused)
{
	const struct user_program *prog = user_program_find("hello");
	size_t size;

	KASSERT_TRUE(prog);
	size = prog->end - prog->start;
	for (unsigned i = 0; i < ARRAY_SIZE(corruptions); i++) {
		const struct corruption *c = &corruptions[i];
		uint8_t *img = image_copy(prog);
		size_t at = c->off;
		int err;

		KASSERT_TRUE(img);
		if (c->phdr >= 0)
			at += ((struct elf64_ehdr *)img)->e_phoff +
			      c->phdr * sizeof(struct elf64_phdr);
		memcpy(img + at, &c->value, c->size);
		err = try_load(img, size);
		if (err != -ENOEXEC)
			ktest_log("corruption %u (%s = %#lx) gave %d", i,
				  c->what, (unsigned long)c->value, err);
		KEXPECT_EQ(err, -ENOEXEC);
		kfree(img);
	}
}

KTEST(elf, truncated_refused)
{
	const struct user_program *prog = user_program_find("hello");
	const struct elf64_ehdr *eh;
	const struct elf64_phdr *ph;

	KASSERT_TRUE(prog);
	eh = (const struct elf64_ehdr *)prog->start;
	KEXPECT_EQ(try_load(prog->start, 0), -ENOEXEC);
	KEXPECT_EQ(try_load(prog->start, sizeof(*eh) - 1), -ENOEXEC);
	/* Headers complete, program headers cut. */
	KEXPECT_EQ(try_load(prog->start, eh->e_phoff + 8), -ENOEXEC);
	/* The last segment cut short. */
	ph = (const struct elf64_phdr *)(prog->start + eh->e_phoff) +
	     eh->e_phnum - 1;
	KASSERT_GT(ph->p_filesz, 1);
	KEXPECT_EQ(try_load(prog->start, ph->p_offset + 1), -ENOEXEC);
}
