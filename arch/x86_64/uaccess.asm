; copy_user_generic: the one routine that touches user memory.
;
; unsigned long copy_user_generic(void *to, const void *from, unsigned long n)
;   ABI: SysV; rdi = to, rsi = from, rdx = n; returns in rax the bytes not
;   copied. Clobbers rcx. The caller has checked that the user side lies
;   below USER_TOP (kernel/user/uaccess.c); what may still go wrong is an
;   unmapped or protected user page, which faults inside rep movsb: the
;   exception table sends the fault to .fault, with rcx = bytes left.
;   With SMAP on, user pages are reachable only between stac and clac.

section .note.GNU-stack noalloc noexec nowrite progbits

section .text
extern uaccess_smap
global copy_user_generic
copy_user_generic:
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
	dq copy_user_generic.copy, copy_user_generic.fault
