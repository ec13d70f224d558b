/*
 * The module area: module memory, [MODULE_AREA_START, MODULE_AREA_END)
 * (include/arch/layout.h), 512 MiB in the top 2 GiB of the address space,
 * just above the kernel image.
 *
 * Why there. Modules are compiled like the kernel, with -mcmodel=kernel
 * (the Makefile): the compiler may then reach any symbol with a 32-bit
 * sign-extended absolute address (R_X86_64_32S) or a 32-bit PC-relative
 * one (R_X86_64_PC32, PLT32). Both work only if the module and everything
 * it refers to lie in the top 2 GiB, within 2 GiB of each other: the
 * kernel image is at -2 GiB (+1 MiB, about 3 MiB long) and the module
 * area ends 1.5 GiB above it, so every such relocation between a module
 * and the kernel, or between two modules, fits, and reloc.c's overflow
 * checks never fire for a module built the normal way. (Code placed
 * anywhere else, e.g. in the direct map at 0xffff8000..., would need
 * -mcmodel=large and its 64-bit absolute relocations, or position-
 * independent code and a GOT.)
 *
 * A module gets one physically contiguous block of 2^order pages from the
 * page allocator and a virtual range of as many pages as its layout
 * needs (layout.c), plus one unmapped guard page after it. The three
 * parts are mapped text RX, read-only R+NX, read-write RW+NX, at once and
 * for good. The loader fills the text and read-only parts (sections,
 * relocations, the symbol table) through the direct map (RW, NX), never
 * through the module's own mapping, so the text is never writable at its
 * executable address, and there is no RW-to-RX change that other CPUs'
 * TLBs would have to hear about.
 *
 * Virtual ranges are handed out next-fit, round the area: a range that
 * was just freed is the last to be reused. A stale pointer into an
 * unloaded module then finds no mapping (a page fault that names the
 * address) rather than a newer module's code.
 *
 * Freeing poisons the block (POISON_FREE, through the direct map),
 * unmaps the range, flushes every CPU's TLB for it, and gives the pages
 * back: a use after free reads poison or faults, never silently works.
 * The caller (list.c) frees only after a grace period (seed 000 Figure 8).
 */
#include "internal.h"
#include <mm.h>
#include <kasan.h>
#include <kmalloc.h>
#include <string.h>
#include <atomic.h>
#include <errno.h>

#define AREA_PAGES	((MODULE_AREA_END - MODULE_AREA_START) / PAGE_SIZE)
#define GUARD_PAGES	1

static unsigned long area_bitmap[AREA_PAGES / 64];	/* module_mutex */
static unsigned long area_cursor;			/* next-fit start, in pages */
static atomic_long_t va_pages, pages_alive;

unsigned long module_pages_alive(void)
{
	return atomic_long_read(&pages_alive);
}

unsigned long module_va_pages(void)
{
	return atomic_long_read(&va_pages);
}

static bool range_free(unsigned long first, unsigned long n)
{
	for (unsigned long p = first; p < first + n; p++)
		if (test_bit(p, area_bitmap))
			return false;
	return true;
}

/* n free pages (and a guard after them), next-fit: the first page, or -1. */
static long area_alloc(unsigned long n)
{
	unsigned long want = n + GUARD_PAGES;

	for (unsigned long tries = 0, p = area_cursor; tries < 2 * AREA_PAGES; tries++) {
		if (p + want > AREA_PAGES) {
			p = 0;			/* wrap once round */
			continue;
		}
		if (range_free(p, want)) {
			for (unsigned long i = p; i < p + n; i++)
				set_bit(i, area_bitmap);
			area_cursor = p + want;
			atomic_long_add(n, &va_pages);
			return p;
		}
		p++;
	}
	return -1;
}

static void area_free(unsigned long first, unsigned long n)
{
	for (unsigned long i = first; i < first + n; i++)
		clear_bit(i, area_bitmap);
	atomic_long_sub(n, &va_pages);
}

static unsigned int order_for(unsigned long pages)
{
	unsigned int order = 0;

	while ((1UL << order) < pages)
		order++;
	return order;
}

static int map_parts(struct load_info *li)
{
	static const enum kmap_prot prot[NR_REGIONS] = {
		[REGION_TEXT] = KMAP_RX, [REGION_RO] = KMAP_RO, [REGION_RW] = KMAP_RW,
	};

	for (int r = REGION_TEXT; r < NR_REGIONS; r++) {
		unsigned long off = li->region_base[r];
		int err;

		if (!li->region_size[r])
			continue;
		err = kernel_map_range(li->base + off, li->pa + off, li->region_size[r], prot[r]);
		if (err) {
			kernel_unmap_range(li->base, off);
			return err;
		}
	}
	return 0;
}

/* Module_mutex held. */
int module_mem_alloc(struct load_info *li)
{
	unsigned long pages = li->total_size / PAGE_SIZE;
	long first;

	li->order = order_for(pages);
	if (li->order > MAX_ORDER)
		return load_fail(li, -ENOEXEC, "too large (%lu pages)", pages);
	li->pa = alloc_pages(li->order);
	if (!li->pa)
		return load_fail(li, -ENOMEM, "out of memory for %lu pages", pages);
	li->buf = phys_to_virt(li->pa);
	memset(li->buf, 0, PAGE_SIZE << li->order);
	first = area_alloc(pages);
	if (first < 0) {
		free_pages(li->pa, li->order);
		return load_fail(li, -ENOMEM, "the module area is full");
	}
	li->base = MODULE_AREA_START + first * PAGE_SIZE;
	if (map_parts(li)) {
		area_free(first, pages);
		free_pages(li->pa, li->order);
		return load_fail(li, -ENOMEM, "out of memory for page tables");
	}
#ifdef CONFIG_KASAN
	if (kasan_map_shadow(li->base, li->total_size)) {
		kernel_unmap_range(li->base, li->total_size);
		flush_tlb_kernel_range(li->base, li->base + li->total_size);
		area_free(first, pages);
		free_pages(li->pa, li->order);
		return load_fail(li, -ENOMEM, "out of memory for KASAN's shadow");
	}
	kasan_unpoison((void *)li->base, li->total_size);	/* an unloaded one's poison */
#endif
	atomic_long_add(1UL << li->order, &pages_alive);
	li->mod = (struct module *)(li->base + li->region_base[REGION_RW] + li->mod_off);
	return 0;
}

/* Module_mutex held. No reader may still be using the module. */
void module_mem_free(unsigned long base, unsigned long size, phys_addr_t pa, unsigned int order)
{
	memset(phys_to_virt(pa), POISON_FREE, PAGE_SIZE << order);
	kasan_poison((void *)base, size, KASAN_PAGE_FREE);	/* its data read after unload */
	kernel_unmap_range(base, size);
	flush_tlb_kernel_range(base, base + size);
	free_pages(pa, order);
	area_free((base - MODULE_AREA_START) / PAGE_SIZE, size / PAGE_SIZE);
	atomic_long_sub(1UL << order, &pages_alive);
}
