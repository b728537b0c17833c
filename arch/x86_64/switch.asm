; Context switch between two kernel tasks.
;
; struct task_struct *__switch_to(uint64_t *prev_sp, uint64_t next_sp,
;                          struct task_struct *prev)
;   ABI: SysV; rdi = where to save the outgoing task's stack pointer, rsi =
;   the incoming task's saved stack pointer, rdx = the outgoing task, which
;   comes back in rax on the incoming side (the task that resumes needs to
;   know whom it replaced, to finish that task's switch). Saves only the callee-saved
;   registers (rbx, rbp, r12-r15): the caller-saved ones are dead across a
;   call by the ABI, RFLAGS.IF is the caller's business (interrupts are off
;   across every switch) and the rest of the task's state lives in memory.
;   Returns on the incoming task's stack, into whatever called __switch_to
;   there (or into task_entry for a task that never ran).
;
; The saved frame, from the saved stack pointer upwards (struct
; inactive_task_frame, asm/switch_to.h):
;   r15 r14 r13 r12 rbx rbp, return address
; arch_setup_task_stack() (process.c) builds the same frame on a new stack,
; with the return address pointing at task_entry, the core's entry
; function in rbx and rbp zero, so that backtraces end there.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
global __switch_to, task_entry

__switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rax, rdx
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; First instruction of every new task. ABI: rax = the task switched away
; from (__switch_to's return value), rbx = the entry function
; fn(struct task_struct *prev), which never returns; RSP is 16-byte aligned here
; (arch_setup_task_stack), so the call leaves fn a standard frame.
task_entry:
	mov rdi, rax                            ; prev, from __switch_to
	call rbx
	ud2                                     ; fn never returns
