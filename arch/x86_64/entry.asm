; Interrupt, exception and system call entry: one stub per vector, all
; funnelling into trap_entry_common (or paranoid_entry for NMI, #DF and
; #MC), which saves the general registers as a struct trap_frame
; (asm/ptrace.h) and calls trap_dispatch(frame) in C; and entry_syscall,
; the target of the syscall instruction, which builds the same frame.
;
; Stub ABI. On entry the CPU has pushed SS, RSP, RFLAGS, CS, RIP and, for
; some exceptions, an error code; RSP was 16-byte aligned before that (the
; CPU aligns it in 64-bit mode). Each stub pushes a zero error code when the
; CPU did not, then the vector number, so every frame has the same shape.
; The entry then pushes the 15 general registers: 22 quadwords = 176
; bytes, a multiple of 16, so RSP is 16-byte aligned at the call into C
; (checked by a static assert beside struct trap_frame). All registers are
; restored on the way out.
;
; GS (docs/usermode.md). In the kernel GS_BASE holds this CPU's per-CPU
; offset and KERNEL_GS_BASE the user's GS base (0); in ring 3 the two are
; swapped. So every entry from ring 3 does swapgs first and every exit to
; ring 3 does it last, with interrupts off between that swapgs and the
; iretq/sysretq. An ordinary entry knows where it came from by the CS
; that the CPU saved; NMI, #MC and #DF may arrive inside those windows
; (between swapgs and iretq), where CS says "kernel" and GS is the user's,
; so they read MSR_GS_BASE instead: the user's base is always 0 (user
; code has no way to set it), a kernel offset never is (a CPU's area is
; never the template itself, kernel/mm/percpu.c). The offsets are not
; negative: the areas sit above the image, in the top GiB (asm/page.h).

section .note.GNU-stack noalloc noexec nowrite progbits

%define MSR_GS_BASE 0xc0000101
%define USER_CS (0x38 | 3)          ; gdt.h
%define USER_DS (0x30 | 3)
%define SYSCALL_VECTOR 256          ; asm/ptrace.h
%define FRAME_CS 24                 ; CS in the frame, above vector and error

%macro TRAP_STUB 1
align 16
trap_stub_%1:
%if %1 = 8 || (%1 >= 10 && %1 <= 14) || %1 = 17 || %1 = 21 || %1 = 29 || %1 = 30
	; the CPU pushed an error code
%else
	push 0
%endif
	push %1
%if %1 = 2 || %1 = 8 || %1 = 18
	jmp paranoid_entry
%else
	jmp trap_entry_common
%endif
%endmacro

%macro PUSH_REGS 0
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
%endmacro

; RFLAGS.AC off for the kernel (SMAP enforced again): the interrupted code
; may have been inside a user copy's stac ... clac, and AC would
; otherwise follow the CPU into the handler and into any task it switches
; to (the context switch does not save RFLAGS). iretq restores the
; interrupted AC. Arithmetic flags are clobbered: the CPU has saved them.
%macro CLAC_IF_SMAP 0
	cmp byte [rel uaccess_smap], 0
	je %%done
	clac
%%done:
%endmacro

%macro POP_REGS 0
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
%endmacro

section .text
extern trap_dispatch, syscall_entry, exit_to_user_mode
extern cpu_kstack_top, cpu_user_rsp, uaccess_smap

%assign v 0
%rep 256
TRAP_STUB v
%assign v v + 1
%endrep

; Interrupts and exceptions but NMI, #DF, #MC. Interrupts are off (every
; gate is an interrupt gate).
trap_entry_common:
	test byte [rsp + FRAME_CS], 3
	jz .from_kernel
	swapgs                                  ; from ring 3: the kernel's GS
	jmp .save
.from_kernel:
	; The one kernel instruction that runs with the user's GS: the iretq
	; to ring 3. Its fault (a bad user frame) is the user's, and GS must
	; be made the kernel's again.
	cmp qword [rsp + FRAME_CS - 8], user_iret
	jne .save
	swapgs
.save:
	PUSH_REGS
	CLAC_IF_SMAP
	mov rdi, rsp
	cld
	call trap_dispatch
global trap_return
trap_return:
	test byte [rsp + 15 * 8 + FRAME_CS], 3
	jnz ret_to_user_frame
	POP_REGS
	add rsp, 16                             ; vector and error code
	iretq

; void arch_enter_user(struct trap_frame *f): f is on the task's kernel
; stack; nothing above RSP is needed any more.
global arch_enter_user
arch_enter_user:
	mov rsp, rdi
; Return to ring 3 through the frame at RSP: the core's exit work first
; (preemption, rseq), with interrupts off from its last check to iretq.
ret_to_user_frame:
	cli
	mov rdi, rsp
	call exit_to_user_mode
	POP_REGS
	add rsp, 16
	swapgs
global user_iret
user_iret:
	iretq

; NMI, #DF, #MC: on their IST stacks, possibly inside a swapgs window.
; rbx (restored from the frame on exit) remembers whether we swapped.
paranoid_entry:
	PUSH_REGS
	CLAC_IF_SMAP
	mov ecx, MSR_GS_BASE
	rdmsr
	xor ebx, ebx
	or eax, edx
	jnz .kernel_gs                          ; not 0: the kernel's offset
	swapgs
	mov ebx, 1
.kernel_gs:
	mov rdi, rsp
	cld
	call trap_dispatch
	test ebx, ebx
	jz .restore
	swapgs
.restore:
	POP_REGS
	add rsp, 16
	iretq

; The syscall instruction lands here (MSR_LSTAR) in ring 0 with RCX = the
; user RIP, R11 = the user RFLAGS, interrupts off (MSR_FMASK), and RSP
; still the user's: nothing may touch the stack before it is switched.
; Builds a struct trap_frame on the task's kernel stack (cpu_kstack_top),
; calls syscall_entry(frame), then leaves by sysretq, or by iretq when the
; frame's RIP is not a canonical user address: sysretq to a non-canonical
; RCX raises #GP in ring 0 on the user's stack on Intel CPUs, a way into
; the kernel; iretq faults in the user's name (see trap_entry_common).
global entry_syscall
entry_syscall:
; LAB6 BEGIN
	swapgs
	mov [gs:cpu_user_rsp], rsp
	mov rsp, [gs:cpu_kstack_top]
	push USER_DS
	push qword [gs:cpu_user_rsp]
	push r11                                ; RFLAGS
	push USER_CS
	push rcx                                ; RIP
	push 0                                  ; error code
	push SYSCALL_VECTOR
	PUSH_REGS
	mov rdi, rsp
	cld
	call syscall_entry                      ; returns with interrupts off
	mov rdi, rsp
	call exit_to_user_mode
	POP_REGS
	add rsp, 16
	; sysretq takes RIP from RCX and RFLAGS from R11: the syscall ABI
	; lets both be clobbered.
	mov rcx, [rsp]
	mov r11, rcx
	shr r11, 47
	jnz .iret                               ; not a canonical user RIP
	mov r11, [rsp + 16]
	mov rsp, [rsp + 24]
	swapgs
	o64 sysret
.iret:
	mov r11, [rsp + 16]
	swapgs
	jmp user_iret
; LAB6 STUB: mov rax, -38
; LAB6 STUB: o64 sysret
; LAB6 END

section .rodata
global trap_stubs
trap_stubs:
%assign v 0
%rep 256
	dq trap_stub_ %+ v
%assign v v + 1
%endrep
