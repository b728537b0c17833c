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

/* Branch hints, as Linux's: the compiler lays the likely side out as the
 * straight-line path, so a fast path stays a fall-through and its rare
 * case (a pending migration, a report) jumps away. A macro, because the
 * hint must reach the branch the caller writes. */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/*
 * IS_ENABLED(CONFIG_FOO): 1 when the build defines CONFIG_FOO (as 1, which
 * is what -DCONFIG_FOO does), else 0; an integer constant expression, so
 * code for both configurations is compiled and type-checked, and the one
 * not taken is dropped: `if (IS_ENABLED(CONFIG_PREEMPT_RT))` in place of
 * an #ifdef inside a function. Linux's trick: a defined option turns
 * __ARG_PLACEHOLDER_1 into "0," and so shifts the 1 into second place.
 */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define __is_defined(x) ___is_defined(x)
#define IS_ENABLED(option) __is_defined(option)

#endif
