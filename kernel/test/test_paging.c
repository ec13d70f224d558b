/*
 * Tests of the kernel page tables (kernel/mm/paging.c, ioremap.c): the
 * permissions of text, rodata and data, no identity map, the direct map's
 * reach, uncached MMIO mappings; and two manual tests that end the run
 * with the fault the protection is for.
 */
#include <ktest.h>
#include <mm.h>
#include <kmalloc.h>
#include <printk.h>
#include <arch/cpu.h>

static const char ro_marker[] = "read-only data";
static int data_marker = 1;
static int bss_marker;
/* One `ret` instruction, in .data: executing it must fault. */
static unsigned char data_code[16] = { 0xc3 };

#define X86_CR0_WP	(1UL << 16)

static void expect_perm(struct ktest_ctx *t, const char *what, const void *va,
			bool writable, bool executable)
{
	unsigned long size = 0;
	u64 e = paging_lookup(va, &size);

	KT_EXPECT(t, e & PTE_P, "%s (%p) is mapped", what, va);
	if (!(e & PTE_P))
		return;
	KT_EXPECT(t, !!(e & PTE_RW) == writable, "%s (%p) %s writable (entry %#lx)",
		  what, va, writable ? "is" : "is not", (unsigned long)e);
	KT_EXPECT(t, !(e & PTE_NX) == executable, "%s (%p) %s executable (entry %#lx)",
		  what, va, executable ? "is" : "is not", (unsigned long)e);
	KT_EXPECT(t, !(e & PTE_US), "%s (%p) is kernel-only", what, va);
	kt_info("%-8s %p: entry %016lx, %lu KiB page", what, va, (unsigned long)e, size >> 10);
}

KTEST(paging_nx_and_ro)
{
	int on_stack = 0;
	void *obj = kmalloc(100);

	KT_EXPECT(t, (read_cr3() & PTE_ADDR) == kernel_cr3(), "CR3 %#lx is the kernel's %#lx",
		  (unsigned long)read_cr3(), (unsigned long)kernel_cr3());
	KT_EXPECT(t, rdmsr(MSR_EFER) & EFER_NXE, "EFER.NXE is set");
	KT_EXPECT(t, read_cr0() & X86_CR0_WP, "CR0.WP is set");
	KT_EXPECT(t, read_cr4() & X86_CR4_PGE, "CR4.PGE is set");

	expect_perm(t, "boot", _kernel_start, false, true);
	expect_perm(t, "text", (void *)paging_lookup, false, true);
	expect_perm(t, "rodata", ro_marker, false, false);
	expect_perm(t, "data", &data_marker, true, false);
	expect_perm(t, "bss", &bss_marker, true, false);
	expect_perm(t, "stack", &on_stack, true, false);
	expect_perm(t, "kmalloc", obj, true, false);
	expect_perm(t, "phys 0", phys_to_virt(0), true, false);
	expect_perm(t, "phys 4G-1", phys_to_virt(0xffffffffUL), true, false);
	kfree(obj);

	KT_EXPECT(t, paging_lookup(NULL, NULL) == 0, "NULL is not mapped");
	KT_EXPECT(t, paging_lookup((void *)0x100000, NULL) == 0,
		  "no identity map (the kernel's physical address 1 MiB)");
	KT_EXPECT(t, paging_lookup((void *)(KERNEL_VBASE + 0x8000), NULL) == 0,
		  "below the kernel image at KERNEL_VBASE is not mapped");
}

KTEST(paging_ioremap_uncached)
{
	phys_addr_t hpet = 0xfed00000;
	u8 __iomem *a = ioremap(hpet, 1024);
	u8 __iomem *b = ioremap(hpet + 0x10, 8);
	unsigned long size = 0;
	u64 e = paging_lookup((void __force *)a, &size);	/* the mapping, not the device */

	KT_EXPECT(t, (unsigned long)a >= IOREMAP_BASE &&
		  (unsigned long)a < IOREMAP_BASE + IOREMAP_SIZE, "%p is in the ioremap window", a);
	KT_EXPECT(t, b == a + 0x10, "a request inside a mapping reuses it (%p, %p)", a, b);
	KT_EXPECT(t, (e & PTE_ADDR) == hpet, "maps %#lx (entry %#lx)",
		  (unsigned long)hpet, (unsigned long)e);
	KT_EXPECT(t, (e & (PTE_P | PTE_RW | PTE_PCD | PTE_PWT)) == (PTE_P | PTE_RW | PTE_PCD | PTE_PWT),
		  "present, writable, uncached (entry %#lx)", (unsigned long)e);
	KT_EXPECT(t, e & PTE_NX, "not executable (entry %#lx)", (unsigned long)e);
	KT_EXPECT(t, size == PAGE_SIZE, "4 KiB page (%lu)", size);
	KT_EXPECT(t, paging_lookup((void __force *)a + PAGE_SIZE, NULL) == 0,
		  "guard page after the mapping");
}

/* Writing kernel text must fault: panic "page fault ... protection violation on write". */
KTEST_MANUAL(paging_write_text)
{
	volatile unsigned char *text = (volatile unsigned char *)paging_lookup;

	kt_info("writing to kernel text at %p; this must fault", text);
	*text = *text;
	ktest_fail(t, __FILE__, __LINE__, "the write to kernel text did not fault");
}

/* Executing data must fault: panic "page fault ... instruction fetch". */
KTEST_MANUAL(paging_exec_data)
{
	void (*fn)(void) = (void (*)(void))(void *)data_code;

	kt_info("calling into .data at %p; this must fault", data_code);
	fn();
	ktest_fail(t, __FILE__, __LINE__, "executing .data did not fault");
}
