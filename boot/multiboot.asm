; Boot headers. One ELF64 carries two headers so that two loaders can start it:
;  - Multiboot2, read by GRUB from the ISO (the normal path);
;  - Multiboot1 with the "a.out kludge" (flag bit 16), read by QEMU's -kernel
;    loader, which only speaks Multiboot1 and cannot load an ELF64 itself:
;    the kludge gives it physical load addresses, so it copies the image
;    as a flat blob. The linker script keeps the file image contiguous.
; Both headers must sit near the start of the file (MB1: first 8 KiB,
; MB2: first 32 KiB); the linker script puts .multiboot first.

%include "layout.inc"

extern _phys_load_start, _phys_load_end, _phys_bss_end, _start_phys

section .multiboot
align 8
mb2_header:
	dd 0xe85250d6				; Multiboot2 magic
	dd 0					; architecture: i386 (32-bit protected mode entry)
	dd mb2_header_end - mb2_header
	dd -(0xe85250d6 + 0 + (mb2_header_end - mb2_header))
	; entry address tag: GRUB would otherwise take e_entry
	align 8
	dw 3, 0
	dd 12
	dd _start_phys
	; end tag
	align 8
	dw 0, 0
	dd 8
mb2_header_end:

align 4
mb1_header:
	dd 0x1badb002				; Multiboot1 magic
	dd 0x00010003				; page-align modules, want memory info, a.out kludge
	dd -(0x1badb002 + 0x00010003)
	dd mb1_header - KERNEL_VBASE	; header_addr (physical)
	dd _phys_load_start			; load_addr
	dd _phys_load_end			; load_end_addr
	dd _phys_bss_end			; bss_end_addr
	dd _start_phys				; entry_addr

