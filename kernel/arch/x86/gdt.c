/*
 * Per-CPU GDT and TSS.
 *
 * Every CPU has its own GDT (because the TSS descriptor's busy bit is per
 * TSS) and its own TSS with three IST stacks: a double fault or an NMI
 * switches to a known-good stack even if the kernel stack overflowed or
 * was in the middle of a switch.
 *
 * Selector layout (sysret wants user data right below user code):
 *   0x08 kernel code  0x10 kernel data  0x1b user data  0x23 user code
 *   0x28 TSS (16 bytes)
 */
#include <arch/gdt.h>
#include <arch/irq.h>
#include <arch/user.h>
#include <percpu.h>
#include <string.h>

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct cpu_tables {
	u64 gdt[7];
	struct tss tss;
	u8 ist_stacks[3][IST_STACK_SIZE] __aligned(16);
};

static DEFINE_PER_CPU(struct cpu_tables, cpu_tables) __aligned(64);

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

void gdt_init_cpu(void)
{
	struct cpu_tables *t = this_cpu_ptr(&cpu_tables);
	u64 tss = (u64)&t->tss;
	struct desc_ptr p = { sizeof(t->gdt) - 1, (u64)t->gdt };

	t->gdt[0] = 0;
	t->gdt[1] = 0x00af9a000000ffffULL;	/* kernel code, 64-bit */
	t->gdt[2] = 0x00cf92000000ffffULL;	/* kernel data */
	t->gdt[3] = 0x00cff2000000ffffULL;	/* user data (DPL 3) */
	t->gdt[4] = 0x00affa000000ffffULL;	/* user code, 64-bit (DPL 3) */
	t->gdt[5] = (sizeof(struct tss) - 1) | ((tss & 0xffffff) << 16) |
		    (0x89ULL << 40) | (((tss >> 24) & 0xff) << 56);
	t->gdt[6] = tss >> 32;

	memset(&t->tss, 0, sizeof(t->tss));
	for (int i = 0; i < 3; i++)
		t->tss.ist[i] = (u64)&t->ist_stacks[i][IST_STACK_SIZE];
	t->tss.iomap_base = sizeof(struct tss);		/* no I/O bitmap */

	/* Reload CS through a far return, the data segments, then the TSS.
	 * GS base is an MSR and survives the reload of the GS selector only
	 * if we write the MSR after it: percpu_load() does. */
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq $0x08\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movl $0x10, %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%ss\n\t"
		"movw $0x28, %%ax\n\t"
		"ltr %%ax"
		:: "m"(p) : "rax", "memory");
	syscall_init_cpu();		/* the way into the kernel from user mode */
}

/* The stack the CPU switches to on an interrupt from user mode. */
void tss_set_kernel_stack(unsigned long top)
{
	this_cpu_ptr(&cpu_tables)->tss.rsp[0] = top;
}

/* For stack-overflow diagnosis: is addr inside one of this CPU's IST stacks? */
bool on_ist_stack(unsigned long addr)
{
	struct cpu_tables *t = this_cpu_ptr(&cpu_tables);
	return addr >= (unsigned long)t->ist_stacks &&
	       addr < (unsigned long)t->ist_stacks + sizeof(t->ist_stacks);
}
