; The only kernel code that touches the x87/MMX/SSE registers: saving a
; user process's registers at a context switch and loading the next one's
; (asm/fpu.h). scripts/build/check-nofpu.sh allows FPU instructions in
; these two functions and nowhere else in the image.
;
; void save_fpregs_to_fpstate(struct fpu *fpu)
; void restore_fpregs_from_fpstate(const struct fpu *fpu)
;   ABI: SysV; rdi = the 512-byte, 16-byte-aligned FXSAVE image (struct
;   fpu starts with it). Clobber nothing but the FPU registers (restore).
;   The 64-bit forms (REX.W) keep the full 64-bit x87 instruction and
;   data pointers.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
global save_fpregs_to_fpstate, restore_fpregs_from_fpstate

save_fpregs_to_fpstate:
	fxsave64 [rdi]
	ret

restore_fpregs_from_fpstate:
	fxrstor64 [rdi]
	ret
