; The only instructions that touch user memory on the kernel's behalf
; (kernel/proc/uaccess.c checks the range first). Each access that may
; fault has an entry in __ex_table: a page fault or general protection
; fault there resumes at the fix-up label (kernel/arch/x86/traps.c,
; fixup_exception), which returns the failure instead of panicking.
; With SMAP on, the CPU refuses kernel accesses to user pages unless
; RFLAGS.AC is set: stac/clac open and close that window around the copy.

section .text
bits 64

extern uaccess_smap			; byte: SMAP is on (kernel/arch/x86/syscall.c)

%macro STAC 0
	test	byte [rel uaccess_smap], 1
	jz	%%skip
	stac
%%skip:
%endmacro

%macro CLAC 0
	test	byte [rel uaccess_smap], 1
	jz	%%skip
	clac
%%skip:
%endmacro

%macro EX_ENTRY 2
section __ex_table progbits alloc noexec nowrite align=8
	dq	%1, %2
section .text
%endmacro

; unsigned long __copy_user(void *dst, const void *src, unsigned long n)
; Returns the number of bytes NOT copied (0 on success).
global __copy_user
__copy_user:
	mov	rcx, rdx
	STAC
.copy:
	rep movsb			; a fault leaves rcx = bytes left
.out:
	CLAC
	mov	rax, rcx
	ret
EX_ENTRY __copy_user.copy, __copy_user.out

; long __strncpy_from_user(char *dst, const char *src, long n)
; Copies up to n bytes, stopping after a NUL. Returns the string's length
; if a NUL was copied, n if none was within n bytes, -14 (EFAULT) on a fault.
global __strncpy_from_user
__strncpy_from_user:
	xor	eax, eax
	STAC
.loop:
	cmp	rax, rdx
	jae	.done
.load:
	movzx	ecx, byte [rsi + rax]
	mov	[rdi + rax], cl
	test	cl, cl
	jz	.done
	inc	rax
	jmp	.loop
.done:
	CLAC
	ret
.fault:
	CLAC
	mov	rax, -14
	ret
EX_ENTRY __strncpy_from_user.load, __strncpy_from_user.fault
