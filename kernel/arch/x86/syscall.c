/*
 * Per-CPU setup for user mode: the `syscall` instruction's MSRs and the
 * CPU's protections against the kernel touching user memory by mistake.
 *
 *   MSR_STAR    kernel CS 0x08 (SS = 0x10) for syscall; for sysret the
 *               base 0x13, from which the CPU derives user SS = 0x13 + 8
 *               = 0x1b and user CS = 0x13 + 16 = 0x23: the GDT's layout
 *               (kernel/arch/x86/gdt.c) is chosen for this.
 *   MSR_LSTAR   syscall_entry (kernel/arch/x86/syscall_entry.asm).
 *   MSR_SFMASK  flags cleared on entry: IF (no interrupt before the stack
 *               switch), TF, DF (the ABI wants it clear), AC (SMAP armed),
 *               NT and IOPL.
 *   EFER.SCE    enables syscall/sysret.
 *   CR4.SMEP    the kernel may not execute user pages;
 *   CR4.SMAP    nor read or write them outside a stac/clac window
 *               (kernel/arch/x86/uaccess.asm). Both only where CPUID says
 *               the CPU has them (QEMU's -cpu max does; KVM's -cpu host
 *               if the host does).
 */
#include <arch/cpu.h>
#include <arch/gdt.h>
#include <percpu.h>
#include <printk.h>

#define EFER_SCE		(1UL << 0)
#define CPUID7_EBX_SMEP		(1U << 7)
#define CPUID7_EBX_SMAP		(1U << 20)
#define SFMASK_FLAGS		((1UL << 8) | (1UL << 9) | (1UL << 10) | (1UL << 18) | \
				 (1UL << 14) | (3UL << 12))	/* TF IF DF AC NT IOPL */

void syscall_entry(void);
void syscall_init_cpu(void);

u8 uaccess_smap;			/* read by uaccess.asm */
static bool smep_on, smap_on;

static void probe_protections(u32 *ebx)
{
	u32 a, b, c, d;

	*ebx = 0;
	cpuid(0, 0, &a, &b, &c, &d);
	if (a < 7)
		return;
	cpuid(7, 0, &a, &b, &c, &d);
	*ebx = b;
}

void syscall_init_cpu(void)
{
	u32 ebx;

	wrmsr(MSR_STAR, ((u64)(USER_DS - 8) << 48) | ((u64)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (u64)syscall_entry);
	wrmsr(MSR_SFMASK, SFMASK_FLAGS);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);

	probe_protections(&ebx);
	if (ebx & CPUID7_EBX_SMEP)
		write_cr4(read_cr4() | X86_CR4_SMEP);
	if (ebx & CPUID7_EBX_SMAP) {
		write_cr4(read_cr4() | X86_CR4_SMAP);
		uaccess_smap = 1;
	}
	if (smp_processor_id() == 0) {
		smep_on = ebx & CPUID7_EBX_SMEP;
		smap_on = ebx & CPUID7_EBX_SMAP;
		printk("user: syscall/sysret enabled; SMEP %s, SMAP %s\n",
		       smep_on ? "on" : "off (CPU lacks it)",
		       smap_on ? "on" : "off (CPU lacks it)");
	}
}
