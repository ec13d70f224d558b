/*
 * kmalloc: size classes over the page allocator, with per-CPU caches.
 *
 * Classes are the powers of two from 16 to 4096 bytes; an object is
 * aligned to its class size (so a 4096-byte object is page aligned).
 * Larger requests take 2^order whole pages from the buddy allocator; the
 * first page's descriptor records PG_LARGE and the order.
 *
 * Three levels, from hot to cold (Bonwick's magazines, simplified):
 *   1. each CPU's cache: per class an array of up to MAG_SIZE free
 *      objects. kmalloc pops, kfree pushes. Only local interrupts are
 *      disabled around it (so an interrupt handler on this CPU cannot see
 *      it half-updated); no lock, no atomic instruction, no shared cache
 *      line. This is the path that must scale.
 *   2. a global pool per class, under a spinlock: a stack of free object
 *      pointers. An empty CPU cache takes MAG_BATCH objects from it at
 *      once, a full one gives MAG_BATCH back, so the lock is taken at most
 *      once per MAG_BATCH operations.
 *   3. the buddy allocator: an empty pool carves a fresh page into objects.
 *      Carved pages stay carved (no reclaim yet); kmalloc_get_stats()
 *      reports how many there are.
 * An object freed on another CPU simply joins that CPU's cache.
 *
 * Pointers are kept in arrays, never linked through the free objects, so
 * a free object holds nothing but poison: with CONFIG_DEBUG_KMALLOC_POISON,
 * kfree fills the whole object with POISON_FREE and kmalloc checks every
 * byte before handing it out; a mismatch is a write after free, reported
 * with the address, class, offset and bytes, then a panic. The debug
 * option also keeps one free bit per object (in the page descriptor, or at
 * the end of the page for the 16- and 32-byte classes): kfree of a free
 * object is a double free, and panics.
 */
#include <kmalloc.h>
#include <mm.h>
#include <percpu.h>
#include <spinlock.h>
#include <atomic.h>
#include <string.h>
#include <printk.h>
#include <panic.h>
#include <c2c_mark.h>
#include <kasan.h>
#include <kcsan.h>

/*
 * CONFIG_KASAN (docs/kasan.md): this file is built without instrumentation,
 * because it writes poison into, and checks, objects whose shadow says
 * "freed"; memset() would report those writes, __memset() does not. Each
 * request gets KASAN_KMALLOC_REDZONE_MIN bytes more, so that every object
 * has a redzone behind it within its slot, and the class (and so the
 * alignment) is the one of the larger size: the alignment promise holds,
 * the memory given way is up to twice the request. In classes with four
 * or more objects a page the first slot is never handed out, so that the
 * first object has a redzone before it too. Freed objects go through
 * KASAN's quarantine before they come back here (kmalloc_free_now()).
 */
#ifdef CONFIG_KASAN
#define memset __memset
#define KASAN_ON	1
#else
#define KASAN_ON	0
#endif

#define NR_CLASSES	KMALLOC_NR_CLASSES
#define MIN_SHIFT	4			/* 16 bytes */
#define MAG_SIZE	64			/* objects a CPU caches per class */
#define MAG_BATCH	32			/* moved to/from the pool at once */
#define POISON_WORD	0x6b6b6b6b6b6b6b6bUL

#ifdef CONFIG_DEBUG_KMALLOC_POISON
#define DEBUG_POISON	1
#else
#define DEBUG_POISON	0
#endif

struct cpu_cache {
	unsigned int n;
	void *obj[MAG_SIZE];
};

struct kmalloc_cpu {
	struct cpu_cache cache[NR_CLASSES];
	long objects, bytes;
	unsigned long allocs, frees, poison_errors;
};

static DEFINE_PER_CPU(struct kmalloc_cpu, kmalloc_cpu);

/* One page of free-object pointers; a pool is a stack of these. */
#define CHUNK_PTRS	((PAGE_SIZE - 16) / sizeof(void *))
struct ptr_chunk {
	struct ptr_chunk *next;
	unsigned long n;
	void *p[CHUNK_PTRS];
};

struct pool {
	spinlock_t lock;
	struct ptr_chunk *top;		/* chunk being filled/emptied */
	struct ptr_chunk *spare;	/* one empty chunk, against thrashing */
	unsigned long nfree;
	unsigned long pages;		/* pages carved for this class */
} __cacheline_aligned;

static struct pool pools[NR_CLASSES];
static unsigned int objs_per_page[NR_CLASSES];
static unsigned int freemap_off[NR_CLASSES];	/* 0: freemap in struct page */

static inline unsigned int class_size(unsigned int cls)
{
	return 1U << (cls + MIN_SHIFT);
}

static inline unsigned int size_to_class(size_t size)
{
	if (size <= KMALLOC_MIN_SIZE)
		return 0;
	return 64 - __builtin_clzl(size - 1) - MIN_SHIFT;
}

/* ------------------------------------------------------------ debug checks */

static unsigned long *obj_freemap(struct page *pg, const void *obj, unsigned int cls)
{
	if (!freemap_off[cls])
		return (unsigned long *)&pg->freemap;
	return (unsigned long *)(((unsigned long)obj & PAGE_MASK) + freemap_off[cls]);
}

static unsigned int obj_index(const void *obj, unsigned int cls)
{
	return ((unsigned long)obj & ~PAGE_MASK) >> (cls + MIN_SHIFT);
}

static __noinline __noreturn void poison_error(void *obj, unsigned int cls, unsigned int off)
{
	unsigned char *b = obj;
	unsigned int size = class_size(cls);
	char hex[16 * 3 + 1];
	int n = 0;

	this_cpu(kmalloc_cpu).poison_errors++;
	for (unsigned int i = off; i < size && i < off + 16; i++)
		n += snprintf(hex + n, sizeof(hex) - n, " %02x", b[i]);
	printk("kmalloc: poison overwritten in free object %p (class %u bytes): "
	       "first bad byte at offset %u:%s\n", obj, size, off, hex);
	panic("kmalloc: write after free at %p (object %p, class %u, offset %u)",
	      b + off, obj, size, off);
}

static void check_poison(void *obj, unsigned int cls)
{
	const u64 *w = obj;
	unsigned int words = class_size(cls) / 8;

	for (unsigned int i = 0; i < words; i++) {
		if (likely(w[i] == POISON_WORD))
			continue;
		for (unsigned int off = i * 8;; off++)
			if (((unsigned char *)obj)[off] != POISON_FREE)
				poison_error(obj, cls, off);
	}
}

/* An object leaves the free state: it must have been free, poison intact. */
static void debug_on_alloc(void *obj, unsigned int cls)
{
	struct page *pg = phys_to_page(virt_to_phys(obj));

	if (!test_and_clear_bit(obj_index(obj, cls), obj_freemap(pg, obj, cls)))
		panic("kmalloc: free object %p (class %u) was already in use: "
		      "allocator state corrupted", obj, class_size(cls));
	check_poison(obj, cls);
}

static void debug_on_free(void *obj, unsigned int cls)
{
	struct page *pg = phys_to_page(virt_to_phys(obj));

	if (test_and_set_bit(obj_index(obj, cls), obj_freemap(pg, obj, cls)))
		panic("kfree(%p): double free (object of class %u is already free)",
		      obj, class_size(cls));
	memset(obj, POISON_FREE, class_size(cls));
}

/* ------------------------------------------------------------ global pools */

static bool pool_push(struct pool *pl, void *obj)
{
	struct ptr_chunk *c = pl->top;

	if (!c || c->n == CHUNK_PTRS) {
		c = pl->spare;
		pl->spare = NULL;
		if (!c && !(c = page_alloc_zeroed()))
			return false;
		c->n = 0;
		c->next = pl->top;
		pl->top = c;
	}
	c->p[c->n++] = obj;
	/* Marked: kmalloc_show_stats() reads it without the pool's lock. */
	WRITE_ONCE(pl->nfree, pl->nfree + 1);
	return true;
}

static void *pool_pop(struct pool *pl)
{
	struct ptr_chunk *c;

	while ((c = pl->top) && c->n == 0) {
		pl->top = c->next;
		if (pl->spare)
			page_free(c);
		else
			pl->spare = c;
	}
	if (!c)
		return NULL;
	WRITE_ONCE(pl->nfree, pl->nfree - 1);
	return c->p[--c->n];
}

#ifdef CONFIG_KASAN
/* KASAN's records for a page's objects: a side array of 2^order pages. */
static unsigned int meta_order(unsigned int cls)
{
	size_t bytes = (size_t)objs_per_page[cls] * sizeof(struct kasan_obj_meta);
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}
#endif

/* Carve a fresh page into free (poisoned) objects of class cls. */
static bool pool_grow(struct pool *pl, unsigned int cls)
{
	phys_addr_t pa = alloc_pages(0);
	struct page *pg = phys_to_page(pa);
	char *va = phys_to_virt(pa);
	unsigned int n = objs_per_page[cls], size = class_size(cls);

	if (!pa)
		return false;
	WRITE_ONCE(pg->flags, PG_SLAB);
	pg->cls = cls;
	pg->freemap = 0;
#ifdef CONFIG_KASAN
	{
		phys_addr_t meta = alloc_pages(meta_order(cls));

		if (!meta) {
			WRITE_ONCE(pg->flags, 0);
			free_pages(pa, 0);
			return false;
		}
		pg->private = meta >> PAGE_SHIFT;
		kasan_slab_page(va, phys_to_virt(meta), n, size, n >= 4);
	}
#endif
	if (DEBUG_POISON) {
		memset(va, POISON_FREE, (size_t)n * size);
		if (freemap_off[cls])
			memset(va + freemap_off[cls], 0, PAGE_SIZE - freemap_off[cls]);
		for (unsigned int i = 0; i < n; i++)
			set_bit(i, obj_freemap(pg, va, cls));
	} else {
		/*
		 * Written whole all the same. The page may last have held a
		 * program's code, and QEMU's TCG sends every store to such a
		 * page through its slow path until the translated bytes are
		 * overwritten: objects written only in part would pay that for
		 * as long as the page stays carved, which is forever
		 * (docs/memory.md).
		 */
		memset(va, 0, PAGE_SIZE);
	}
	/* Highest address first, so that objects leave in address order. */
	for (unsigned int i = n; i-- > (KASAN_ON && n >= 4);)
		if (!pool_push(pl, va + (size_t)i * size))
			panic("kmalloc: out of memory for the class-%u pool", size);
	/* Marked: kmalloc_get_stats() (qs_stats()) reads it without the lock. */
	WRITE_ONCE(pl->pages, pl->pages + 1);
	return true;
}

/* An empty CPU cache takes a batch from the pool (interrupts are off). */
static bool cache_refill(struct cpu_cache *cc, unsigned int cls)
{
	struct pool *pl = &pools[cls];

	spin_lock(&pl->lock);
	while (cc->n < MAG_BATCH) {
		void *obj = pool_pop(pl);

		if (!obj) {
			if (!pool_grow(pl, cls))
				break;
			continue;
		}
		cc->obj[cc->n++] = obj;
	}
	spin_unlock(&pl->lock);
	return cc->n > 0;
}

/* A full CPU cache gives its coldest batch (the bottom) to the pool. */
static void cache_drain(struct cpu_cache *cc, unsigned int cls)
{
	struct pool *pl = &pools[cls];
	unsigned int i;

	spin_lock(&pl->lock);
	for (i = 0; i < MAG_BATCH; i++)
		if (!pool_push(pl, cc->obj[i]))
			break;
	spin_unlock(&pl->lock);
	if (!i)
		panic("kmalloc: out of memory for pool bookkeeping");
	memmove(cc->obj, cc->obj + i, (cc->n - i) * sizeof(void *));
	cc->n -= i;
}

/* ------------------------------------------------------------ statistics */

static void stat_add(long objects, long bytes)
{
	struct kmalloc_cpu *kc = this_cpu_ptr(&kmalloc_cpu);

	/*
	 * Only this CPU writes its counters, but kmalloc_get_stats() reads
	 * them from any CPU: marked stores, so that the reader sees each
	 * whole (never torn) and KCSAN sees an intended concurrent access.
	 */
	WRITE_ONCE(kc->objects, kc->objects + objects);
	WRITE_ONCE(kc->bytes, kc->bytes + bytes);
	if (objects > 0)
		WRITE_ONCE(kc->allocs, kc->allocs + 1);
	else
		WRITE_ONCE(kc->frees, kc->frees + 1);
}

void kmalloc_get_stats(struct kmalloc_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned int cpu = 0; cpu < CONFIG_NR_CPUS; cpu++) {
		const struct kmalloc_cpu *kc;

		if (!__per_cpu_offset[cpu])	/* no per-CPU area (yet) */
			continue;
		kc = per_cpu_ptr(&kmalloc_cpu, cpu);
		s->objects += READ_ONCE(kc->objects);
		s->bytes += READ_ONCE(kc->bytes);
		s->allocs += READ_ONCE(kc->allocs);
		s->frees += READ_ONCE(kc->frees);
		s->poison_errors += READ_ONCE(kc->poison_errors);
	}
	for (unsigned int c = 0; c < NR_CLASSES; c++)
		s->slab_pages += READ_ONCE(pools[c].pages);
}

void kmalloc_show_stats(void)
{
	struct kmalloc_stats s;
	char line[300];
	int n = 0;

	kmalloc_get_stats(&s);
	printk("kmalloc: %ld objects (%ld bytes) live; %lu allocs, %lu frees, "
	       "%lu poison errors, %lu slab pages\n", s.objects, s.bytes, s.allocs,
	       s.frees, s.poison_errors, s.slab_pages);
	for (unsigned int c = 0; c < NR_CLASSES; c++)
		n += snprintf(line + n, sizeof(line) - n, " %u:%lu/%lu", class_size(c),
			      READ_ONCE(pools[c].nfree), READ_ONCE(pools[c].pages));
	printk("kmalloc: pools (class:free objects/pages):%s\n", line);
}

/* ------------------------------------------------------------ large objects */

static void *kmalloc_large(size_t size)
{
	unsigned int order = 0;
	phys_addr_t pa;
	struct page *pg;
	unsigned long flags;

	while ((PAGE_SIZE << order) < size)
		if (++order > MAX_ORDER)
			return NULL;
	pa = alloc_pages(order);
	if (!pa)
		return NULL;
	pg = phys_to_page(pa);
	WRITE_ONCE(pg->flags, PG_LARGE);
	pg->order = order;
	pg->private = size;
#ifdef CONFIG_KASAN
	{
		phys_addr_t meta = alloc_pages(0);

		if (!meta) {
			WRITE_ONCE(pg->flags, 0);
			free_pages(pa, order);
			return NULL;
		}
		pg->freemap = meta;
		__memset(phys_to_virt(meta), 0, sizeof(struct kasan_obj_meta));
	}
#endif
	flags = local_irq_save();
	stat_add(1, PAGE_SIZE << order);
	local_irq_restore(flags);
	return phys_to_virt(pa);
}

static void kfree_large(void *p, struct page *pg)
{
	unsigned int order = pg->order;
	unsigned long flags;

	if ((unsigned long)p & ~PAGE_MASK)
		panic("kfree(%p): inside a %lu-byte allocation, not its start",
		      p, PAGE_SIZE << order);
	if (DEBUG_POISON)	/* catches use after free by readers, at least */
		memset(p, POISON_FREE, PAGE_SIZE << order);
#ifdef CONFIG_KASAN
	free_pages(pg->freemap, 0);
	pg->freemap = 0;
#endif
	WRITE_ONCE(pg->flags, 0);
	free_pages(virt_to_phys(p), order);
	if (KASAN_ON)
		return;		/* counted when it went into the quarantine */
	flags = local_irq_save();
	stat_add(-1, -(long)(PAGE_SIZE << order));
	local_irq_restore(flags);
}

/* ------------------------------------------------------------ the API */

static struct page *object_page(const void *p);

#ifdef CONFIG_KASAN
/* A freed object leaves the statistics when it enters the quarantine. */
static bool kasan_kfree_hook(const void *p, unsigned long caller)
{
	struct page *pg;
	size_t size;
	unsigned long flags;

	switch (kasan_kfree(p, caller)) {
	case KASAN_FREE_NOW:
		return false;
	case KASAN_FREE_BAD:
		return true;
	}
	pg = object_page(p);
	size = pg->flags & PG_LARGE ? PAGE_SIZE << pg->order : class_size(pg->cls);
	/* Poisoned now, as without KASAN, so that the checks that read the
	 * poison (rcutorture's, the stress tests') still see a reader's use
	 * after free; kmalloc checks it when the object comes back. */
	if (DEBUG_POISON)
		memset((void *)p, POISON_FREE, size);
	flags = local_irq_save();
	stat_add(-1, -(long)size);
	local_irq_restore(flags);
	return true;
}
#endif

/* The allocator proper; kmalloc() and kzalloc() below wrap it. */
static __always_inline void *__kmalloc(size_t size)
{
	unsigned int cls;
	unsigned long flags;
	struct kmalloc_cpu *kc;
	struct cpu_cache *cc;
	void *obj;

	if (unlikely(size > KMALLOC_MAX_CLASS))
		return kmalloc_large(size);
	cls = size_to_class(size);
	flags = local_irq_save();
	kc = this_cpu_ptr(&kmalloc_cpu);
	cc = &kc->cache[cls];
	if (unlikely(!cc->n) && !cache_refill(cc, cls)) {
		local_irq_restore(flags);
		return NULL;
	}
	obj = cc->obj[--cc->n];
	stat_add(1, class_size(cls));
	local_irq_restore(flags);
	if (DEBUG_POISON)
		debug_on_alloc(obj, cls);	/* the object is ours alone now */
	return obj;
}

/*
 * With KASAN: room for the redzone, and the quarantine drained when
 * memory runs out (what it holds is free memory really).
 */
#ifdef CONFIG_KASAN
static void *kmalloc_core(size_t size)
{
	struct kmalloc_obj_info info;
	void *obj;

	if (size > (PAGE_SIZE << MAX_ORDER) - KASAN_KMALLOC_REDZONE_MIN)
		return NULL;
	obj = __kmalloc(kasan_kmalloc_size(size));
	if (!obj && kasan_quarantine_drain())
		obj = __kmalloc(kasan_kmalloc_size(size));
	if (obj && kmalloc_find_object(obj, &info))
		kasan_kmalloc(obj, size, info.slot, info.meta);
	return obj;
}
#else
#define kmalloc_core(size)	__kmalloc(size)
#endif

/*
 * For the coherence report (make c2c): which code's object a heap line
 * is. The caller's return address names the allocation site; the extent
 * is the class's (what the object's lines span). No free mark: the
 * report takes the latest allocation that covers a line before its
 * first transfer, which a later reuse supersedes. Not inside a
 * benchmark's cell, whose counts the mark's formatting would swell.
 */
static __always_inline void *c2c_note(void *obj, size_t size, void *site)
{
	if (obj)
		c2c_mark_outside_cells("A %lx %lx %lx", (unsigned long)obj,
			 size > KMALLOC_MAX_CLASS ? size : (unsigned long)class_size(size_to_class(size)),
			 (unsigned long)site);
	return obj;
}

void *kmalloc(size_t size)
{
	void *p = c2c_note(kmalloc_core(size), size, __builtin_return_address(0));

	kcsan_alloc(p, size);	/* the caller's stores from here initialise it */
	return p;
}

void *kzalloc(size_t size)
{
	void *p = c2c_note(kmalloc_core(size), size, __builtin_return_address(0));

	if (p)
		memset(p, 0, size);
	kcsan_alloc(p, size);	/* after the zeroing: the caller's stores initialise it */
	return p;
}

/* The descriptor of a kmalloc'd object's page; panics on a foreign pointer. */
static struct page *object_page(const void *p)
{
	unsigned long a = (unsigned long)p;
	struct page *pg = NULL;

	if (a >= PHYS_OFFSET && a < IOREMAP_BASE)
		pg = phys_to_page(a - PHYS_OFFSET);
	if (!pg || !(pg->flags & (PG_SLAB | PG_LARGE)))
		panic("kfree(%p): not memory from kmalloc%s", p,
		      pg && (pg->flags & PG_BUDDY) ? " (its page is free: double free?)" : "");
	if ((pg->flags & PG_SLAB) &&
	    ((a & (class_size(pg->cls) - 1)) || obj_index(p, pg->cls) >= objs_per_page[pg->cls]))
		panic("kfree(%p): not the start of a %u-byte object", p, class_size(pg->cls));
	return pg;
}

#ifdef CONFIG_KASAN
static void __kfree(const void *p)
#else
void kfree(const void *p)
#endif
{
	void *obj = (void *)p;
	struct page *pg;
	unsigned int cls;
	unsigned long flags;
	struct cpu_cache *cc;

	if (!p)
		return;
	kcsan_free(p);		/* before the poisoning: those stores are not its initialisation */
	pg = object_page(p);
	if (pg->flags & PG_LARGE) {
		kfree_large(obj, pg);
		return;
	}
	cls = pg->cls;
	if (DEBUG_POISON)
		debug_on_free(obj, cls);	/* poison before anyone can reuse it */
	flags = local_irq_save();
	cc = &this_cpu_ptr(&kmalloc_cpu)->cache[cls];
	if (unlikely(cc->n == MAG_SIZE))
		cache_drain(cc, cls);
	cc->obj[cc->n++] = obj;
	if (!KASAN_ON)		/* else counted when it went into the quarantine */
		stat_add(-1, -(long)class_size(cls));
	local_irq_restore(flags);
}

#ifdef CONFIG_KASAN
void kfree(const void *p)
{
	if (!p)
		return;
	if (kasan_kfree_hook(p, (unsigned long)__builtin_return_address(0)))
		return;		/* quarantined, or a bad free reported */
	__kfree(p);
}

void kmalloc_free_now(void *obj)
{
	__kfree(obj);
}

/* The object (slot) holding addr, its class and KASAN's record of it. */
bool kmalloc_find_object(const void *addr, struct kmalloc_obj_info *info)
{
	unsigned long a = (unsigned long)addr, pfn;
	struct page *pg = NULL;

	if (a < PHYS_OFFSET || a >= IOREMAP_BASE)
		return false;
	pfn = (a - PHYS_OFFSET) >> PAGE_SHIFT;
	pg = phys_to_page(a - PHYS_OFFSET);
	if (!pg)
		return false;
	if (pg->flags & PG_SLAB) {
		unsigned int cls = pg->cls, size = class_size(cls);
		unsigned int i = obj_index(addr, cls);
		struct kasan_obj_meta *meta = phys_to_virt((phys_addr_t)pg->private << PAGE_SHIFT);

		if (i >= objs_per_page[cls])
			return false;
		info->obj = (void *)(a & ~((unsigned long)size - 1));
		info->slot = size;
		info->class_size = size;
		info->meta = pg->private ? &meta[i] : NULL;
		return true;
	}
	/* A page allocation: its first page's descriptor says so. */
	for (unsigned long back = 0; back < (1UL << MAX_ORDER) && back <= pfn; back++) {
		struct page *h = pg - back;

		if (!(h->flags & PG_LARGE)) {
			if (h->flags & (PG_SLAB | PG_BUDDY))
				return false;
			continue;
		}
		if (back >= (1UL << h->order))
			return false;
		info->obj = phys_to_virt((pfn - back) << PAGE_SHIFT);
		info->slot = PAGE_SIZE << h->order;
		info->class_size = 0;
		info->meta = h->freemap ? phys_to_virt(h->freemap) : NULL;
		return true;
	}
	return false;
}
#endif

size_t ksize(const void *p)
{
	struct page *pg;

	if (!p)
		return 0;
	pg = object_page(p);
#ifdef CONFIG_KASAN
	{
		size_t size = pg->flags & PG_LARGE ? PAGE_SIZE << pg->order : class_size(pg->cls);

		/* The caller may use the whole slot: its redzone goes. */
		kasan_ksize(p, size);
		return size;
	}
#endif
	if (pg->flags & PG_LARGE)
		return PAGE_SIZE << pg->order;
	return class_size(pg->cls);
}

/* Objects per page, and where the free bitmap goes when struct page is too small. */
static void setup_class(unsigned int cls)
{
	unsigned int size = class_size(cls), n = PAGE_SIZE / size;

	while (n > 64 && n * size + ALIGN_UP(n, 64) / 8 > PAGE_SIZE)
		n--;
	objs_per_page[cls] = n;
	freemap_off[cls] = n > 64 ? PAGE_SIZE - ALIGN_UP(n, 64) / 8 : 0;
	spin_lock_init(&pools[cls].lock, "kmalloc_pool");
}

void kmalloc_init(void)
{
	STATIC_ASSERT(sizeof(struct ptr_chunk) == PAGE_SIZE);
	for (unsigned int c = 0; c < NR_CLASSES; c++)
		setup_class(c);
	printk("kmalloc: classes 16..%u bytes, %u-object per-CPU caches, poisoning %s\n",
	       KMALLOC_MAX_CLASS, MAG_SIZE, DEBUG_POISON ? "on" : "off");
}
