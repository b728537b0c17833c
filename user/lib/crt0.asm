; _start: where every user program begins.
;
; ABI: the kernel enters with RDI = argc and RSI = argv (an array of
; argc string pointers and a NULL, on the stack), RSP 16-byte aligned,
; interrupts on. main's return value becomes the exit status.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text.start
global _start
extern main, exit
_start:
	xor ebp, ebp                            ; backtraces end here
	and rsp, -16
	call main
	mov edi, eax
	call exit
	ud2                                     ; exit does not return
