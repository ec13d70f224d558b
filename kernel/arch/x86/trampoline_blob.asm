; The AP trampoline (boot/trampoline.asm), assembled as a flat binary and
; carried in the kernel image; kernel/arch/x86/smp.c copies it to 0x8000.
section .rodata
global trampoline_start, trampoline_end
align 16
trampoline_start:
	incbin "trampoline.bin"
trampoline_end:
