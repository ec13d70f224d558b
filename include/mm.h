/*
 * Memory management: physical pages, kernel page tables, MMIO mappings.
 * (kernel/mm/pmm.c, kernel/mm/paging.c, kernel/mm/ioremap.c)
 */
#ifndef _MM_H
#define _MM_H

#include <types.h>
#include <compiler.h>
#include <arch/layout.h>

/*
 * One descriptor per physical page frame (kernel/mm/pmm.c keeps the
 * array). The buddy allocator owns a free page's fields; kmalloc owns
 * those of the pages it carved into objects or handed out whole.
 */
#define PG_RESERVED	0x01	/* not RAM, or RAM the allocator must not touch */
#define PG_BUDDY	0x02	/* first page of a free buddy block of `order` */
#define PG_SLAB		0x04	/* kmalloc: carved into objects of class `cls` */
#define PG_LARGE	0x08	/* kmalloc: first page of a 2^order-page allocation */

struct page {
	u8 flags;
	u8 order;		/* PG_BUDDY, PG_LARGE: block order */
	u8 cls;			/* PG_SLAB: kmalloc size class */
	u8 _pad;
	u32 private;		/* PG_LARGE: bytes requested (kmalloc) */
	union {
		struct {	/* PG_BUDDY: free-list links, page frame numbers */
			u32 next, prev;
		};
		u64 freemap;	/* PG_SLAB: one bit per free object (debug) */
	};
};

#define MAX_ORDER	10	/* largest block: 2^10 pages = 4 MiB */

/* Physical page allocator, fed from the boot memory map (boot_info). */
void pmm_init(void);
/* Memory above what the boot tables map; paging_init calls it. */
void pmm_add_high_memory(void);
/* 2^order contiguous pages, physical address; 0 if none. Not zeroed. */
phys_addr_t alloc_pages(unsigned int order);
void free_pages(phys_addr_t pa, unsigned int order);
/* One zeroed page, as a direct-map pointer; NULL if none. */
void *page_alloc_zeroed(void);
void page_free(void *va);
unsigned long pmm_free_pages(void);
unsigned long pmm_total_pages(void);
/* Descriptor of the page frame holding pa; NULL if beyond managed RAM. */
struct page *phys_to_page(phys_addr_t pa);
void pmm_show(void);
/* CONFIG_KASAN: poison the shadow of every free page (kasan_init()). */
void pmm_kasan_poison_free(void);

/*
 * Kernel page tables: replaces the boot tables (boot/entry.asm) with
 *   - the kernel image at KERNEL_VBASE: text read-only+executable, rodata
 *     read-only+NX, data and bss read-write+NX;
 *   - all physical memory at PHYS_OFFSET, read-write+NX;
 *   - no identity map (a NULL dereference faults).
 * Called once on the boot CPU; APs load the same tables with
 * paging_load_kernel_cr3().
 */
void paging_init(void);
void paging_load_kernel_cr3(void);
phys_addr_t kernel_cr3(void);
/* Map MMIO (uncached, NX); returns a kernel virtual address. */
void __iomem *ioremap(phys_addr_t pa, size_t size);

/* Page-table entry bits (x86-64, 4-level paging). */
#define PTE_P		(1UL << 0)
#define PTE_RW		(1UL << 1)
#define PTE_US		(1UL << 2)
#define PTE_PWT		(1UL << 3)
#define PTE_PCD		(1UL << 4)
#define PTE_A		(1UL << 5)
#define PTE_D		(1UL << 6)
#define PTE_PS		(1UL << 7)	/* large page (in a PDPT or PD entry) */
#define PTE_G		(1UL << 8)
#define PTE_NX		(1UL << 63)
#define PTE_ADDR	0x000ffffffffff000UL

#define IOREMAP_BASE	0xffffc90000000000UL	/* MMIO mappings, 1 GiB */
#define IOREMAP_SIZE	(1UL << 30)

/*
 * Walk the page tables CR3 points at, in software. Returns the leaf entry
 * for va with the permissions of the whole walk folded in (RW cleared if
 * any level forbids writes, NX set if any level forbids execution), or 0
 * if va is not mapped. *page_size (if not NULL) gets 4 KiB, 2 MiB or 1 GiB.
 */
u64 paging_lookup(const void *va, unsigned long *page_size);

/*
 * Kernel mappings made after boot (the module area, kernel/module/area.c):
 * map [va, va + size) to the physical range at pa with the rights `prot`
 * asks for (KMAP_*; NX wherever the CPU has it, except KMAP_RX), 4 KiB
 * pages, global. Page tables come from the pmm; -ENOMEM if it has none
 * (then nothing is left mapped). Unmapping clears the entries only: the
 * caller flushes the TLBs (flush_tlb_kernel_range(), kernel/mm/tlb.c)
 * before the pages are reused.
 */
enum kmap_prot { KMAP_RX, KMAP_RO, KMAP_RW };
int kernel_map_range(unsigned long va, phys_addr_t pa, unsigned long size, enum kmap_prot prot);
void kernel_unmap_range(unsigned long va, unsigned long size);
/* Every CPU forgets [start, end) of the kernel half (an IPI round, waited for). */
void flush_tlb_kernel_range(unsigned long start, unsigned long end);

/* Internal to kernel/mm: a zeroed page-table page (the pmm, or panic). */
u64 *pt_alloc(void);
/* Internal: the entry for va at `level` (1 = PTE) under pml4, creating tables. */
u64 *pt_walk_create(u64 *pml4, unsigned long va, int level);
void ioremap_init(u64 *pml4);

#endif
