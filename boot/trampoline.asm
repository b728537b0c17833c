; The application processors' way in. An AP starts in 16-bit real mode at
; the page the SIPI names (trampoline_phys, a page of usable RAM below
; 1 MiB that realmode.c found in the memory map); this code is copied
; there by arch_kick_cpus(). It climbs to protected mode and then long
; mode on the kernel's own page tables (which map this page 1:1 while APs
; boot), finds which CPU it is, and jumps to the entry it was given,
; ap_main(cpu), on the stack the boot CPU prepared for that CPU. EBX holds
; the copy's address from real mode until long mode; nothing else lives
; across the mode switches.
;
; All APs are started together and run this code at the same time, so
; nothing here is per CPU: each AP reads its own APIC id (CPUID leaf 0xB,
; all 32 bits of an x2APIC id, where the CPU has it; else leaf 1, 8 bits,
; as cpu_initial_apic_id() does) and looks it up in the kernel's table of APIC ids by CPU number, as Linux's
; trampoline searches cpuid_to_apicid[] (Linux 6.5, parallel bring-up).
; What the APs write into the page (the GDT pointer's base, the far jumps'
; targets) depends only on where the copy is: every AP writes the same
; values. The GDT's accessed bits are preset, so that loading a segment
; writes nothing more.
;
; Parameters, written by the boot CPU before the SIPIs at the offsets of
; the tr_* labels: CR3, C entry point, and the kernel addresses of the
; table of APIC ids (uint32_t by CPU number), of the table of stack tops
; (uint64_t by CPU number, 0 for a CPU not being started) and their length.
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
global tr_cr3, tr_entry, tr_apic_ids, tr_stack_tops, tr_nr_cpus

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
	xor eax, eax
	cpuid                                   ; EAX = the highest leaf
	cmp eax, 0xb
	jb .xapic_id
	mov eax, 0xb
	xor ecx, ecx
	cpuid
	test ebx, ebx
	jz .xapic_id                            ; no leaf 0xB: the 8-bit id of leaf 1
	mov ebx, edx                            ; the x2APIC id, 32 bits
	jmp .have_id
.xapic_id:
	mov eax, 1
	cpuid
	shr ebx, 24                             ; CPUID.1:EBX[31:24]: APIC id
.have_id:
	mov rsi, [TR(tr_apic_ids)]
	mov ecx, [TR(tr_nr_cpus)]
	xor edi, edi                            ; CPU number
.search:
	cmp edi, ecx
	jae tr_lost
	cmp [rsi + rdi * 4], ebx
	je .found
	inc edi
	jmp .search
.found:
	mov rax, [TR(tr_stack_tops)]
	mov rsp, [rax + rdi * 8]
	test rsp, rsp
	jz tr_lost                              ; not one being started
	mov rax, [TR(tr_entry)]
	xor ebp, ebp                            ; ends the backtrace
	push 0                                  ; a null return address: RSP
	jmp rax                                 ; is as after a call; rdi = cpu
	; LAB2 STUB: jmp tr_lost
	; LAB2 END

; An AP the kernel did not ask for: halt for good (the boot CPU's INIT,
; when it gives up on it, puts it back to waiting for a SIPI).
tr_lost:
	cli
	hlt
	jmp tr_lost

align 8
tr_gdt:
	dq 0
	dq 0x00cf9b000000ffff                   ; 0x08: 32-bit code, accessed
	dq 0x00cf93000000ffff                   ; 0x10: data, accessed
	dq 0x00209b0000000000                   ; 0x18: 64-bit code, accessed
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
tr_cr3:        dq 0
tr_entry:      dq 0
tr_apic_ids:   dq 0
tr_stack_tops: dq 0
tr_nr_cpus:    dq 0
trampoline_end:
