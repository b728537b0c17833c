/*
 * The CPU side of per-process FPU state (asm/fpu.h): control-register
 * set-up on each CPU, and the clean state a new process starts from. The
 * save and restore themselves are fpregs.asm's.
 *
 * Eager switching: the context switch saves the outgoing process's
 * registers and loads the incoming one's, always. The lazy alternative
 * (set CR0.TS and restore on the first #NM) saves a restore for a process
 * that never touches the FPU, but every process here is compiled with SSE
 * (string and formatting code uses it), so nearly every switch would take
 * the trap anyway; Linux went eager in 4.x for the same reason, and for
 * the speculative-execution leak of lazy switching (CVE-2018-3665).
 */
#include "asm/fpu.h"
#include "asm/processor.h"
#include "string.h"

void fpstate_init(struct fpu *fpu)
{
	memset(fpu, 0, sizeof(*fpu));
	fpu->fxsave.cwd = FPU_DEFAULT_CWD;
	fpu->fxsave.mxcsr = MXCSR_DEFAULT;
	/* twd 0: every x87 register empty, as after FNINIT. */
}

void fpu_init_cpu(void)
{
	/* Long mode implies FXSR, SSE and SSE2 (CPUID needs no asking). */
	write_cr0((read_cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
}
