/* Segments, the GDT and the TSS (kernel/arch/x86/gdt.c). */
#ifndef _ARCH_GDT_H
#define _ARCH_GDT_H

#include <types.h>

#define KERNEL_CS	0x08
#define KERNEL_DS	0x10
#define USER_DS		0x1b
#define USER_CS		0x23
#define TSS_SEL		0x28

#define IST_STACK_SIZE	8192

void gdt_init_cpu(void);
void tss_set_kernel_stack(unsigned long top);
bool on_ist_stack(unsigned long addr);

#endif
