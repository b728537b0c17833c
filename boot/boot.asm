; The boot CPU's path from GRUB to C.
;
; GRUB enters _start in 32-bit protected mode with paging off, EAX holding
; the Multiboot2 magic and EBX the physical address of the boot information.
; We check that a Multiboot2 loader started us and that the CPU can run
; 64-bit code, build just enough page tables to map the first GiB twice
; (identity, for the instruction that turns paging on, and at KERNEL_VMA,
; where the kernel is linked), enter long mode, jump to the higher half and
; call kmain on the boot stack, with magic and mbi_phys kept for the arch's
; Multiboot2 parser (head64.asm).
;
; Everything here up to the jump runs at its physical address, so it lives in
; the .boot sections that linker.ld links at 1 MiB.

KERNEL_VMA      equ 0xffffffff80000000
MB2_MAGIC       equ 0xe85250d6
MB2_BOOT_MAGIC  equ 0x36d76289
COM1            equ 0x3f8

PTE_P           equ 1 << 0
PTE_W           equ 1 << 1
PTE_PS          equ 1 << 7

section .note.GNU-stack noalloc noexec nowrite progbits

section .multiboot progbits alloc noexec nowrite align=8
mb2_header:
	dd MB2_MAGIC
	dd 0                                    ; architecture: i386 protected mode
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	; end tag
	dw 0, 0
	dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite align=16
bits 32
global _start
extern higher_half_entry
_start:
	cli
	cld
	mov esp, early_stack_top
	mov edi, eax                            ; keep magic and info pointer
	mov esi, ebx                            ; for head64.asm (rdi, rsi)

	cmp eax, MB2_BOOT_MAGIC
	jne .no_multiboot

	; CPUID leaf 0x80000001 must exist and report LM (bit 29) and NX (bit 20).
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode
	test edx, 1 << 20
	jz .no_nx

	call setup_early_paging

	mov eax, cr4
	or eax, 1 << 5                          ; PAE
	mov cr4, eax
	mov eax, early_pml4
	mov cr3, eax
	mov ecx, 0xc0000080                     ; EFER
	rdmsr
	or eax, (1 << 8) | (1 << 11)            ; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1       ; PG, WP, PE
	mov cr0, eax

	lgdt [early_gdt_ptr]
	jmp 0x08:long_mode_entry

.no_multiboot:
	mov esi, msg_no_multiboot
	jmp boot_fail
.no_long_mode:
	mov esi, msg_no_long_mode
	jmp boot_fail
.no_nx:
	mov esi, msg_no_nx
	jmp boot_fail

; Map physical [0, 1 GiB) with 2 MiB pages at 0 and at KERNEL_VMA. Both
; PML4 slots share one page directory.
setup_early_paging:
	mov eax, early_pdpt_low
	or eax, PTE_P | PTE_W
	mov [early_pml4], eax
	mov eax, early_pdpt_high
	or eax, PTE_P | PTE_W
	mov [early_pml4 + 511 * 8], eax
	mov eax, early_pd
	or eax, PTE_P | PTE_W
	mov [early_pdpt_low], eax
	mov [early_pdpt_high + 510 * 8], eax
	xor ecx, ecx
.map:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [early_pd + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .map
	ret

; Print the NUL-terminated message at ESI on COM1 and the VGA text screen,
; then halt for good: a clear message instead of a reboot loop.
boot_fail:
	call serial_init32
	mov edi, 0xb8000
.next:
	lodsb
	test al, al
	jz .halt
	mov ah, 0x4f                            ; white on red
	mov [edi], ax
	add edi, 2
	mov bl, al
	mov dx, COM1 + 5
.wait:
	in al, dx
	test al, 0x20                           ; transmitter holding register empty
	jz .wait
	mov dx, COM1
	mov al, bl
	out dx, al
	jmp .next
.halt:
	cli
	hlt
	jmp .halt

serial_init32:
	mov dx, COM1 + 1
	xor al, al
	out dx, al                              ; no interrupts
	mov dx, COM1 + 3
	mov al, 0x80
	out dx, al                              ; DLAB on
	mov dx, COM1
	mov al, 1
	out dx, al                              ; divisor 1: 115200 baud
	mov dx, COM1 + 1
	xor al, al
	out dx, al
	mov dx, COM1 + 3
	mov al, 3
	out dx, al                              ; 8N1, DLAB off
	ret

bits 64
long_mode_entry:
	mov edi, edi                            ; the upper halves are undefined
	mov esi, esi                            ; after the mode switch
	xor eax, eax
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half_entry              ; in head64.asm
	jmp rax

section .boot.data progbits alloc noexec write align=16
early_gdt:
	dq 0
	dq 0x00209a0000000000                   ; 64-bit kernel code
early_gdt_ptr:
	dw early_gdt_ptr - early_gdt - 1
	dd early_gdt

msg_no_multiboot:
	db "percpu-kernel: not started by a Multiboot2 loader (boot it with GRUB's multiboot2 command)", 0
msg_no_long_mode:
	db "percpu-kernel: this CPU has no long mode (x86-64); it cannot run this kernel", 0
msg_no_nx:
	db "percpu-kernel: this CPU has no NX (no-execute) support; it cannot run this kernel", 0

section .boot.bss nobits alloc noexec write align=4096
early_pml4:      resb 4096
early_pdpt_low:  resb 4096
early_pdpt_high: resb 4096
early_pd:        resb 4096
early_stack:     resb 4096
early_stack_top:
