; The application processors' way from real mode to the kernel.
;
; An AP wakes from INIT-SIPI-SIPI in 16-bit real mode at CS:IP = 0x0800:0
; (physical 0x8000, the SIPI vector 0x08 times 4 KiB). The boot CPU copied
; this flat binary there and filled in the parameter block at its end. We
; go 16-bit -> 32-bit protected mode -> 64-bit long mode using the boot page
; tables (boot/entry.asm's boot_pml4, which identity-map low memory so this
; code keeps running), then jump to ap_entry64 in the higher half, which
; switches to the kernel's page tables and its own stack.

%include "layout.inc"

TRAMPOLINE_BASE equ 0x8000

bits 16
org TRAMPOLINE_BASE

ap_start16:
	cli
	cld
	xor	ax, ax
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	lgdt	[tramp_gdt_ptr]
	mov	eax, cr0
	or	eax, 1				; PE
	mov	cr0, eax
	jmp	dword 0x08:ap_start32

bits 32
ap_start32:
	mov	ax, 0x10
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	eax, cr4
	or	eax, (1 << 5) | (1 << 7)	; PAE, PGE
	mov	cr4, eax
	mov	eax, [tramp_cr3]
	mov	cr3, eax
	mov	ecx, 0xc0000080			; EFER
	rdmsr
	or	eax, (1 << 8)			; LME
	or	eax, [tramp_efer_extra]		; NXE when the BSP has it
	wrmsr
	mov	eax, cr0
	or	eax, (1 << 31) | (1 << 16)	; PG, WP
	mov	cr0, eax
	jmp	0x18:ap_start64

bits 64
ap_start64:
	mov	ax, 0x10
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	rax, [tramp_entry]
	jmp	rax				; ap_entry64, higher half

align 16
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff			; 0x08: 32-bit code
	dq 0x00cf92000000ffff			; 0x10: data
	dq 0x00af9a000000ffff			; 0x18: 64-bit code
tramp_gdt_end:
tramp_gdt_ptr:
	dw tramp_gdt_end - tramp_gdt - 1
	dd tramp_gdt

; Parameter block, filled in by kernel/arch/x86/smp.c (struct trampoline_params).
align 8
params:
tramp_cr3:		dd 0
tramp_efer_extra:	dd 0
tramp_entry:		dq 0
