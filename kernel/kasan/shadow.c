/*
 * KASAN's shadow memory: one byte per 8 bytes of the kernel half, at
 * (addr >> 3) + KASAN_SHADOW_OFFSET, PML4 slots 472..503 (docs/kasan.md).
 *
 * Built without instrumentation (kernel/kasan/Makefile rule in the top
 * Makefile): this code writes the page tables the instrumented code's
 * shadow reads go through; an instrumented function here would read
 * shadow that is not mapped yet.
 *
 * Three stages:
 *   1. kasan_early_init(), kmain's first call: every shadow address maps
 *      one writable scratch page, so that the stack redzones GCC writes
 *      on function entry land somewhere before anything else exists. The
 *      checks ignore the shadow until stage 3.
 *   2. kasan_init(), after paging_init(): real, zeroed shadow pages for
 *      what the kernel dereferences (the direct map of RAM and the kernel
 *      image); every other shadow address maps one read-only zero page
 *      (reads say "all usable": MMIO, ACPI tables), with page tables
 *      shared down each level so that 16 TiB of shadow costs 3 pages.
 *   3. later, kasan_map_shadow() for the module area as it is mapped.
 * The shadow's PML4 entries are made once, in stage 2, so every
 * per-process PML4 (which copies the kernel half) sees later changes.
 */
#include <kasan.h>
#include <mm.h>
#include <bootinfo.h>
#include <printk.h>
#include <panic.h>
#include <string.h>
#include <errno.h>
#include <arch/cpu.h>
#include "kasan_internal.h"

#define SHADOW_SLOT_FIRST	472
#define SHADOW_SLOTS		32

extern u64 boot_pml4[512];

static u8 early_page[PAGE_SIZE] __aligned(PAGE_SIZE);
static u64 early_pte[512] __aligned(PAGE_SIZE);
static u64 early_pmd[512] __aligned(PAGE_SIZE);
static u64 early_pud[512] __aligned(PAGE_SIZE);

static u8 zero_page[PAGE_SIZE] __aligned(PAGE_SIZE);
static u64 zero_pte[512] __aligned(PAGE_SIZE);
static u64 zero_pmd[512] __aligned(PAGE_SIZE);

static u64 *shadow_pud[SHADOW_SLOTS];	/* each slot's own PDPT */
static u64 zero_pte_entry, zero_pmd_entry, zero_page_entry;

static inline unsigned long img_phys(const void *p)
{
	return (unsigned long)p - KERNEL_VBASE;
}

void kasan_early_init(void)
{
	for (int i = 0; i < 512; i++) {
		early_pte[i] = img_phys(early_page) | PTE_P | PTE_RW;
		early_pmd[i] = img_phys(early_pte) | PTE_P | PTE_RW;
		early_pud[i] = img_phys(early_pmd) | PTE_P | PTE_RW;
	}
	for (int i = 0; i < SHADOW_SLOTS; i++)
		boot_pml4[SHADOW_SLOT_FIRST + i] = img_phys(early_pud) | PTE_P | PTE_RW;
	write_cr3(read_cr3());
}

/* paging_init(): the kernel's tables carry stage 1 until kasan_init(). */
void kasan_copy_early_shadow(u64 *pml4)
{
	for (int i = 0; i < SHADOW_SLOTS; i++)
		pml4[SHADOW_SLOT_FIRST + i] = boot_pml4[SHADOW_SLOT_FIRST + i];
}

static u64 *table_page(void)
{
	phys_addr_t pa = alloc_pages(0);

	if (!pa)
		return NULL;
	return __memset(phys_to_virt(pa), 0, PAGE_SIZE);
}

static u64 *fill_table(u64 entry)
{
	u64 *t = table_page();

	if (t)
		for (int i = 0; i < 512; i++)
			t[i] = entry;
	return t;
}

static unsigned int idx(unsigned long va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

/* Real pages behind shadow addresses [s, e) (page-aligned outwards). */
static int populate(unsigned long s, unsigned long e)
{
	for (unsigned long va = ALIGN_DOWN(s, PAGE_SIZE); va < e; va += PAGE_SIZE) {
		unsigned int slot = idx(va, 4) - SHADOW_SLOT_FIRST;
		u64 *pud, *pmd, *pte, *t;

		if (slot >= SHADOW_SLOTS)
			panic("kasan: %#lx is not a shadow address", va);
		pud = shadow_pud[slot];
		if (pud[idx(va, 3)] == zero_pmd_entry) {
			if (!(t = fill_table(zero_pte_entry)))
				return -ENOMEM;
			pud[idx(va, 3)] = virt_to_phys(t) | PTE_P | PTE_RW;
		}
		pmd = phys_to_virt(pud[idx(va, 3)] & PTE_ADDR);
		if (pmd[idx(va, 2)] == zero_pte_entry) {
			if (!(t = fill_table(zero_page_entry)))
				return -ENOMEM;
			pmd[idx(va, 2)] = virt_to_phys(t) | PTE_P | PTE_RW;
		}
		pte = phys_to_virt(pmd[idx(va, 2)] & PTE_ADDR);
		if (pte[idx(va, 1)] == zero_page_entry) {
			if (!(t = table_page()))
				return -ENOMEM;
			pte[idx(va, 1)] = virt_to_phys(t) | PTE_P | PTE_RW | kasan_pte_nx();
		}
	}
	return 0;
}

static int map_range_shadow(unsigned long start, unsigned long size)
{
	return populate((unsigned long)kasan_mem_to_shadow(start),
			(unsigned long)kasan_mem_to_shadow(start + size - 1) + 1);
}

static kasan_lock_t map_lock;

int kasan_map_shadow(unsigned long start, unsigned long size)
{
	unsigned long flags;
	int ret;

	if (!size)
		return 0;
	flags = kasan_lock(&map_lock);
	ret = map_range_shadow(start, size);
	kasan_unlock(&map_lock, flags);
	return ret;
}

static unsigned long ram_top(void)
{
	unsigned long top = 0;

	for (unsigned int i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];

		if (m->type == MEM_USABLE && m->base + m->len > top)
			top = m->base + m->len;
	}
	return ALIGN_UP(top, PAGE_SIZE);
}

/* Stage 2: build the real tables aside, then switch to them at once. */
unsigned long kasan_init_shadow(void)
{
	u64 *pml4 = phys_to_virt(kernel_cr3());
	unsigned long top = ram_top(), before = pmm_free_pages();

	zero_page_entry = img_phys(zero_page) | PTE_P | kasan_pte_nx();
	for (int i = 0; i < 512; i++)
		zero_pte[i] = zero_page_entry;
	zero_pte_entry = img_phys(zero_pte) | PTE_P | PTE_RW;
	for (int i = 0; i < 512; i++)
		zero_pmd[i] = zero_pte_entry;
	zero_pmd_entry = img_phys(zero_pmd) | PTE_P | PTE_RW;
	for (int i = 0; i < SHADOW_SLOTS; i++)
		if (!(shadow_pud[i] = fill_table(zero_pmd_entry)))
			panic("kasan: no memory for the shadow's page tables");
	if (map_range_shadow(PHYS_OFFSET, top) ||
	    map_range_shadow((unsigned long)_kernel_start, _kernel_end - _kernel_start))
		panic("kasan: no memory for the shadow of %lu MiB of RAM", top >> 20);
	for (int i = 0; i < SHADOW_SLOTS; i++) {
		u64 e = virt_to_phys(shadow_pud[i]) | PTE_P | PTE_RW;

		pml4[SHADOW_SLOT_FIRST + i] = e;
		boot_pml4[SHADOW_SLOT_FIRST + i] = e;	/* APs start on the boot tables */
	}
	write_cr3(read_cr3());
	return before - pmm_free_pages();
}
