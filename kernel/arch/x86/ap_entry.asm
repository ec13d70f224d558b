; First higher-half code an AP runs (from boot/trampoline.asm), still on
; the boot page tables and with no stack. The boot CPU left the kernel's
; CR3, this AP's stack and CPU number in ap_boot (kernel/arch/x86/smp.c).

section .text
bits 64

extern ap_boot_cr3, ap_boot_stack, ap_boot_cpu, ap_main
global ap_entry64

ap_entry64:
	mov	rax, [rel ap_boot_cr3]
	mov	cr3, rax
	mov	rsp, [rel ap_boot_stack]
	xor	ebp, ebp
	push	rbp
	mov	edi, [rel ap_boot_cpu]
	call	ap_main
.hang:
	cli
	hlt
	jmp	.hang
