; Interrupt and exception entry stubs.
;
; Every vector has a stub that makes the stack uniform (a zero error code
; where the CPU pushes none, then the vector number) and jumps to a common
; path that saves all registers as a struct pt_regs (include/arch/irq.h)
; and calls interrupt_dispatch(regs) in C.
;
; GS: in the kernel, GS base points at this CPU's per-CPU area. An entry
; from user mode (CPL 3 in the saved CS) does SWAPGS first and again on the
; way out. NMI, double fault and machine check can arrive anywhere, even
; between a user-mode entry and its SWAPGS, so they are "paranoid": they
; read MSR_GS_BASE and swap only if it does not hold a kernel address.

section .text
bits 64

extern interrupt_dispatch

%macro ISR_NOERR 1
isr_%1:
	push	0
	push	%1
	jmp	isr_common
%endmacro

%macro ISR_ERR 1
isr_%1:
	push	%1
	jmp	isr_common
%endmacro

%macro ISR_PARANOID 2	; vector, has-error-code
isr_%1:
%if %2 == 0
	push	0
%endif
	push	%1
	jmp	isr_paranoid
%endmacro

%include "kernel/arch/x86/regs.inc"	; SAVE_REGS, RESTORE_REGS (struct pt_regs)

PT_CS	equ	18 * 8		; offset of cs in struct pt_regs

global isr_common
isr_common:
	SAVE_REGS
	test	byte [rsp + PT_CS], 3
	jz	.from_kernel
	swapgs
.from_kernel:
	cld
	mov	rdi, rsp
	call	interrupt_dispatch
global isr_return
isr_return:
	test	byte [rsp + PT_CS], 3
	jz	.to_kernel
	swapgs
.to_kernel:
	RESTORE_REGS
	add	rsp, 16			; vector and error code
	iretq

isr_paranoid:
	SAVE_REGS
	xor	ebx, ebx		; rbx = 1 if we swapped (callee-saved)
	mov	ecx, 0xc0000101		; MSR_GS_BASE
	rdmsr
	test	edx, edx
	js	.kernel_gs		; a kernel (negative) address: already ours
	swapgs
	mov	ebx, 1
.kernel_gs:
	cld
	mov	rdi, rsp
	call	interrupt_dispatch
	test	ebx, ebx
	jz	.no_swap
	swapgs
.no_swap:
	RESTORE_REGS
	add	rsp, 16
	iretq

; Exceptions: 8, 10-14, 17, 21, 29, 30 push an error code.
ISR_NOERR 0
ISR_NOERR 1
ISR_PARANOID 2, 0
ISR_NOERR 3
ISR_NOERR 4
ISR_NOERR 5
ISR_NOERR 6
ISR_NOERR 7
ISR_PARANOID 8, 1
ISR_NOERR 9
ISR_ERR 10
ISR_ERR 11
ISR_ERR 12
ISR_ERR 13
ISR_ERR 14
ISR_NOERR 15
ISR_NOERR 16
ISR_ERR 17
ISR_PARANOID 18, 0
ISR_NOERR 19
ISR_NOERR 20
ISR_ERR 21
ISR_NOERR 22
ISR_NOERR 23
ISR_NOERR 24
ISR_NOERR 25
ISR_NOERR 26
ISR_NOERR 27
ISR_NOERR 28
ISR_ERR 29
ISR_ERR 30
ISR_NOERR 31
%assign v 32
%rep 224
ISR_NOERR v
%assign v v + 1
%endrep

section .rodata
align 8
global isr_table
isr_table:
%assign v 0
%rep 256
	dq	isr_ %+ v
%assign v v + 1
%endrep
