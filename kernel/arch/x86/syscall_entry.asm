; The ways between user mode and the kernel that isr.asm does not cover:
;
;   syscall_entry  the target of the `syscall` instruction (MSR_LSTAR). The
;                  CPU has put the user rip in rcx and rflags in r11, loaded
;                  the kernel CS/SS from MSR_STAR and cleared the flags in
;                  MSR_SFMASK (IF among them), but left rsp and GS alone.
;                  We swap GS, take this task's kernel stack (cpu_local's
;                  kernel_stack, which the context switch keeps current),
;                  and save a struct pt_regs laid out exactly as an
;                  interrupt from user mode leaves it, at the same place
;                  (the top of the kernel stack). So fork, exec and the
;                  fault paths see one frame format, whichever way the
;                  process entered. The way back is `sysret` when the
;                  frame's rip is a canonical user address (it always is,
;                  unless something went wrong), else `iretq`.
;   user_enter     the first entry of a new process (init, a fork child):
;                  copy a prepared frame to the top of the kernel stack and
;                  leave through isr.asm's interrupt return.

%include "kernel/arch/x86/regs.inc"	; SAVE_REGS, RESTORE_REGS (struct pt_regs)
section .text
bits 64

extern syscall_dispatch
extern isr_return

USER_CS		equ	0x23
USER_DS		equ	0x1b
GS_KSTACK	equ	40		; struct cpu_local.kernel_stack
GS_USER_RSP	equ	48		; struct cpu_local.user_rsp
PT_SIZE		equ	22 * 8		; sizeof(struct pt_regs)
PT_RIP		equ	17 * 8
PT_RFLAGS	equ	19 * 8
SYSCALL_VECTOR	equ	0x100		; not a vector: "came by syscall"

global syscall_entry
syscall_entry:
	swapgs
	mov	[gs:GS_USER_RSP], rsp
	mov	rsp, [gs:GS_KSTACK]
	push	USER_DS			; ss
	push	qword [gs:GS_USER_RSP]	; rsp
	push	r11			; rflags
	push	USER_CS			; cs
	push	rcx			; rip
	push	0			; error code
	push	SYSCALL_VECTOR
	SAVE_REGS
	xor	ebp, ebp		; backtraces end here
	cld
	sti
	mov	rdi, rsp
	call	syscall_dispatch	; the result is in the frame's rax
	cli
	mov	rcx, [rsp + PT_RIP]
	mov	rax, 0x00007fffffffffff
	cmp	rcx, rax
	ja	.iret			; sysret would fault in ring 0 on this
	RESTORE_REGS
	add	rsp, 16			; vector, error code
	pop	rcx			; rip
	add	rsp, 8			; cs
	pop	r11			; rflags
	pop	rsp			; the user stack; ss is implied
	swapgs
	o64 sysret
.iret:
	jmp	isr_return

; void user_enter(const struct pt_regs *frame): never returns.
global user_enter
user_enter:
	cli
	mov	rsi, rdi
	mov	rdi, [gs:GS_KSTACK]
	sub	rdi, PT_SIZE
	mov	rsp, rdi
	mov	ecx, PT_SIZE / 8
	cld
	rep movsq
	jmp	isr_return
