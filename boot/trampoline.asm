; The application processors' way in. An AP starts in 16-bit real mode at
; the page the SIPI names (trampoline_phys, a page of usable RAM below
; 1 MiB that realmode.c found in the memory map); this code is copied
; there by arch_boot_cpu(). It climbs to protected mode and then long mode
; on the kernel's own page tables (which map this page 1:1 while APs boot),
; and jumps to the entry it was given, ap_main(cpu), on the stack the boot
; CPU prepared. EBX holds the copy's address from real mode until long
; mode; nothing else lives across the mode switches.
;
; Parameters, written by the boot CPU before each SIPI at the offsets of
; the tr_* labels: CR3, stack top, C entry point, CPU number.
;
; The code runs where it was copied, not where it is linked, and the copy's
; address is known only at run time, so every address in it goes through
; TR(). In 16- and 32-bit code TR() is the label's offset in the copy: from
; DS = CS in real mode (the SIPI's CS is the copy's page), from EBX, the
; copy's address, in protected mode; the two far jumps get their targets
; the same way, through a pointer the code fills in. In 64-bit code TR()
; is RIP-relative, which holds wherever the copy is.

%define TR(label) ((label) - trampoline_start)

section .note.GNU-stack noalloc noexec nowrite progbits

section .rodata
align 16
global trampoline_start, trampoline_end
global tr_cr3, tr_stack, tr_entry, tr_cpu

bits 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	movzx ebx, ax
	shl ebx, 4                              ; EBX = the copy's address
	lea eax, [ebx + TR(tr_gdt)]
	mov [TR(tr_gdt_ptr) + 2], eax
	lgdt [TR(tr_gdt_ptr)]
	lea eax, [ebx + TR(tr_protected)]
	mov [TR(tr_pm_jump)], eax
	mov eax, cr0
	or eax, 1                               ; PE
	mov cr0, eax
	jmp dword far [TR(tr_pm_jump)]          ; DS still holds the copy

bits 32
tr_protected:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, (1 << 5) | (1 << 7)             ; PAE, PGE
	mov cr4, eax
	mov eax, [ebx + TR(tr_cr3)]
	mov cr3, eax
	mov ecx, 0xc0000080                     ; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)            ; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)           ; PG, WP
	mov cr0, eax
	lea eax, [ebx + TR(tr_long)]
	mov [ebx + TR(tr_lm_jump)], eax
	jmp far [ebx + TR(tr_lm_jump)]

bits 64
%undef TR
%define TR(label) rel label
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
	dd 0                                    ; the copy's tr_gdt
; Far pointers (offset, selector) for the jumps into protected and long
; mode; the offsets are the copy's, filled in before each jump.
tr_pm_jump:
	dd 0
	dw 0x08
tr_lm_jump:
	dd 0
	dw 0x18
align 8
tr_cr3:   dq 0
tr_stack: dq 0
tr_entry: dq 0
tr_cpu:   dq 0
trampoline_end:
