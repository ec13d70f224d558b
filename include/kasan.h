/*
 * KASAN, the kernel address sanitizer (kernel/kasan/, docs/kasan.md).
 *
 * GCC instruments every load and store of the kernel's C code with a call
 * that reads one shadow byte per 8 bytes of memory; the allocators below
 * say which bytes are in use by poisoning and unpoisoning that shadow.
 * Without CONFIG_KASAN every hook here is an empty inline function, so the
 * callers compile to what they were.
 */
#ifndef _KASAN_H
#define _KASAN_H

#include <types.h>
#include <compiler.h>

/* shadow(addr) = (addr >> 3) + KASAN_SHADOW_OFFSET: the kernel half's
 * shadow is [KASAN_SHADOW_START, KASAN_SHADOW_END), PML4 slots 472..503. */
#define KASAN_SHADOW_OFFSET	0xdffffc0000000000UL
#define KASAN_SHADOW_START	0xffffec0000000000UL
#define KASAN_SHADOW_END	0xfffffc0000000000UL
#define KASAN_GRANULE		8UL

/* Shadow values: 0 all 8 bytes usable, 1..7 the first n, negative none. */
#define KASAN_PAGE_FREE		0xff	/* a page the buddy allocator holds */
#define KASAN_SLOT_UNUSED	0xfe	/* a kmalloc slot never handed out */
#define KASAN_KMALLOC_FREE	0xfb	/* a freed kmalloc object (quarantined) */
#define KASAN_KMALLOC_REDZONE	0xfc	/* past the end of a kmalloc object */
#define KASAN_GLOBAL_REDZONE	0xf9	/* past the end of a global */
#define KASAN_STACK_LEFT	0xf1	/* GCC's stack redzones */
#define KASAN_STACK_MID		0xf2
#define KASAN_STACK_RIGHT	0xf3
#define KASAN_STACK_SCOPE	0xf8	/* a local used after its scope */

/* Bytes kmalloc adds to a request for the redzone behind the object. */
#define KASAN_KMALLOC_REDZONE_MIN	16

/*
 * What KASAN keeps per kmalloc object, in a side array kmalloc allocates
 * with the object's page (never inside the object or its redzone, which
 * a use after free or an overflow may have written). Stacks are handles
 * into the stack depot (kernel/kasan/stackdepot.c).
 */
struct kasan_obj_meta {
	u32 size;			/* bytes asked for; 0 while free */
	u32 alloc_stack, free_stack, rcu_stack;
	int alloc_pid, free_pid;
	u16 alloc_cpu, free_cpu;
	u8 state;			/* KASAN_OBJ_* */
	u8 queued_by;			/* KASAN_QUEUED_BY_*: which call queued its free */
	u8 _pad[2];
	u64 rcu_tsc;			/* when call_rcu() queued it (TSC) */
	unsigned long rcu_gp;		/* grace periods completed then */
	unsigned long free_gp;		/* ... and when it was freed */
	void *qnext;			/* the quarantine's FIFO */
};
#define KASAN_OBJ_FREE		0
#define KASAN_OBJ_LIVE		1
#define KASAN_OBJ_QUARANTINED	2

/* What kmalloc tells KASAN about the object holding an address. */
struct kmalloc_obj_info {
	void *obj;			/* start of the slot */
	size_t slot;			/* its size (class, or whole pages) */
	unsigned int class_size;	/* 0 for a page allocation */
	struct kasan_obj_meta *meta;
};
/* kernel/mm/kmalloc.c: false if addr is in no kmalloc page. */
bool kmalloc_find_object(const void *addr, struct kmalloc_obj_info *info);
/* kernel/mm/kmalloc.c: hand a quarantined object back for reuse. */
void kmalloc_free_now(void *obj);

/* Which call queued an object's free (kasan_record_queue()). */
enum { KASAN_QUEUED_BY_CALL_RCU = 1, KASAN_QUEUED_BY_CALL_SRCU, KASAN_QUEUED_BY_CALL_RCU_TASKS };

#ifdef CONFIG_KASAN

/* The runtime's own code: never instrumented, never reported on. */
#define __no_sanitize_address	__attribute__((no_sanitize_address))

/* Boot (kernel/core/main.c, kernel/mm/paging.c). */
void kasan_early_init(void);
void kasan_copy_early_shadow(u64 *pml4);
void kasan_init(void);
/* Run an image's or a module's constructors: GCC registers globals there. */
void kasan_run_ctors(void (**start)(void), void (**end)(void));
/* Map zeroed shadow for [start, end) (the module area, as it is mapped). */
int kasan_map_shadow(unsigned long start, unsigned long size);

void kasan_poison(const void *addr, size_t size, u8 value);
void kasan_unpoison(const void *addr, size_t size);
/* An explicit check of [addr, addr + size): uaccess, the string routines. */
void kasan_check_read(const void *addr, size_t size);
void kasan_check_write(const void *addr, size_t size);

/* The page allocator (kernel/mm/pmm.c). */
void kasan_alloc_pages(phys_addr_t pa, unsigned int order);
void kasan_free_pages(phys_addr_t pa, unsigned int order);

/* kmalloc (kernel/mm/kmalloc.c). */
static inline size_t kasan_kmalloc_size(size_t size) { return size + KASAN_KMALLOC_REDZONE_MIN; }
void kasan_slab_page(void *page, struct kasan_obj_meta *meta, unsigned int objs,
		     unsigned int size, bool skip_first);
void kasan_kmalloc(void *obj, size_t size, size_t slot, struct kasan_obj_meta *meta);
/* What kfree() does next: free it (KASAN is not up yet), nothing more (it
 * is quarantined), or nothing at all (a bad free, reported). */
enum { KASAN_FREE_NOW, KASAN_FREE_QUARANTINED, KASAN_FREE_BAD };
int kasan_kfree(const void *p, unsigned long caller);
void kasan_ksize(const void *obj, size_t slot);
/* Memory is short: give every quarantined object back. true if any was. */
bool kasan_quarantine_drain(void);

/*
 * The RCU layer (kernel/rcu/): head was queued for a callback (its free,
 * most often) by call_rcu(), call_srcu() or call_rcu_tasks(); a report on
 * the object names that call and its site, since each waits for its own
 * readers only.
 */
void kasan_record_queue(const void *head, int queued_by);

/* For tests: reports since boot, and the last one's kind. */
unsigned long kasan_report_count(void);
const char *kasan_last_report_kind(void);
bool kasan_object_freed(const void *p);
bool kasan_multi_shot(void);
bool kasan_enabled(void);

#else

#define __no_sanitize_address

static inline void kasan_early_init(void) {}
static inline void kasan_copy_early_shadow(u64 *pml4) {}
static inline void kasan_init(void) {}
static inline void kasan_run_ctors(void (**start)(void), void (**end)(void)) {}
static inline int kasan_map_shadow(unsigned long start, unsigned long size) { return 0; }
static inline void kasan_poison(const void *addr, size_t size, u8 value) {}
static inline void kasan_unpoison(const void *addr, size_t size) {}
static inline void kasan_check_read(const void *addr, size_t size) {}
static inline void kasan_check_write(const void *addr, size_t size) {}
static inline void kasan_alloc_pages(phys_addr_t pa, unsigned int order) {}
static inline void kasan_free_pages(phys_addr_t pa, unsigned int order) {}
static inline void kasan_record_queue(const void *head, int queued_by) {}
static inline bool kasan_enabled(void) { return false; }

#endif

#endif
