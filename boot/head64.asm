; The boot CPU's first instructions at the kernel's link address, in the
; higher half: boot.asm jumps here once long mode is on. A file of its own
; so that its debug information (one section per NASM file) lets gdb
; follow the boot CPU from here into kmain.
;
; ABI: rdi = Multiboot2 magic, rsi = physical address of the boot
; information (both set in boot.asm's _start); no stack yet. They are kept
; for arch_setup_boot_info() (arch/x86_64/multiboot.c), which kmain calls
; once printk works; kmain itself takes no arguments.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
global higher_half_entry
extern kmain, multiboot_magic, multiboot_info_phys
higher_half_entry:
	mov rsp, boot_stack_top
	xor ebp, ebp                            ; ends the backtrace
	; rdi = magic, rsi = info physical address: still set from _start.
	mov [multiboot_magic], edi
	mov [multiboot_info_phys], rsi
	call kmain
.hang:
	cli
	hlt
	jmp .hang

; The boot CPU's kernel stack, with a guard page below it that
; paging_init() leaves unmapped: an overflow faults there, and the double
; fault handler (on its own IST stack) reports it.
BOOT_STACK_SIZE equ 16384
section .bss
align 4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:  resb 4096
boot_stack_bottom: resb BOOT_STACK_SIZE
boot_stack_top:
