/*
 * ioremap: device registers (LAPIC, IOAPIC, HPET, ...) mapped uncached.
 *
 * The direct map covers MMIO holes too, but with write-back caching: a
 * device register must be read and written uncached (PCD|PWT) so that
 * every access reaches the device, in order. ioremap() gives such a
 * mapping, NX, in its own 1 GiB window at IOREMAP_BASE, in 4 KiB pages.
 *
 * Virtual space is handed out by a bump pointer, with an unmapped guard
 * page after each mapping; a request that lies inside an earlier mapping
 * gets that mapping back (the LAPIC is asked for by every CPU). Nothing is
 * ever unmapped: devices stay for the life of the kernel.
 *
 * The window's page directory is created at boot under the kernel PML4.
 * Every CPU uses that one PML4, so a mapping made on one CPU is visible to
 * all; and a future per-process PML4 that copies the kernel half (entries
 * 256..511) shares the window's tables too. New mappings only fill
 * entries that were not present, which no TLB caches, so no flush is due.
 */
#include <mm.h>
#include <spinlock.h>
#include <printk.h>
#include <panic.h>

#define IOREMAP_MAX	64

struct iomapping {
	phys_addr_t pa;			/* page aligned */
	unsigned long size;		/* bytes, page multiple */
	unsigned long va;
};

static u64 *io_pml4;
static u64 io_nx;
static unsigned long io_next = IOREMAP_BASE;
static struct iomapping io_maps[IOREMAP_MAX];
static unsigned int io_count;
static DEFINE_SPINLOCK(ioremap_lock);

void ioremap_init(u64 *pml4)
{
	u32 a, b, c, d;

	io_pml4 = pml4;
	cpuid(0x80000001, 0, &a, &b, &c, &d);
	io_nx = d & (1U << 20) ? PTE_NX : 0;
	/* Creates the PML4 entry, PDPT and page directory for the window. */
	pt_walk_create(pml4, IOREMAP_BASE, 2);
}

static unsigned long find_existing(phys_addr_t start, phys_addr_t end)
{
	for (unsigned int i = 0; i < io_count; i++) {
		const struct iomapping *m = &io_maps[i];

		if (start >= m->pa && end <= m->pa + m->size)
			return m->va + (start - m->pa);
	}
	return 0;
}

static unsigned long map_new(phys_addr_t start, unsigned long len)
{
	unsigned long va = io_next;
	u64 flags = PTE_P | PTE_RW | PTE_PCD | PTE_PWT | PTE_G | io_nx;

	if (io_count == IOREMAP_MAX || va + len > IOREMAP_BASE + IOREMAP_SIZE)
		panic("ioremap: window full (%u mappings)", io_count);
	for (unsigned long off = 0; off < len; off += PAGE_SIZE)
		*pt_walk_create(io_pml4, va + off, 1) = (start + off) | flags;
	io_maps[io_count++] = (struct iomapping){ start, len, va };
	io_next = va + len + PAGE_SIZE;		/* guard page */
	return va;
}

void __iomem *ioremap(phys_addr_t pa, size_t size)
{
	phys_addr_t start = ALIGN_DOWN(pa, PAGE_SIZE);
	phys_addr_t end = ALIGN_UP(pa + (size ? size : 1), PAGE_SIZE);
	unsigned long flags, va;

	if (!io_pml4)
		panic("ioremap(%#lx) before paging_init", (unsigned long)pa);
	flags = spin_lock_irqsave(&ioremap_lock);
	va = find_existing(start, end);
	if (!va)
		va = map_new(start, end - start);
	spin_unlock_irqrestore(&ioremap_lock, flags);
	return (void __iomem *)(va + (pa - start));
}
