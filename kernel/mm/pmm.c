/*
 * The physical page allocator: a binary buddy allocator, orders 0..MAX_ORDER
 * (4 KiB .. 4 MiB blocks).
 *
 * Why buddy: kmalloc wants single pages, page tables want single pages, and
 * large kmalloc requests and future DMA-ish users want physically
 * contiguous runs. A buddy allocator gives both in O(MAX_ORDER) and
 * re-merges freed neighbours, so memory does not fragment into single
 * pages over time. A block of 2^k pages starting at frame f has its buddy
 * at f ^ 2^k; when both are free they merge into a block of 2^(k+1).
 *
 * Bookkeeping lives in a struct page array (one 16-byte descriptor per
 * frame, see <mm.h>), never in the free pages themselves: the free lists
 * link frame numbers through the descriptors. So the allocator never
 * touches memory it hands out, and it can manage memory that the boot page
 * tables do not map yet. The boot tables map only the first 1 GiB, so
 * pmm_init() frees only what lies below 1 GiB (the page-table pages that
 * paging_init() needs come from there); paging_init() calls
 * pmm_add_high_memory() once the direct map covers everything.
 *
 * What is never handed out: everything that is not MEM_USABLE in the boot
 * memory map, the first 1 MiB (BIOS data, ACPI tables, the AP trampoline
 * at 0x8000), the kernel image, the boot loader's information block, the
 * boot modules, and the descriptor array itself.
 *
 * One spinlock (irqsave) protects it all: page allocation is rare next to
 * kmalloc, whose per-CPU caches keep most traffic away from here.
 */
#include <kasan.h>
#include <mm.h>
#include <bootinfo.h>
#include <spinlock.h>
#include <string.h>
#include <printk.h>
#include <panic.h>

#define LOW_LIMIT	(1UL << 30)	/* what the boot tables map at PHYS_OFFSET */
#define NO_PFN		0xffffffffU

struct range {
	u64 start, end;			/* physical, end exclusive */
};

static struct page *pages;		/* descriptor of every frame below nr_pfn */
static unsigned long nr_pfn;
static u32 free_head[MAX_ORDER + 1];
static unsigned long nr_free_blocks[MAX_ORDER + 1];
/* Changed under pmm_lock, read without it (pmm_free_pages()): marked stores. */
static unsigned long free_count, total_count;
static DEFINE_SPINLOCK(pmm_lock);

static struct range excluded[BOOT_MODULES_MAX + 4];
static unsigned int nr_excluded;

/* ------------------------------------------------------------ free lists */

static void list_add(u32 pfn, unsigned int order)
{
	struct page *p = &pages[pfn];

	p->flags = PG_BUDDY;
	p->order = order;
	p->prev = NO_PFN;
	p->next = free_head[order];
	if (p->next != NO_PFN)
		pages[p->next].prev = pfn;
	free_head[order] = pfn;
	nr_free_blocks[order]++;
}

static void list_del(u32 pfn, unsigned int order)
{
	struct page *p = &pages[pfn];

	if (p->prev != NO_PFN)
		pages[p->prev].next = p->next;
	else
		free_head[order] = p->next;
	if (p->next != NO_PFN)
		pages[p->next].prev = p->prev;
	p->flags = 0;
	nr_free_blocks[order]--;
}

/* Free a block and merge it with its buddy as long as the buddy is free. */
static void free_block(u32 pfn, unsigned int order)
{
	while (order < MAX_ORDER) {
		u32 buddy = pfn ^ (1U << order);

		/*
		 * A buddy that is not free may be a kmalloc page, whose flags
		 * kmalloc sets without pmm_lock (WRITE_ONCE): marked here too.
		 * It can never read PG_BUDDY there, so the answer is the same.
		 */
		if (buddy >= nr_pfn || !(READ_ONCE(pages[buddy].flags) & PG_BUDDY) ||
		    pages[buddy].order != order)
			break;
		list_del(buddy, order);
		pfn &= ~(1U << order);
		order++;
	}
	list_add(pfn, order);
}

static u32 alloc_block(unsigned int order)
{
	unsigned int o = order;
	u32 pfn;

	while (o <= MAX_ORDER && free_head[o] == NO_PFN)
		o++;
	if (o > MAX_ORDER)
		return NO_PFN;
	pfn = free_head[o];
	list_del(pfn, o);
	/* Split: the upper half of each split goes back, one order lower. */
	while (o > order) {
		o--;
		list_add(pfn + (1U << o), o);
	}
	pages[pfn].order = order;
	return pfn;
}

/* ------------------------------------------------------------ public API */

phys_addr_t alloc_pages(unsigned int order)
{
	unsigned long flags;
	u32 pfn;

	if (order > MAX_ORDER)
		return 0;
	flags = spin_lock_irqsave(&pmm_lock);
	pfn = alloc_block(order);
	if (pfn != NO_PFN)
		WRITE_ONCE(free_count, free_count - (1UL << order));
	spin_unlock_irqrestore(&pmm_lock, flags);
	if (pfn == NO_PFN)
		return 0;
	kasan_alloc_pages((phys_addr_t)pfn << PAGE_SHIFT, order);
	return (phys_addr_t)pfn << PAGE_SHIFT;
}

void free_pages(phys_addr_t pa, unsigned int order)
{
	unsigned long pfn = pa >> PAGE_SHIFT, flags;
	struct page *p;

	if ((pa & ~PAGE_MASK) || order > MAX_ORDER || pfn >= nr_pfn ||
	    (pfn & ((1UL << order) - 1)))
		panic("free_pages(%#lx, %u): not a block this allocator hands out",
		      (unsigned long)pa, order);
	p = &pages[pfn];
	flags = spin_lock_irqsave(&pmm_lock);
	if (p->flags & (PG_BUDDY | PG_RESERVED)) {
		spin_unlock_irqrestore(&pmm_lock, flags);
		panic("free_pages(%#lx, %u): page is %s", (unsigned long)pa, order,
		      p->flags & PG_BUDDY ? "already free (double free)" : "reserved");
	}
	p->flags = 0;
	kasan_free_pages(pa, order);	/* a use of a freed page is reported */
	free_block(pfn, order);
	WRITE_ONCE(free_count, free_count + (1UL << order));
	spin_unlock_irqrestore(&pmm_lock, flags);
}

void *page_alloc_zeroed(void)
{
	phys_addr_t pa = alloc_pages(0);

	if (!pa)
		return NULL;
	return memset(phys_to_virt(pa), 0, PAGE_SIZE);
}

void page_free(void *va)
{
	if (va)
		free_pages(virt_to_phys(va), 0);
}

unsigned long pmm_free_pages(void)
{
	return READ_ONCE(free_count);
}

unsigned long pmm_total_pages(void)
{
	return READ_ONCE(total_count);
}

struct page *phys_to_page(phys_addr_t pa)
{
	unsigned long pfn = pa >> PAGE_SHIFT;

	return pfn < nr_pfn ? &pages[pfn] : NULL;
}

void pmm_show(void)
{
	char line[200];
	int n = 0;

	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		n += snprintf(line + n, sizeof(line) - n, " %lu", nr_free_blocks[o]);
	printk("pmm: %lu MiB managed, %lu MiB free; free blocks by order:%s\n",
	       total_count >> 8, free_count >> 8, line);
}

/* ------------------------------------------------------------ boot-time setup */

static void exclude(u64 start, u64 end)
{
	if (end <= start)
		return;
	if (nr_excluded == ARRAY_SIZE(excluded))
		panic("pmm: too many excluded ranges");
	excluded[nr_excluded++] = (struct range){ ALIGN_DOWN(start, PAGE_SIZE),
						  ALIGN_UP(end, PAGE_SIZE) };
}

/* First free spot of `size` bytes in usable RAM below LOW_LIMIT, 0 if none. */
static u64 find_spot(u64 size)
{
	for (unsigned int i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];
		u64 s = ALIGN_UP(m->base, PAGE_SIZE), end = m->base + m->len;
		bool moved = true;

		if (m->type != MEM_USABLE)
			continue;
		while (moved) {		/* step over excluded ranges until none overlaps */
			moved = false;
			for (unsigned int j = 0; j < nr_excluded; j++)
				if (s < excluded[j].end && s + size > excluded[j].start) {
					s = excluded[j].end;
					moved = true;
				}
		}
		if (s + size <= end && s + size <= LOW_LIMIT)
			return s;
	}
	return 0;
}

/* Free [s, e) in the largest aligned blocks that fit. */
static void release_run(u64 s, u64 e)
{
	unsigned long pfn = s >> PAGE_SHIFT, end = e >> PAGE_SHIFT;

	if (end > nr_pfn)
		end = nr_pfn;
	for (unsigned long i = pfn; i < end; i++)
		pages[i].flags = 0;	/* RAM now, no longer PG_RESERVED */
	while (pfn < end) {
		unsigned int order = 0;

		while (order < MAX_ORDER && !(pfn & ((2UL << order) - 1)) &&
		       pfn + (2UL << order) <= end)
			order++;
		free_block(pfn, order);
		WRITE_ONCE(free_count, free_count + (1UL << order));
		WRITE_ONCE(total_count, total_count + (1UL << order));
		pfn += 1UL << order;
	}
}

/* Free [s, e) minus excluded[idx..]: split around each excluded range. */
static void release_range(u64 s, u64 e, unsigned int idx)
{
	if (s >= e)
		return;
	if (idx == nr_excluded) {
		release_run(s, e);
		return;
	}
	if (e <= excluded[idx].start || s >= excluded[idx].end) {
		release_range(s, e, idx + 1);
		return;
	}
	release_range(s, excluded[idx].start, idx + 1);
	release_range(excluded[idx].end, e, idx + 1);
}

/* Give the allocator the usable RAM that lies within [lo, hi). */
static void release_usable(u64 lo, u64 hi)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (unsigned int i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];
		u64 s = ALIGN_UP(m->base, PAGE_SIZE);
		u64 e = ALIGN_DOWN(m->base + m->len, PAGE_SIZE);

		if (m->type != MEM_USABLE)
			continue;
		release_range(MAX(s, lo), MIN(e, hi), 0);
	}
	spin_unlock_irqrestore(&pmm_lock, flags);
}

static u64 highest_usable(void)
{
	u64 top = 0;

	for (unsigned int i = 0; i < boot_info.mmap_count; i++) {
		const struct boot_mmap_entry *m = &boot_info.mmap[i];

		if (m->type == MEM_USABLE && m->base + m->len > top)
			top = m->base + m->len;
	}
	return ALIGN_DOWN(top, PAGE_SIZE);
}

static void exclude_boot_data(void)
{
	exclude(0, 0x100000);
	exclude(virt_to_phys(_kernel_start), virt_to_phys(_kernel_end));
	exclude(boot_info.info_phys, boot_info.info_end);
	for (unsigned int i = 0; i < boot_info.module_count; i++)
		exclude(boot_info.modules[i].start, boot_info.modules[i].end);
}

/* Place the descriptor array; shrink what we manage if it cannot fit low. */
static void place_page_array(void)
{
	u64 size, at;

	nr_pfn = highest_usable() >> PAGE_SHIFT;
	for (;;) {
		size = ALIGN_UP(nr_pfn * sizeof(struct page), PAGE_SIZE);
		at = find_spot(size);
		if (at || nr_pfn <= (LOW_LIMIT >> PAGE_SHIFT))
			break;
		nr_pfn /= 2;
	}
	if (!at)
		panic("pmm: no room below 1 GiB for %lu page descriptors", nr_pfn);
	if (nr_pfn < highest_usable() >> PAGE_SHIFT)
		pr_warn("pmm: managing only the first %lu MiB of RAM\n", nr_pfn >> 8);
	exclude(at, at + size);
	pages = phys_to_virt(at);
}

void pmm_init(void)
{
	STATIC_ASSERT(sizeof(struct page) == 16);
	exclude_boot_data();
	place_page_array();
	for (unsigned long pfn = 0; pfn < nr_pfn; pfn++)
		pages[pfn] = (struct page){ .flags = PG_RESERVED };
	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		free_head[o] = NO_PFN;
	release_usable(0, LOW_LIMIT);
	printk("pmm: %lu page descriptors at %p, %lu MiB free below 1 GiB\n",
	       nr_pfn, pages, free_count >> 8);
}

#ifdef CONFIG_KASAN
/* KASAN's shadow is up: the pages free now are poisoned as later frees are. */
void pmm_kasan_poison_free(void)
{
	unsigned long flags = spin_lock_irqsave(&pmm_lock);

	for (unsigned int o = 0; o <= MAX_ORDER; o++)
		for (u32 pfn = free_head[o]; pfn != NO_PFN; pfn = pages[pfn].next)
			kasan_free_pages((phys_addr_t)pfn << PAGE_SHIFT, o);
	spin_unlock_irqrestore(&pmm_lock, flags);
}
#endif

void pmm_add_high_memory(void)
{
	release_usable(LOW_LIMIT, ~0UL);
	pmm_show();
}
