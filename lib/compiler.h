/*
 * The compiler's attributes and barriers under Linux's names: the one place
 * that knows them, so every layer (lib, arch, core, tests) spells them the
 * same way.
 */
#ifndef COMPILER_H
#define COMPILER_H

/* Inlined even at -O0 or when gcc judges the body too large: for the lock
 * fast paths, whose call sites are the acquisition sites lockdep records. */
#define __always_inline inline __attribute__((always_inline))
#define __noreturn __attribute__((noreturn))

/* No load or store moves across this point at compile time; the CPU may
 * still reorder (see the atomics where that matters). */
#define barrier() __asm__ volatile("" ::: "memory")

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
