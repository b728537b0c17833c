; The application processors' way in. An AP starts in 16-bit real mode at
; the page the SIPI names (TRAMPOLINE_PHYS); this code is copied there by
; arch_boot_cpu(). It climbs to protected mode and then long mode on the
; kernel's own page tables (which map this page 1:1 while APs boot), and
; jumps to the entry it was given, ap_main(cpu), on the stack the boot CPU
; prepared.
;
; Parameters, written by the boot CPU before each SIPI at the offsets of
; the tr_* labels: CR3, stack top, C entry point, CPU number.
;
; The code runs at TRAMPOLINE_PHYS, not where it is linked, so every
; address in it goes through TR(), which rebases a label to the copy.

TRAMPOLINE_PHYS equ 0x8000
%define TR(label) ((label) - trampoline_start + TRAMPOLINE_PHYS)

section .note.GNU-stack noalloc noexec nowrite progbits

section .rodata
align 16
global trampoline_start, trampoline_end
global tr_cr3, tr_stack, tr_entry, tr_cpu

bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	lgdt [TR(tr_gdt_ptr)]
	mov eax, cr0
	or eax, 1                               ; PE
	mov cr0, eax
	jmp dword 0x08:TR(tr_protected)

bits 32
tr_protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, (1 << 5) | (1 << 7)             ; PAE, PGE
	mov cr4, eax
	mov eax, [TR(tr_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080                     ; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)            ; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)           ; PG, WP
	mov cr0, eax
	jmp 0x18:TR(tr_long)

bits 64
tr_long:
	xor eax, eax
	mov ds, ax
	mov es, ax
	mov ss, ax
	; LAB2 BEGIN
	mov rsp, [TR(tr_stack)]
	mov rdi, [TR(tr_cpu)]
	mov rax, [TR(tr_entry)]
	xor ebp, ebp                            ; ends the backtrace
	push 0                                  ; a null return address: RSP
	jmp rax                                 ; is as after a call
	; LAB2 STUB: cli
	; LAB2 STUB: hlt
	; LAB2 END

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff                   ; 0x08: 32-bit code
	dq 0x00cf92000000ffff                   ; 0x10: data
	dq 0x00209a0000000000                   ; 0x18: 64-bit code
tr_gdt_ptr:
	dw tr_gdt_ptr - tr_gdt - 1
	dd TR(tr_gdt)
align 8
tr_cr3:   dq 0
tr_stack: dq 0
tr_entry: dq 0
tr_cpu:   dq 0
trampoline_end:
