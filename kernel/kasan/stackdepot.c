/*
 * A stack depot for KASAN: every allocation, free and call_rcu() records
 * where it came from, and the same few hundred call chains recur
 * millions of times, so each chain is stored once (hashed) and an object
 * keeps a 32-bit handle. The store is a fixed pool taken at boot: when it
 * is full, new chains are not kept (handle 0, printed as such).
 *
 * Not instrumented: called from KASAN's hooks inside kmalloc.
 */
#include <printk.h>
#include <panic.h>
#include <ksyms.h>
#include "kasan_internal.h"

#define DEPOT_ORDER	9			/* 2 MiB of records */
#define DEPOT_BUCKETS	4096

struct depot_rec {
	u32 next;				/* handle of the next in the bucket */
	u32 hash;
	u32 n;
	u32 _pad;
	unsigned long ip[KASAN_STACK_DEPTH];
};

static struct depot_rec *pool;
static u32 pool_size, pool_used;
static u32 buckets[DEPOT_BUCKETS];
static kasan_lock_t depot_lock;

void kasan_stackdepot_init(void)
{
	phys_addr_t pa = alloc_pages(DEPOT_ORDER);

	if (!pa)
		panic("kasan: no memory for the stack depot");
	pool = phys_to_virt(pa);
	pool_size = (PAGE_SIZE << DEPOT_ORDER) / sizeof(struct depot_rec);
}

unsigned long kasan_stackdepot_used(void)
{
	return READ_ONCE(pool_used);
}

static bool frame_ok(unsigned long fp, unsigned long lo, unsigned long hi)
{
	return fp >= lo && fp < hi && !(fp & 7);
}

/* A return address: the kernel's text or the module area. A range check,
 * not ksym_is_text()'s symbol search: this runs for every kmalloc(). */
static bool is_text(unsigned long a)
{
	return (a >= (unsigned long)_text_start && a < (unsigned long)_text_end) ||
	       (a >= MODULE_AREA_START && a < MODULE_AREA_END);
}

/* The frame-pointer chain (the kernel keeps frame pointers), bounded to
 * the 64 KiB above the first frame, going up only. */
static unsigned int walk(unsigned long *ips, unsigned int skip)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0);
	unsigned long lo = fp, hi = fp + 65536;
	unsigned int n = 0;

	while (n < KASAN_STACK_DEPTH && frame_ok(fp, lo, hi)) {
		unsigned long *frame = (unsigned long *)fp;
		unsigned long ret = frame[1];

		if (!is_text(ret))
			break;
		if (skip)
			skip--;
		else
			ips[n++] = ret;
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

u32 kasan_save_stack(unsigned int skip)
{
	unsigned long ips[KASAN_STACK_DEPTH];
	unsigned int n = walk(ips, skip + 1), b;
	u32 hash = 2166136261u, h, ret = 0;
	unsigned long flags;

	if (!pool || !n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		hash = (hash ^ (u32)ips[i]) * 16777619u;
	b = hash % DEPOT_BUCKETS;
	flags = kasan_lock(&depot_lock);
	for (h = buckets[b]; h; h = pool[h - 1].next) {
		struct depot_rec *r = &pool[h - 1];

		if (r->hash == hash && r->n == n && !__builtin_memcmp(r->ip, ips, n * sizeof(long))) {
			ret = h;
			break;
		}
	}
	if (!ret && pool_used < pool_size) {
		struct depot_rec *r = &pool[pool_used++];

		r->hash = hash;
		r->n = n;
		for (unsigned int i = 0; i < n; i++)
			r->ip[i] = ips[i];
		r->next = buckets[b];
		ret = pool_used;
		buckets[b] = ret;
	}
	kasan_unlock(&depot_lock, flags);
	return ret;
}

unsigned int kasan_fetch_stack(u32 handle, unsigned long *ips)
{
	const struct depot_rec *r;

	if (!handle || handle > READ_ONCE(pool_used))
		return 0;
	r = &pool[handle - 1];
	for (unsigned int i = 0; i < r->n; i++)
		ips[i] = r->ip[i];
	return r->n;
}

/* As traps.c prints a Call Trace, so that tools/symbolize.py reads both. */
void kasan_print_stack(u32 handle)
{
	unsigned long ips[KASAN_STACK_DEPTH];
	unsigned int n = kasan_fetch_stack(handle, ips);

	if (!n)
		printk("  (no stack recorded)\n");
	for (unsigned int i = 0; i < n; i++)
		printk("  [<%016lx>] %pS\n", ips[i], (void *)(ips[i] - 1));
}

/*
 * The access's Call Trace: this CPU's frames from the instrumented
 * function's (whose call to the check returns to ip) upwards, without
 * the runtime's own frames above it.
 */
void kasan_print_trace_from(unsigned long ip)
{
	unsigned long ips[KASAN_STACK_DEPTH];
	unsigned int n = walk(ips, 0), i = 0;

	while (i < n && ips[i] != ip)
		i++;
	printk("Call Trace:\n");
	if (i == n) {
		printk("  [<%016lx>] %pS\n", ip, (void *)(ip - 1));
		i = 0;
	}
	for (; i < n; i++)
		printk("  [<%016lx>] %pS\n", ips[i], (void *)(ips[i] - 1));
}
