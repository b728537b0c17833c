; Interrupt and exception entry: one stub per vector, all funnelling into
; trap_entry_common, which saves the general registers as a struct
; trap_frame (trap.h) and calls trap_dispatch(frame) in C.
;
; Stub ABI. On entry the CPU has pushed SS, RSP, RFLAGS, CS, RIP and, for
; some exceptions, an error code; RSP was 16-byte aligned before that (the
; CPU aligns it in 64-bit mode). Each stub pushes a zero error code when the
; CPU did not, then the vector number, so every frame has the same shape.
; trap_entry_common pushes the 15 general registers: 22 quadwords = 176
; bytes, a multiple of 16, so RSP is 16-byte aligned at the call into C
; (checked by a static assert beside struct trap_frame).
;
; All registers are restored on the way out. No swapgs: the kernel has no
; user mode yet, so GS always holds the kernel's per-CPU base.

section .note.GNU-stack noalloc noexec nowrite progbits

%macro TRAP_STUB 1
align 16
trap_stub_%1:
%if %1 = 8 || (%1 >= 10 && %1 <= 14) || %1 = 17 || %1 = 21 || %1 = 29 || %1 = 30
	; the CPU pushed an error code
%else
	push 0
%endif
	push %1
	jmp trap_entry_common
%endmacro

section .text
extern trap_dispatch

%assign v 0
%rep 256
TRAP_STUB v
%assign v v + 1
%endrep

trap_entry_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	cld
	call trap_dispatch
global trap_return
trap_return:
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                             ; vector and error code
	iretq

section .rodata
global trap_stubs
trap_stubs:
%assign v 0
%rep 256
	dq trap_stub_ %+ v
%assign v v + 1
%endrep
