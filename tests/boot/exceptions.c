/*
 * Tests of fatal-error reporting (arch/x86_64/trap.c, kernel/panic.c).
 * Most are panic tests: each ends the kernel, so the host runner boots it
 * alone and checks that the report holds the expected strings. The helpers
 * that fault have distinctive names, which the call trace must show.
 */
#include "ktest.h"
#include "panic.h"

/* Opaque to the compiler: nothing below can be folded away. */
static volatile int exc_zero;
static volatile int exc_recursion_end = -1;
static volatile int exc_sink;

/*
 * The faulting helpers are noipa (no inlining, no renamed clones such as
 * "name.isra.0") so that the trace shows their own names. The pointer lives
 * on the stack, which gives the helper a stack frame: gcc builds none for a
 * leaf that needs no stack, and the trace would then skip its caller.
 */
__attribute__((noipa)) static void exc_write_bad_address(void)
{
	volatile int *volatile p = (volatile int *)0xdead000;

	*p = 1;
}

/* A write to an unmapped address: #PF, CR2, and both the writer and its
 * caller in the trace. */
KTEST_PANIC(exc, page_fault, "unhandled exception 14", "#PF page fault",
	    "CR2: 000000000dead000 (not-present page on write in kernel mode)",
	    "exc_write_bad_address+", "ktest_fn_exc_page_fault+",
	    "end Kernel panic")
{
	exc_write_bad_address();
	exc_sink = 1; /* not reached; keeps the call from being a tail call */
}

/* Not a tail call (the sum comes after it), and 256 bytes of stack per
 * level: this runs into the guard page below the boot stack. */
__attribute__((noipa)) static int exc_recurse_forever(int depth)
{
	volatile char frame[256];

	frame[depth % sizeof(frame)] = (char)depth;
	if (depth == exc_recursion_end)
		return 0;
	return exc_recurse_forever(depth + 1) + frame[depth % sizeof(frame)];
}

/* A kernel stack overflow hits the guard page; the #PF cannot be pushed
 * on the stack, so it becomes a #DF reported on its IST stack. */
KTEST_PANIC(exc, stack_overflow, "unhandled exception 8", "#DF double fault",
	    "guard page", "exc_recurse_forever+", "end Kernel panic")
{
	exc_recurse_forever(0);
}

__attribute__((noipa)) static void exc_execute_ud2(void)
{
	__asm__ volatile("ud2");
}

/* An invalid instruction: #UD, with RIP in the function that ran it. */
KTEST_PANIC(exc, invalid_opcode, "unhandled exception 6", "#UD invalid opcode",
	    "exc_execute_ud2+", "end Kernel panic")
{
	exc_execute_ud2();
}

/* An integer division by zero: #DE. */
KTEST_PANIC(exc, divide_error, "unhandled exception 0", "#DE divide error",
	    "ktest_fn_exc_divide_error+", "end Kernel panic")
{
	exc_sink = 1000 / exc_zero;
}

/* panic(): the formatted message and a trace through the caller. */
KTEST_PANIC(exc, panic_call,
	    "Kernel panic - not syncing: ktest deliberate panic 42",
	    "ktest_fn_exc_panic_call+", "end Kernel panic")
{
	panic("ktest deliberate panic %d", 42);
}

/* A "ret" in writable data: executing it must fault, since data is NX. */
static unsigned char exc_data_code[16] = {0xc3};

KTEST_PANIC(exc, nx_fault, "unhandled exception 14", "#PF page fault",
	    "protection violation on instruction fetch in kernel mode, NX",
	    "end Kernel panic")
{
	void (*fn)(void) = (void (*)(void))(uintptr_t)exc_data_code;

	__asm__ volatile("" : "+r"(fn)); /* an opaque pointer: a real call */
	fn();
}

static const char exc_rodata_string[] = "read-only";

/* A write to rodata faults: CR0.WP applies the R/W bit to ring 0 too. */
KTEST_PANIC(exc, rodata_write, "unhandled exception 14",
	    "protection violation on write in kernel mode", "end Kernel panic")
{
	volatile char *p = (volatile char *)exc_rodata_string;

	__asm__ volatile("" : "+r"(p));
	*p = 'X';
}

/* WARN_ON of a true condition reports, returns true, and we carry on. */
KTEST(exc, warn_on_true_returns_true_and_continues)
{
	volatile int one = 1;
	bool warned = WARN_ON(one == 1);

	KEXPECT_TRUE(warned);
	KEXPECT_TRUE(WARN_ON(one));
}

/* WARN_ON of a false condition returns false (and prints nothing). */
KTEST(exc, warn_on_false_returns_false)
{
	volatile int zero = 0;

	KEXPECT_FALSE(WARN_ON(zero));
	KEXPECT_FALSE(WARN_ON(zero != 0));
}
