/*
 * The user programs carried in the kernel image: each ELF file built from
 * user/ is linked in as a blob (the build generates the table, see the
 * Makefile), found by name, as spawn() and init= ask for them.
 */
#ifndef USER_PROGRAMS_H
#define USER_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>

struct user_program {
	const char *name;
	const uint8_t *start, *end;
};

extern const struct user_program user_programs[];
extern const uint64_t nr_user_programs;

/* The program called name, or NULL. */
const struct user_program *user_program_find(const char *name);

#endif
