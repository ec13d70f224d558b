/* Virtual memory layout (boot/layout.inc has the same numbers for NASM). */
#ifndef _ARCH_LAYOUT_H
#define _ARCH_LAYOUT_H

#include <types.h>

#define KERNEL_VBASE	0xffffffff80000000UL	/* kernel image, linked here (-2 GiB) */
#define PHYS_OFFSET	0xffff800000000000UL	/* direct map of all physical memory */
/*
 * Loadable modules (kernel/module/area.c, docs/modules.md): 512 MiB just
 * above the image, inside the top 2 GiB, so that module code compiled
 * with -mcmodel=kernel reaches the kernel and other modules with 32-bit
 * relocations (R_X86_64_32S, PC32, PLT32).
 */
#define MODULE_AREA_START	0xffffffffc0000000UL
#define MODULE_AREA_END		0xffffffffe0000000UL
#define PAGE_SIZE	4096UL
#define PAGE_SHIFT	12
#define PAGE_MASK	(~(PAGE_SIZE - 1))

static inline void *phys_to_virt(phys_addr_t p)
{
	return (void *)(p + PHYS_OFFSET);
}

/* Works for direct-map and kernel-image addresses alike. */
static inline phys_addr_t virt_to_phys(const void *v)
{
	uintptr_t a = (uintptr_t)v;
	return a >= KERNEL_VBASE ? a - KERNEL_VBASE : a - PHYS_OFFSET;
}

/* Linker-script symbols (boot/linker.ld). */
extern char _kernel_start[], _kernel_end[], _text_start[], _text_end[];
extern char _rodata_start[], _rodata_end[], _data_start[], _data_end[];
extern char _bss_start[], _bss_end[];

#endif
