/*
 * The inline half of the per-CPU checker's compiler hooks (TSAN=1; the
 * other half is kernel/locking/lockdep_percpu_tsan.c). GCC's
 * -fsanitize=thread calls a hook before every load and store it
 * instruments and cannot inline one; under QEMU's TCG the call and its
 * return (an indirect jump: a lookup of the translated block) cost more
 * than the rest of the access. Only an access inside a CPU's per-CPU
 * area needs the hook, so the assembler, given this file of macros
 * before GCC's output (-Wa,<this file, preprocessed>: the Makefile's
 * TSAN_CFLAGS), rewrites each
 *
 *     call __tsan_read8                 (write, 1 to 16 bytes, _range)
 * into
 *     cmpq $PERCPU_REGION, %rdi         the areas have the top GiB
 *     jb   1f                           (asm/page.h): below it, no call
 *     callq __tsan_read8
 * 1:
 *
 * drops each call of __tsan_volatile_* (READ_ONCE()/WRITE_ONCE(): marked
 * accesses, never checked, as KCSAN treats them), and passes every other
 * call on as `callq` (another mnemonic, so the macro does not expand
 * itself again).
 *
 * The ABI makes this safe: GCC emits the hook as a call to a function of
 * one argument, the address, in %rdi; every caller-saved register and
 * the flags are dead across a call, so skipping it or comparing before it
 * changes nothing the compiler relies on, and the stack is not touched.
 * The hooks of atomics (__tsan_atomic*) do the operation themselves and
 * are never filtered.
 */
#include "asm/page.h"

/* Compare, and call unless below the region. */
	.macro tsan_filtered target
	cmpq $PERCPU_REGION, %rdi
	jb .Ltsan_skip\@
	callq \target
.Ltsan_skip\@:
	.endm

	.macro call target:vararg
	.set .Ltsan_done, 0
	.irp kind, read, write
	.irp size, 1, 2, 4, 8, 16, _range
	.ifc "\target", "__tsan_\kind\size"
	tsan_filtered \target
	.set .Ltsan_done, 1
	.endif
	.ifc "\target", "__tsan_volatile_\kind\size"
	.set .Ltsan_done, 1
	.endif
	.endr
	.endr
	.if .Ltsan_done == 0
	callq \target
	.endif
	.endm
