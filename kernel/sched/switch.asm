; The context switch: one kernel stack for another.
;
; struct task *switch_to_asm(struct task *prev, struct task *next)
;
; Pushes the callee-saved registers (the System V ABI says the caller has
; saved the rest) on prev's stack, stores prev's rsp in prev->rsp (offset
; 0 of struct task), loads next->rsp and pops next's registers. The `ret`
; then returns into next, wherever next last called switch_to_asm, or, for
; a task that never ran, into kthread_trampoline (kernel/sched/kthread.c
; builds that first frame). It returns prev, seen from next: the task
; that next must finish switching away from (finish_task_switch).
;
; Interrupts are off and the run-queue lock is held across the switch.

section .text
bits 64

TASK_RSP	equ	0

global switch_to_asm
switch_to_asm:
	push	rbp
	push	rbx
	push	r12
	push	r13
	push	r14
	push	r15
	mov	[rdi + TASK_RSP], rsp
	mov	rsp, [rsi + TASK_RSP]
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbx
	pop	rbp
	mov	rax, rdi		; `prev` for whoever resumes here
	ret

; A new task's first instruction: rax holds the task we switched from.
; The stack is 16-byte aligned here, as a call expects.
extern kthread_entry
global kthread_trampoline
kthread_trampoline:
	mov	rdi, rax
	call	kthread_entry		; does not return
	ud2
