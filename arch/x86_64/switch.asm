; Context switch between two kernel tasks.
;
; struct task *__switch_to(uint64_t *prev_sp, uint64_t next_sp,
;                          struct task *prev)
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
; The saved frame, from the saved stack pointer upwards:
;   r15 r14 r13 r12 rbx rbp, return address
; kthread_create() builds the same frame on a new stack, with the return
; address pointing at task_entry and rbp zero, so that backtraces end there.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
global __switch_to, task_entry
extern kthread_entry

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

; First instruction of every new task: RSP is 16-byte aligned here (see
; kthread_create), so the call leaves kthread_entry a standard frame.
task_entry:
	mov rdi, rax                            ; prev, from __switch_to
	call kthread_entry
	ud2                                     ; kthread_entry never returns
