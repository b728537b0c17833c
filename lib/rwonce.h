/*
 * READ_ONCE() and WRITE_ONCE(), as Linux's asm-generic/rwonce.h: one load
 * or one store of a scalar that another CPU (or an interrupt handler) may
 * change or read at the same time, made exactly once, whole, and where the
 * code says. A plain access gives the compiler leave to fuse, split, cache
 * or invent loads and stores; these take it away, through a volatile
 * access of the variable's own size. They do not order anything on the CPU:
 * see smp_load_acquire() and smp_store_release() (asm/barrier.h) for that.
 *
 * They are also the code's way of saying "this access is racy on purpose":
 * the per-CPU checker's compiler hooks treat them as marked accesses, as
 * Linux's KCSAN does, and never report them (docs/lockdep.md).
 */
#ifndef RWONCE_H
#define RWONCE_H

/* Only what one instruction loads or stores: 1, 2, 4 or 8 bytes. */
#define __rwonce_size_ok(x)                                                   \
	(sizeof(x) == 1 || sizeof(x) == 2 || sizeof(x) == 4 || sizeof(x) == 8)
#define compiletime_assert_rwonce_type(x)                                     \
	_Static_assert(__rwonce_size_ok(x),                                   \
		       "READ_ONCE/WRITE_ONCE need a 1, 2, 4 or 8 byte scalar")

/*
 * The type of x without const or volatile, for scalars (Linux's
 * __unqual_scalar_typeof): so that READ_ONCE() of a const or volatile
 * variable gives a plain value a caller may assign to a local.
 */
#define __scalar_type_to_expr_cases(type)                                     \
	unsigned type : (unsigned type)0, signed type : (signed type)0
#define __unqual_scalar_typeof(x)                                             \
	__typeof__(_Generic((x), char : (char)0,                              \
			    __scalar_type_to_expr_cases(char),                \
			    __scalar_type_to_expr_cases(short),               \
			    __scalar_type_to_expr_cases(int),                 \
			    __scalar_type_to_expr_cases(long),                \
			    __scalar_type_to_expr_cases(long long),           \
			    default : (x)))

/*
 * The access itself: a volatile access of the variable's own size, as in
 * Linux, also where the per-CPU checker's compiler hooks instrument the
 * code (TSAN=1). There --param=tsan-distinguish-volatile=1 (the Makefile's
 * TSAN_CFLAGS) gives a volatile access hooks of its own,
 * __tsan_volatile_readN()/writeN(), and the assembler drops their calls
 * (arch/x86_64/tsan_call.S): a marked access is never checked, as KCSAN
 * treats it, and costs what it costs uninstrumented. An __atomic builtin
 * would not do: its hook (__tsan_atomicN_*()) is a call that performs the
 * access, never filtered, so every READ_ONCE() of a lock word or a task's
 * field would pay a call and every WRITE_ONCE() a locked exchange.
 */
#define __READ_ONCE(x) (*(const volatile __unqual_scalar_typeof(x) *)&(x))
#define __WRITE_ONCE(x, val) (*(volatile __typeof__(x) *)&(x) = (val))

#define READ_ONCE(x)                                                          \
	({                                                                    \
		compiletime_assert_rwonce_type(x);                            \
		__READ_ONCE(x);                                               \
	})

#define WRITE_ONCE(x, val)                                                    \
	do {                                                                  \
		compiletime_assert_rwonce_type(x);                            \
		__WRITE_ONCE(x, val);                                         \
	} while (0)

#endif
