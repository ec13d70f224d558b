/*
 * The kernel's page tables: one PML4 shared by every CPU.
 *
 * boot/entry.asm starts us on coarse tables (the first 1 GiB mapped three
 * times, everything writable and executable). paging_init() replaces them
 * with tables that say what each part of memory is for:
 *
 *   PHYS_OFFSET + pa   physical memory: all of [0, 4 GiB) (ACPI tables and
 *                      MMIO holes included) and every memory-map range
 *                      above, read-write, NX, 1 GiB pages where the CPU
 *                      has them, else 2 MiB;
 *   KERNEL_VBASE + pa  the kernel image in 4 KiB pages: text read-only and
 *                      executable, rodata read-only NX, data/bss RW NX;
 *   IOREMAP_BASE       MMIO mappings made by ioremap() (kernel/mm/ioremap.c);
 *   MODULE_AREA_START  loadable modules, mapped and unmapped as they come
 *                      and go (kernel_map_range(), kernel/module/area.c);
 *   nothing else:      no identity map, so a NULL dereference faults.
 *
 * All kernel mappings are global (CR4.PGE): a CR3 switch keeps them in the
 * TLB. The boot tables stay untouched because the AP trampoline still
 * uses them to reach long mode; each AP then calls paging_load_kernel_cr3().
 */
#include <mm.h>
#include <kasan.h>
#include <bootinfo.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <arch/cpu.h>
#include <errno.h>

#define X86_CR0_WP		(1UL << 16)
#define CPUID_EXT_NX		(1U << 20)	/* 0x80000001 EDX */
#define CPUID_EXT_PDPE1GB	(1U << 26)	/* 0x80000001 EDX */
#define GIB			(1UL << 30)
#define MIB2			(1UL << 21)

static u64 *kernel_pml4;
static phys_addr_t kernel_pml4_phys;
static u64 pte_nx;			/* PTE_NX if the CPU has NX, else 0 */
static bool have_1g_pages;

/* ------------------------------------------------------------ table helpers */

u64 *pt_alloc(void)
{
	u64 *t = page_alloc_zeroed();

	if (!t)
		panic("paging: out of memory for page tables");
	return t;
}

static unsigned int pt_index(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

u64 *pt_walk_create(u64 *pml4, unsigned long va, int level)
{
	u64 *table = pml4;

	for (int l = 4; l > level; l--) {
		u64 *e = &table[pt_index(va, l)];

		if (!(*e & PTE_P))
			*e = virt_to_phys(pt_alloc()) | PTE_P | PTE_RW;
		else if (*e & PTE_PS)
			panic("paging: %#lx is inside a large page", va);
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[pt_index(va, level)];
}

/* Map [va, va+size) to pa with pages of `level` (1: 4 KiB, 2: 2 MiB, 3: 1 GiB). */
static void map_range(unsigned long va, phys_addr_t pa, unsigned long size,
		      u64 flags, int level)
{
	unsigned long step = PAGE_SIZE << (9 * (level - 1));

	if (level > 1)
		flags |= PTE_PS;
	for (unsigned long off = 0; off < size; off += step)
		*pt_walk_create(kernel_pml4, va + off, level) = (pa + off) | flags;
}

/* ------------------------------------------------------------ the layout */

/*
 * Everything below 4 GiB (LAPIC, IOAPIC, HPET and the ACPI tables live
 * there), and above it every range the memory map lists, of any type.
 * Not simply [0, highest address): QEMU lists a reserved range just below
 * 1 TiB, and mapping the void up to it would cost megabytes of tables
 * where 1 GiB pages are missing.
 */
static void map_direct(void)
{
	unsigned long step = have_1g_pages ? GIB : MIB2;
	int level = have_1g_pages ? 3 : 2;
	u64 flags = PTE_P | PTE_RW | PTE_G | pte_nx;
	u64 top = 4 * GIB;

	map_range(PHYS_OFFSET, 0, 4 * GIB, flags, level);
	for (unsigned int i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];
		u64 s = ALIGN_DOWN(m->base, step), e = ALIGN_UP(m->base + m->len, step);

		if (e <= 4 * GIB)
			continue;
		s = MAX(s, 4 * GIB);
		map_range(PHYS_OFFSET + s, s, e - s, flags, level);
		top = MAX(top, e);
	}
	printk("paging: direct map at %#lx: [0, 4 GiB) and the memory map up to %#lx, %s pages\n",
	       PHYS_OFFSET, (unsigned long)top, have_1g_pages ? "1 GiB" : "2 MiB");
}

static void map_image_part(const char *start, const char *end, u64 flags)
{
	unsigned long s = ALIGN_DOWN((unsigned long)start, PAGE_SIZE);
	unsigned long e = ALIGN_UP((unsigned long)end, PAGE_SIZE);

	map_range(s, virt_to_phys((void *)s), e - s, flags | PTE_P | PTE_G, 1);
}

/*
 * The image starts with .multiboot and .boot.text inside the text output
 * section (boot/linker.ld), so [_kernel_start, _rodata_start) is all code.
 */
static void map_kernel_image(void)
{
	map_image_part(_kernel_start, _rodata_start, 0);
	map_image_part(_rodata_start, _data_start, pte_nx);
	map_image_part(_data_start, _kernel_end, PTE_RW | pte_nx);
}

/* ------------------------------------------------------------ CPU setup */

static void probe_cpu(void)
{
	u32 a, b, c, d;

	cpuid(0x80000000, 0, &a, &b, &c, &d);
	if (a < 0x80000001)
		return;
	cpuid(0x80000001, 0, &a, &b, &c, &d);
	pte_nx = d & CPUID_EXT_NX ? PTE_NX : 0;
	have_1g_pages = d & CPUID_EXT_PDPE1GB;
}

/* Every CPU: the features our tables rely on, before it loads them. */
static void enable_paging_features(void)
{
	if (pte_nx && !(rdmsr(MSR_EFER) & EFER_NXE))
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr4(read_cr4() | X86_CR4_PGE);
	write_cr0(read_cr0() | X86_CR0_WP);	/* read-only binds the kernel too */
}

void paging_load_kernel_cr3(void)
{
	enable_paging_features();
	write_cr3(kernel_pml4_phys);
}

phys_addr_t kernel_cr3(void)
{
	return kernel_pml4_phys;
}

void paging_init(void)
{
	probe_cpu();
	if (!pte_nx)
		pr_warn("paging: CPU has no NX; data will be executable\n");
	kernel_pml4 = pt_alloc();
	kernel_pml4_phys = virt_to_phys(kernel_pml4);
	map_direct();
	map_kernel_image();
	ioremap_init(kernel_pml4);
	kasan_copy_early_shadow(kernel_pml4);	/* until kasan_init() maps the real one */
	paging_load_kernel_cr3();
	printk("paging: kernel tables at %#lx: text RX, rodata R NX, data RW NX, no identity map\n",
	       (unsigned long)kernel_pml4_phys);
	pmm_add_high_memory();
}

/* ------------------------------------------------------------ mappings after boot */

/* The PTE for va, making the tables above it; NULL if the pmm has no page. */
static u64 *pte_create(unsigned long va)
{
	u64 *table = kernel_pml4;

	for (int l = 4; l > 1; l--) {
		u64 *e = &table[pt_index(va, l)];

		if (!(*e & PTE_P)) {
			u64 *t = page_alloc_zeroed();

			if (!t)
				return NULL;
			*e = virt_to_phys(t) | PTE_P | PTE_RW;
		} else if (*e & PTE_PS) {
			panic("paging: %#lx is inside a large page", va);
		}
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[pt_index(va, 1)];
}

/*
 * Tables made here are kept when the range is unmapped (the next mapping
 * in the same 2 MiB reuses them), and they sit under the kernel's own
 * PML4 entries, so every process's address space sees them at once
 * (kernel/mm/uvm.c copies those entries).
 */
int kernel_map_range(unsigned long va, phys_addr_t pa, unsigned long size, enum kmap_prot prot)
{
	u64 flags = PTE_P | PTE_G | (prot == KMAP_RW ? PTE_RW : 0) | (prot == KMAP_RX ? 0 : pte_nx);

	for (unsigned long off = 0; off < size; off += PAGE_SIZE) {
		u64 *pte = pte_create(va + off);

		if (!pte) {
			kernel_unmap_range(va, off);
			return -ENOMEM;
		}
		WRITE_ONCE(*pte, (pa + off) | flags);
	}
	return 0;
}

void kernel_unmap_range(unsigned long va, unsigned long size)
{
	for (unsigned long off = 0; off < size; off += PAGE_SIZE) {
		u64 *table = kernel_pml4;
		unsigned long a = va + off;
		int l;

		for (l = 4; l > 1; l--) {
			u64 e = table[pt_index(a, l)];

			if (!(e & PTE_P) || (e & PTE_PS))
				break;
			table = phys_to_virt(e & PTE_ADDR);
		}
		if (l == 1)
			WRITE_ONCE(table[pt_index(a, 1)], 0);
	}
}

/* ------------------------------------------------------------ inspection */

u64 paging_lookup(const void *va, unsigned long *page_size)
{
	unsigned long a = (unsigned long)va;
	u64 *table = phys_to_virt(read_cr3() & PTE_ADDR);
	u64 rw = PTE_RW, nx = 0;

	for (int l = 4; l >= 1; l--) {
		u64 e = table[pt_index(a, l)];

		if (!(e & PTE_P))
			return 0;
		rw &= e;
		nx |= e & PTE_NX;
		if (l == 1 || (l <= 3 && (e & PTE_PS))) {
			if (page_size)
				*page_size = PAGE_SIZE << (9 * (l - 1));
			return (e & ~(PTE_RW | PTE_NX)) | rw | nx;
		}
		table = phys_to_virt(e & PTE_ADDR);
	}
	return 0;
}
