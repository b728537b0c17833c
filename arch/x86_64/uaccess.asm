; raw_copy_from_user, raw_copy_to_user: the only routines that touch user
; memory.
;
; unsigned long raw_copy_from_user(void *to, const void *from, unsigned long n)
; unsigned long raw_copy_to_user(void *to, const void *from, unsigned long n)
;   ABI: SysV; rdi = to, rsi = from, rdx = n; returns in rax the bytes not
;   copied. Clobbers rcx. The caller has checked that the user side (from,
;   resp. to) lies below USER_TOP (kernel/user/uaccess.c); what may still
;   go wrong is an unmapped or protected user page, which faults inside rep
;   movsb: the exception table sends the fault to .fault, with rcx = bytes
;   left. Each entry also says which side is the user's (EX_TYPE_UACCESS_*,
;   kernel/extable.h), so that the trap handler fixes up only a fault on
;   the user side: one on the kernel side is a kernel bug (trap.c).
;   With SMAP on, user pages are reachable only between stac and clac.

section .note.GNU-stack noalloc noexec nowrite progbits

%define EX_TYPE_UACCESS_FROM 1          ; kernel/extable.h
%define EX_TYPE_UACCESS_TO   2

extern uaccess_smap

; COPY_USER name, type: one copy routine and its exception table entry.
%macro COPY_USER 2
section .text
global %1
%1:
	mov rcx, rdx
	cmp byte [rel uaccess_smap], 0
	je .copy
	stac
.copy:
	rep movsb
.fault:
	cmp byte [rel uaccess_smap], 0
	je .done
	clac
.done:
	mov rax, rcx
	ret

section __ex_table progbits alloc noexec nowrite align=8
	dq %1.copy, %1.fault, %2
%endmacro

COPY_USER raw_copy_from_user, EX_TYPE_UACCESS_FROM
COPY_USER raw_copy_to_user, EX_TYPE_UACCESS_TO
