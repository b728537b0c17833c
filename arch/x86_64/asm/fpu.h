/*
 * The x87, MMX and SSE registers of user processes (docs/usermode.md):
 * each process has its own copy, saved and restored eagerly at every
 * context switch with FXSAVE/FXRSTOR, and a new process starts from the
 * state FNINIT and the default MXCSR give. The kernel never uses these
 * registers itself (it is built with -mgeneral-regs-only, and
 * scripts/build/check-nofpu.sh refuses an image with any such instruction
 * outside fpregs.asm), so between two processes the registers simply hold
 * the last one's state. As Linux's struct fpu, in its FXSAVE form.
 */
#ifndef _ASM_X86_FPU_H
#define _ASM_X86_FPU_H

#include <stdint.h>

/* The FXSAVE image (SDM vol. 1, 10.5.1): 512 bytes, 16-byte aligned. */
struct fxregs_state {
	uint16_t cwd;          /* x87 control word */
	uint16_t swd;          /* x87 status word */
	uint8_t twd;           /* abridged tag word: bit set = register valid */
	uint8_t reserved0;
	uint16_t fop;
	uint64_t rip;
	uint64_t rdp;
	uint32_t mxcsr;
	uint32_t mxcsr_mask;
	uint8_t st_space[8][16]; /* ST0-7 / MM0-7, 10 bytes used of each */
	uint8_t xmm_space[16][16];
	uint8_t padding[96];
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct fxregs_state) == 512, "FXSAVE layout");
_Static_assert(__builtin_offsetof(struct fxregs_state, mxcsr) == 24,
	       "FXSAVE layout");
_Static_assert(__builtin_offsetof(struct fxregs_state, xmm_space) == 160,
	       "FXSAVE layout");

struct fpu {
	struct fxregs_state fxsave;
};

/* What FNINIT leaves in the x87 unit, and the MXCSR of a reset CPU (all
 * SIMD exceptions masked, round to nearest). */
#define FPU_DEFAULT_CWD   0x037f
#define MXCSR_DEFAULT     0x1f80

/* A new process's registers: the FNINIT state, the default MXCSR, every
 * MMX and XMM register zero. */
void fpstate_init(struct fpu *fpu);

/* The registers into fpu, and back (fpregs.asm: the only kernel code that
 * touches them). Interrupts off: the context switch. */
void save_fpregs_to_fpstate(struct fpu *fpu);
void restore_fpregs_from_fpstate(const struct fpu *fpu);

/* This CPU: x87 errors as #MF (CR0.NE), no #NM trap (CR0.EM/TS clear),
 * FXSAVE and SSE for user code (CR4.OSFXSR), SIMD errors as #XM
 * (CR4.OSXMMEXCPT). Every CPU, once, before it runs a process. */
void fpu_init_cpu(void);

#endif
