; The bootstrap CPU's path from the loader to C.
;
; GRUB (Multiboot2) and QEMU -kernel (Multiboot1) both leave us in 32-bit
; protected mode with paging off, EAX = loader magic, EBX = physical address
; of the boot information. We build a first set of page tables that map the
; first 4 GiB twice and the first 1 GiB a third time:
;   identity        0x0                 (so the next instruction still runs)
;   direct map      PHYS_OFFSET + phys  (phys_to_virt() works at once, for
;                                        ACPI tables and MMIO below 4 GiB too)
;   kernel image    KERNEL_VBASE + phys (where the kernel is linked; 1 GiB)
; then enable PAE, long mode and paging, and jump to the higher half.
; kernel/mm/paging.c later replaces these tables with precise ones
; (NX data, read-only text); the APs' trampoline still uses these.

%include "layout.inc"

extern kmain

global start32, boot_pml4, boot_gdt64_ptr, boot_stack_top

section .boot.text
bits 32
start32:
	cli
	cld
	mov	edi, eax			; loader magic, first C argument
	mov	esi, ebx			; boot info (physical), second argument
	mov	esp, boot_stack_top - KERNEL_VBASE

	; Long mode present? (CPUID 0x80000001:EDX bit 29)
	mov	eax, 0x80000000
	cpuid
	cmp	eax, 0x80000001
	jb	.no_long_mode
	mov	eax, 0x80000001
	cpuid
	bt	edx, 29
	jnc	.no_long_mode
	mov	ebp, edx			; remember NX support (bit 20)

	; Four page directories of 2 MiB pages covering the first 4 GiB.
	mov	ebx, boot_pd - KERNEL_VBASE
	xor	ecx, ecx
.fill_pd:
	mov	eax, ecx
	shl	eax, 21
	or	eax, 0x83			; present, writable, 2 MiB page
	mov	[ebx + ecx * 8], eax
	mov	dword [ebx + ecx * 8 + 4], 0
	inc	ecx
	cmp	ecx, 2048
	jne	.fill_pd

	xor	ecx, ecx
.fill_pdpt:
	mov	eax, ecx
	shl	eax, 12
	add	eax, (boot_pd - KERNEL_VBASE) + 3
	mov	[boot_pdpt_low - KERNEL_VBASE + ecx * 8], eax	; 0 .. 4 GiB
	inc	ecx
	cmp	ecx, 4
	jne	.fill_pdpt
	mov	eax, boot_pd - KERNEL_VBASE
	or	eax, 3
	mov	[boot_pdpt_high - KERNEL_VBASE + 510 * 8], eax	; -2 GiB
	mov	eax, boot_pdpt_low - KERNEL_VBASE
	or	eax, 3
	mov	[boot_pml4 - KERNEL_VBASE], eax			; identity
	mov	[boot_pml4 - KERNEL_VBASE + 256 * 8], eax	; PHYS_OFFSET
	mov	eax, boot_pdpt_high - KERNEL_VBASE
	or	eax, 3
	mov	[boot_pml4 - KERNEL_VBASE + 511 * 8], eax	; KERNEL_VBASE

	mov	eax, boot_pml4 - KERNEL_VBASE
	mov	cr3, eax
	mov	eax, cr4
	or	eax, (1 << 5) | (1 << 7)	; PAE, PGE
	mov	cr4, eax
	mov	ecx, 0xc0000080			; EFER
	rdmsr
	or	eax, (1 << 8)			; LME
	bt	ebp, 20
	jnc	.no_nx
	or	eax, (1 << 11)			; NXE
.no_nx:
	wrmsr
	mov	eax, cr0
	or	eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov	cr0, eax

	lgdt	[boot_gdt64_ptr - KERNEL_VBASE]
	jmp	0x08:(long_entry - KERNEL_VBASE)

.no_long_mode:
	; Say why on COM1, then stop: there is nothing else we can do.
	mov	esi, no_lm_msg - KERNEL_VBASE
	mov	dx, 0x3f8
.putc:
	lodsb
	test	al, al
	jz	.halt
	out	dx, al
	jmp	.putc
.halt:
	hlt
	jmp	.halt

bits 64
long_entry:
	mov	ax, 0x10
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	xor	eax, eax
	mov	fs, ax
	mov	gs, ax
	mov	edi, edi			; upper halves are undefined after
	mov	esi, esi			; the switch from 32-bit mode
	mov	rax, .high
	jmp	rax
.high:
	mov	rsp, boot_stack_top
	xor	ebp, ebp			; terminates backtraces
	push	rbp
	call	kmain
.hang:
	cli
	hlt
	jmp	.hang

section .rodata
no_lm_msg:
	db "Quiescent: this CPU has no long mode (x86-64); cannot boot.", 13, 10, 0

section .data
align 16
boot_gdt64:
	dq 0
	dq 0x00af9a000000ffff			; 0x08: 64-bit kernel code
	dq 0x00cf92000000ffff			; 0x10: kernel data
boot_gdt64_end:
boot_gdt64_ptr:
	dw boot_gdt64_end - boot_gdt64 - 1
	dq boot_gdt64 - KERNEL_VBASE		; physical: loaded before paging

section .bss
align 4096
boot_pml4:	resb 4096
boot_pdpt_low:	resb 4096
boot_pdpt_high:	resb 4096
boot_pd:	resb 4096 * 4
align 16
boot_stack:	resb BOOT_STACK_SIZE
boot_stack_top:
