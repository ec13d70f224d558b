; The entry point of every program. The kernel (kernel/proc/exec.c) starts
; us with rsp at argc, then argv[], NULL, envp[], NULL, the auxiliary
; vector; rsp is 16-byte aligned here, as the System V ABI promises.

section .text.start
bits 64
global _start
extern __libc_start

_start:
	xor	ebp, ebp			; the outermost frame
	mov	rdi, [rsp]			; argc
	lea	rsi, [rsp + 8]			; argv
	lea	rdx, [rsi + rdi * 8 + 8]	; envp
	call	__libc_start			; calls main, then exit(); no return
	ud2

section .note.GNU-stack noalloc noexec nowrite progbits
