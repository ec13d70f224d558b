/*
 * KASAN's runtime: the checks GCC's -fsanitize=kernel-address calls
 * (__asan_load8_noabort and friends), the shadow's poisoning for the
 * allocators, the quarantine, the globals' registration, the RCU hook
 * and the reports (docs/kasan.md).
 *
 * Not instrumented (the top Makefile's KASAN_SANITIZE_NOT): every check
 * lands here, and a check of the checker's own accesses would recurse.
 * Nothing here may call code that allocates.
 */
#include <kasan.h>
#include <kmalloc.h>
#include <mm.h>
#include <printk.h>
#include <panic.h>
#include <percpu.h>
#include <preempt.h>
#include <sched.h>
#include <smp.h>
#include <cmdline.h>
#include <ksyms.h>
#include <rcupdate.h>
#include <export.h>
#include <arch/cpu.h>
#include "kasan_internal.h"

static bool kasan_ready;
static bool multi_shot;
static bool panic_on_report;
static unsigned long report_count;
static const char *last_kind = "";

static int set_multi_shot(const char *val)
{
	multi_shot = !val || val[0] != '0';
	return 0;
}
CMDLINE_PARAM("kasan.multi_shot", set_multi_shot,
	      "kasan.multi_shot=1: print every KASAN report, not only the first from each place");

static int set_panic(const char *val)
{
	panic_on_report = !val || val[0] != '0';
	return 0;
}
CMDLINE_PARAM("kasan.panic", set_panic, "kasan.panic=1: panic after the first KASAN report");

bool kasan_multi_shot(void)
{
	return READ_ONCE(multi_shot);
}

bool kasan_enabled(void)
{
	return READ_ONCE(kasan_ready);
}

unsigned long kasan_report_count(void)
{
	return READ_ONCE(report_count);
}

const char *kasan_last_report_kind(void)
{
	return READ_ONCE(last_kind);
}

/* ------------------------------------------------------------ poisoning */

static bool has_shadow(unsigned long a)
{
	return a >= PHYS_OFFSET && (a < KASAN_SHADOW_START || a >= KASAN_SHADOW_END);
}

void kasan_poison(const void *addr, size_t size, u8 value)
{
	unsigned long a = (unsigned long)addr;

	if (!kasan_ready || !size || !has_shadow(a))
		return;
	/* Whole granules only: the start is granule-aligned by every caller. */
	__memset(kasan_mem_to_shadow(a), value, ALIGN_UP(size, KASAN_GRANULE) / KASAN_GRANULE);
}

void kasan_unpoison(const void *addr, size_t size)
{
	unsigned long a = (unsigned long)addr;
	u8 *s;

	if (!kasan_ready || !size || !has_shadow(a))
		return;
	s = kasan_mem_to_shadow(a);
	__memset(s, 0, size / KASAN_GRANULE);
	if (size & (KASAN_GRANULE - 1))
		s[size / KASAN_GRANULE] = size & (KASAN_GRANULE - 1);
}

/* ------------------------------------------------------------ checks */

struct access {
	unsigned long addr, bad;
	size_t size;
	bool write;
	unsigned long ip;
};

static void report(const struct access *a, const char *kind_override, const void *free_ptr);

/* The first bad byte of [a, a + size), or 0. */
static unsigned long first_bad(unsigned long a, size_t size)
{
	for (unsigned long p = a; p < a + size;) {
		s8 v = *(s8 *)kasan_mem_to_shadow(p);
		unsigned long g = p & ~(KASAN_GRANULE - 1);

		if (v == 0) {
			p = g + KASAN_GRANULE;
			continue;
		}
		if (v < 0 || (long)(p - g) >= v)
			return p;
		p++;
	}
	return 0;
}

static __always_inline bool in_report(void);

static __always_inline void check(unsigned long a, size_t size, bool write, unsigned long ip)
{
	if (unlikely(!kasan_ready) || !has_shadow(a) || !size)
		return;
	/* The common case, one granule, all of it usable. */
	if (likely(size <= 8 && ((a & 7) + size) <= 8)) {
		s8 v = *(s8 *)kasan_mem_to_shadow(a);

		if (likely(v == 0 || (v > 0 && (long)((a & 7) + size) <= v)))
			return;
	}
	unsigned long bad = first_bad(a, size);
	if (!bad || in_report())
		return;
	struct access acc = { .addr = a, .bad = bad, .size = size, .write = write, .ip = ip };
	report(&acc, NULL, NULL);
}

#define RET_IP	((unsigned long)__builtin_return_address(0))

/* Exported: a module is instrumented as the kernel is (docs/modules.md). */
#define DEFINE_ASAN(n)								\
	void __asan_load##n##_noabort(unsigned long a);				\
	void __asan_load##n##_noabort(unsigned long a) { check(a, n, false, RET_IP); } \
	EXPORT_SYMBOL(__asan_load##n##_noabort);				\
	void __asan_store##n##_noabort(unsigned long a);			\
	void __asan_store##n##_noabort(unsigned long a) { check(a, n, true, RET_IP); } \
	EXPORT_SYMBOL(__asan_store##n##_noabort);				\
	void __asan_load##n(unsigned long a);					\
	void __asan_load##n(unsigned long a) { check(a, n, false, RET_IP); }	\
	void __asan_store##n(unsigned long a);					\
	void __asan_store##n(unsigned long a) { check(a, n, true, RET_IP); }
DEFINE_ASAN(1)
DEFINE_ASAN(2)
DEFINE_ASAN(4)
DEFINE_ASAN(8)
DEFINE_ASAN(16)

void __asan_loadN_noabort(unsigned long a, size_t n);
void __asan_loadN_noabort(unsigned long a, size_t n) { check(a, n, false, RET_IP); }
void __asan_storeN_noabort(unsigned long a, size_t n);
void __asan_storeN_noabort(unsigned long a, size_t n) { check(a, n, true, RET_IP); }
EXPORT_SYMBOL(__asan_loadN_noabort);
EXPORT_SYMBOL(__asan_storeN_noabort);
void __asan_loadN(unsigned long a, size_t n);
void __asan_loadN(unsigned long a, size_t n) { check(a, n, false, RET_IP); }
void __asan_storeN(unsigned long a, size_t n);
void __asan_storeN(unsigned long a, size_t n) { check(a, n, true, RET_IP); }

/*
 * Before a call that does not return (panic(), a thread's exit): the
 * frames it abandons keep their redzones poisoned. Nothing to do: a
 * task's stack is unpoisoned whole when the page allocator hands it out
 * again, and the boot stack's abandoned frames are never reused.
 */
void __asan_handle_no_return(void);
void __asan_handle_no_return(void) {}
EXPORT_SYMBOL(__asan_handle_no_return);

/* Variable-length arrays (alloca): GCC poisons around them itself and
 * asks for the region to be cleared when the frame's VLAs go. */
void __asan_alloca_poison(unsigned long addr, size_t size);
void __asan_alloca_poison(unsigned long addr, size_t size)
{
	unsigned long rz = 32;

	kasan_unpoison((void *)addr, size);
	kasan_poison((void *)(addr - rz), rz, KASAN_STACK_LEFT);
	kasan_poison((void *)ALIGN_UP(addr + size, KASAN_GRANULE),
		     ALIGN_UP(addr + size, rz) - ALIGN_UP(addr + size, KASAN_GRANULE) + rz,
		     KASAN_STACK_RIGHT);
}

void __asan_allocas_unpoison(unsigned long top, unsigned long bottom);
void __asan_allocas_unpoison(unsigned long top, unsigned long bottom)
{
	if (bottom > top)
		__memset(kasan_mem_to_shadow(top), 0, (bottom - top) / KASAN_GRANULE);
}
EXPORT_SYMBOL(__asan_alloca_poison);
EXPORT_SYMBOL(__asan_allocas_unpoison);

void kasan_check_read(const void *p, size_t size)
{
	check((unsigned long)p, size, false, RET_IP);
}

void kasan_check_write(const void *p, size_t size)
{
	check((unsigned long)p, size, true, RET_IP);
}

/* ------------------------------------------------------------ globals */

/* GCC's description of one instrumented global (its ABI, version 8). */
struct asan_global {
	const void *beg;
	size_t size;
	size_t size_with_redzone;
	const char *name;
	const char *module_name;
	unsigned long has_dynamic_init;
	void *location;
	unsigned long odr_indicator;
};

/* The image's descriptor arrays, for naming a global in a report. */
#define MAX_GLOBAL_ARRAYS	1024
static struct { const struct asan_global *g; size_t n; } global_arrays[MAX_GLOBAL_ARRAYS];
static unsigned int nr_global_arrays;

void __asan_register_globals(struct asan_global *g, size_t n);
void __asan_register_globals(struct asan_global *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long beg = (unsigned long)g[i].beg;
		unsigned long end = ALIGN_UP(beg + g[i].size, KASAN_GRANULE);

		kasan_unpoison(g[i].beg, g[i].size);
		kasan_poison((void *)end, beg + g[i].size_with_redzone - end, KASAN_GLOBAL_REDZONE);
	}
	if ((unsigned long)g >= KERNEL_VBASE && nr_global_arrays < MAX_GLOBAL_ARRAYS) {
		global_arrays[nr_global_arrays].g = g;
		global_arrays[nr_global_arrays].n = n;
		nr_global_arrays++;
	}
}

void __asan_unregister_globals(struct asan_global *g, size_t n);
void __asan_unregister_globals(struct asan_global *g, size_t n) {}
EXPORT_SYMBOL(__asan_register_globals);
EXPORT_SYMBOL(__asan_unregister_globals);

void kasan_run_ctors(void (**start)(void), void (**end)(void))
{
	for (void (**f)(void) = start; f < end; f++)
		(*f)();
}

static const struct asan_global *find_global(unsigned long a)
{
	for (unsigned int i = 0; i < nr_global_arrays; i++)
		for (size_t j = 0; j < global_arrays[i].n; j++) {
			const struct asan_global *g = &global_arrays[i].g[j];
			unsigned long b = (unsigned long)g->beg;

			if (a >= b && a < b + g->size_with_redzone)
				return g;
		}
	return NULL;
}

/* ------------------------------------------------------------ pages */

void kasan_alloc_pages(phys_addr_t pa, unsigned int order)
{
	kasan_unpoison(phys_to_virt(pa), PAGE_SIZE << order);
}

void kasan_free_pages(phys_addr_t pa, unsigned int order)
{
	kasan_poison(phys_to_virt(pa), PAGE_SIZE << order, KASAN_PAGE_FREE);
}

/* ------------------------------------------------------------ kmalloc */

static int task_pid(void)
{
	struct task *t = current;

	return t ? t->pid : -1;
}

static const char *task_name(void)
{
	struct task *t = current;

	return t ? t->name : "?";
}

void kasan_slab_page(void *page, struct kasan_obj_meta *meta, unsigned int objs,
		     unsigned int size, bool skip_first)
{
	kasan_poison(page, PAGE_SIZE, KASAN_SLOT_UNUSED);
	__memset(meta, 0, objs * sizeof(*meta));
}

void kasan_kmalloc(void *obj, size_t size, size_t slot, struct kasan_obj_meta *meta)
{
	kasan_unpoison(obj, size);
	kasan_poison((void *)ALIGN_UP((unsigned long)obj + size, KASAN_GRANULE),
		     (unsigned long)obj + slot - ALIGN_UP((unsigned long)obj + size, KASAN_GRANULE),
		     KASAN_KMALLOC_REDZONE);
	if (!meta)
		return;
	meta->size = size;
	meta->alloc_stack = kasan_save_stack(1);
	meta->alloc_pid = task_pid();
	meta->alloc_cpu = smp_processor_id();
	meta->free_stack = meta->rcu_stack = 0;
	meta->queued_by = 0;
	meta->free_pid = 0;
	meta->rcu_tsc = 0;
	meta->state = KASAN_OBJ_LIVE;
}

void kasan_ksize(const void *obj, size_t slot)
{
	struct kmalloc_obj_info info;

	/* The caller may use the whole slot: it has no redzone any more. */
	kasan_unpoison(obj, slot);
	if (kmalloc_find_object(obj, &info) && info.meta)
		info.meta->size = slot;
}

/*
 * The quarantine: freed objects wait here, poisoned, before kmalloc may
 * hand them out again, so that a use after free finds them poisoned
 * rather than reused. A FIFO bounded in bytes (1/32 of RAM); the oldest
 * go back to kmalloc when it is over, and all of them when memory is
 * short (kmalloc asks, kasan_quarantine_drain()).
 */
static kasan_lock_t q_lock;
static void *q_head, *q_tail;
static struct kasan_obj_meta *q_tail_meta;	/* q_tail's record */
static unsigned long q_bytes, q_max;

static struct kasan_obj_meta *meta_of(void *obj)
{
	struct kmalloc_obj_info info;

	return kmalloc_find_object(obj, &info) ? info.meta : NULL;
}

/* Take objects from the head until the queue holds at most `keep` bytes. */
static void *q_take(unsigned long keep)
{
	void *list = NULL, **tail = &list;

	while (q_head && q_bytes > keep) {
		void *obj = q_head;
		struct kmalloc_obj_info info;
		struct kasan_obj_meta *m;

		kmalloc_find_object(obj, &info);
		m = info.meta;
		q_head = m->qnext;
		if (!q_head)
			q_tail = NULL;
		q_bytes -= info.slot;
		m->qnext = NULL;
		*tail = obj;
		tail = &m->qnext;
	}
	return list;
}

static void q_release(void *list)
{
	while (list) {
		struct kasan_obj_meta *m = meta_of(list);
		void *next = m->qnext;

		m->qnext = NULL;
		m->state = KASAN_OBJ_FREE;
		kmalloc_free_now(list);
		list = next;
	}
}

bool kasan_quarantine_drain(void)
{
	unsigned long flags = kasan_lock(&q_lock);
	void *list = q_take(0);

	kasan_unlock(&q_lock, flags);
	q_release(list);
	return list != NULL;
}

static void bad_free(const void *p, const char *kind, unsigned long ip)
{
	struct access acc = { .addr = (unsigned long)p, .bad = (unsigned long)p, .ip = ip };

	report(&acc, kind, p);
}

int kasan_kfree(const void *p, unsigned long ip)
{
	struct kmalloc_obj_info info;
	struct kasan_obj_meta *m;
	unsigned long flags;
	void *list;

	if (!kasan_ready)
		return KASAN_FREE_NOW;
	if (!kmalloc_find_object(p, &info) || info.obj != p || !info.meta) {
		bad_free(p, "invalid-free", ip);
		return KASAN_FREE_BAD;
	}
	m = info.meta;
	if (m->state != KASAN_OBJ_LIVE) {
		bad_free(p, "double-free", ip);
		return KASAN_FREE_BAD;
	}
	m->free_stack = kasan_save_stack(1);
	m->free_pid = task_pid();
	m->free_cpu = smp_processor_id();
	m->free_gp = rcu_gp_completed();
	m->state = KASAN_OBJ_QUARANTINED;
	kasan_poison(p, info.slot, KASAN_KMALLOC_FREE);

	flags = kasan_lock(&q_lock);
	m->qnext = NULL;
	if (q_tail)
		q_tail_meta->qnext = (void *)p;
	else
		q_head = (void *)p;
	q_tail = (void *)p;
	q_tail_meta = m;
	q_bytes += info.slot;
	list = q_bytes > q_max ? q_take(q_max - q_max / 4) : NULL;
	kasan_unlock(&q_lock, flags);
	q_release(list);
	return KASAN_FREE_QUARANTINED;
}

bool kasan_object_freed(const void *p)
{
	struct kmalloc_obj_info info;

	return kmalloc_find_object(p, &info) && info.meta &&
	       READ_ONCE(info.meta->state) != KASAN_OBJ_LIVE;
}

/* ------------------------------------------------------------ RCU */

void kasan_record_queue(const void *head, int queued_by)
{
	struct kmalloc_obj_info info;

	if (!kasan_ready || !kmalloc_find_object(head, &info) || !info.meta)
		return;
	if (info.meta->state != KASAN_OBJ_LIVE)
		return;		/* a queued head in freed memory is reported by the access */
	info.meta->rcu_stack = kasan_save_stack(1);
	info.meta->rcu_tsc = rdtsc();
	info.meta->rcu_gp = rcu_gp_completed();
	info.meta->queued_by = queued_by;
}

/* ------------------------------------------------------------ reports */

static DEFINE_PER_CPU(int, kasan_in_report);
static kasan_lock_t report_lock;

#define MAX_SITES	128
static unsigned long reported_sites[MAX_SITES];
static unsigned int nr_sites;

static __always_inline bool in_report(void)
{
	return this_cpu(kasan_in_report) != 0;
}

static bool site_seen(unsigned long ip)
{
	for (unsigned int i = 0; i < nr_sites; i++)
		if (reported_sites[i] == ip)
			return true;
	if (nr_sites < MAX_SITES)
		reported_sites[nr_sites++] = ip;
	return false;
}

static const char *shadow_kind(u8 v)
{
	switch (v) {
	case KASAN_PAGE_FREE:		return "use-after-free";
	case KASAN_KMALLOC_FREE:	return "use-after-free";
	case KASAN_KMALLOC_REDZONE:	return "slab-out-of-bounds";
	case KASAN_SLOT_UNUSED:		return "slab-out-of-bounds";
	case KASAN_GLOBAL_REDZONE:	return "global-out-of-bounds";
	case KASAN_STACK_LEFT:
	case KASAN_STACK_MID:
	case KASAN_STACK_RIGHT:		return "stack-out-of-bounds";
	case KASAN_STACK_SCOPE:		return "stack-use-after-scope";
	default:			return v < KASAN_GRANULE ? "slab-out-of-bounds" : "wild-memory-access";
	}
}

/* The first non-RCU caller in a call_rcu() stack: the user's queueing site. */
static unsigned long rcu_site(u32 handle)
{
	unsigned long ips[KASAN_STACK_DEPTH];
	unsigned int n = kasan_fetch_stack(handle, ips);

	for (unsigned int i = 0; i < n; i++) {
		const char *name = ksym_lookup(ips[i], NULL, NULL);

		if (!name || (strcmp(name, "call_rcu") && strcmp(name, "__kfree_rcu") &&
			      strcmp(name, "call_rcu_rt") && strcmp(name, "rcu_prove_queue") &&
			      strcmp(name, "call_srcu") && strcmp(name, "call_rcu_tasks")))
			return ips[i];
	}
	return n ? ips[n - 1] : 0;
}

static void print_task(const char *what, int pid, unsigned int cpu)
{
	printk("%s by task %d on CPU %u:\n", what, pid, cpu);
}

/* The call that queued the free, as the report names it. */
static const char *queued_by_name(const struct kasan_obj_meta *m)
{
	switch (m->queued_by) {
	case KASAN_QUEUED_BY_CALL_SRCU:		return "call_srcu()";
	case KASAN_QUEUED_BY_CALL_RCU_TASKS:	return "call_rcu_tasks()";
	default:				return "call_rcu()";
	}
}

/*
 * Which reader the free did not wait for. Only RCU's read-side sections
 * are tracked per task (rcu_read_depth()); SRCU's and Tasks RCU's
 * callbacks wait for their own readers, which the verdict can name but
 * not see.
 */
static void rcu_verdict(const struct kasan_obj_meta *m)
{
	if (m->queued_by == KASAN_QUEUED_BY_CALL_SRCU) {
		printk("RCU: call_srcu() waits only for srcu_read_lock() sections of its own "
		       "srcu_struct: the access was in none of them (a user bug), or in one that "
		       "began after the object was unpublished (an updater-order bug)\n");
		return;
	}
	if (m->queued_by == KASAN_QUEUED_BY_CALL_RCU_TASKS) {
		printk("RCU: call_rcu_tasks() waits only for every task to pass a voluntary "
		       "switch or user mode: the access kept the pointer across one (a user bug), "
		       "or the object was not unpublished first (an updater-order bug)\n");
		return;
	}
	int depth = rcu_read_depth();
	u64 since = rcu_read_section_start();

	if (depth <= 0)
		printk("RCU: the access is outside any read-side critical section: a pointer kept past "
		       "rcu_read_unlock() (a user bug)\n");
	else if (since < m->rcu_tsc)
		printk("RCU: the access is inside a read-side critical section that began before "
		       "call_rcu() queued the free: a grace period ended too early (an RCU bug)\n");
	else
		printk("RCU: the access is inside a read-side critical section that began after "
		       "call_rcu() queued the free, yet found the object: it was not unpublished "
		       "before call_rcu() (an updater-order bug)\n");
}

static void print_object(const struct access *a, unsigned long obj_addr, bool freeing)
{
	struct kmalloc_obj_info info;
	const struct asan_global *g;
	const struct kasan_obj_meta *m;
	long off;

	if (!kmalloc_find_object((void *)obj_addr, &info)) {
		if ((g = find_global(a->bad)))
			printk("The buggy address belongs to the variable %s of size %lu at %p "
			       "(%s), %ld bytes from its start\n", g->name, g->size, g->beg,
			       g->module_name, (long)(a->bad - (unsigned long)g->beg));
		else if (a->bad >= PHYS_OFFSET && a->bad < KASAN_SHADOW_START &&
			 *kasan_mem_to_shadow(a->bad) == KASAN_PAGE_FREE)
			printk("The buggy address is in a free page at %p\n",
			       (void *)ALIGN_DOWN(a->bad, PAGE_SIZE));
		return;
	}
	m = info.meta;
	if (m && m->state != KASAN_OBJ_FREE) {
		print_task("Allocated", m->alloc_pid, m->alloc_cpu);
		kasan_print_stack(m->alloc_stack);
	}
	if (m && m->state == KASAN_OBJ_QUARANTINED) {
		if (m->rcu_stack) {
			unsigned long site = rcu_site(m->rcu_stack);

			printk("Freed by task %d on CPU %u after grace period %lu, by an RCU callback:\n",
			       m->free_pid, m->free_cpu, m->free_gp);
			kasan_print_stack(m->free_stack);
			if (m->queued_by == KASAN_QUEUED_BY_CALL_RCU)
				printk("call_rcu() queued it at [<%016lx>] %pS, %lu grace periods "
				       "earlier:\n", site, (void *)(site - 1), m->free_gp - m->rcu_gp);
			else
				printk("%s queued it at [<%016lx>] %pS:\n", queued_by_name(m), site,
				       (void *)(site - 1));
			kasan_print_stack(m->rcu_stack);
			if (!freeing)
				rcu_verdict(m);
		} else {
			print_task("Freed", m->free_pid, m->free_cpu);
			kasan_print_stack(m->free_stack);
		}
	}
	off = a->bad - (unsigned long)info.obj;
	if (info.class_size)
		printk("The buggy address belongs to the object at %p which belongs to the cache "
		       "kmalloc-%u of size %u\n", info.obj, info.class_size, info.class_size);
	else
		printk("The buggy address belongs to the object at %p, %lu whole pages\n",
		       info.obj, info.slot / PAGE_SIZE);
	if (off < 0)
		printk("The buggy address is located %ld bytes to the left of the %u-byte region "
		       "[%p, %p)\n", -off, m ? m->size : 0, info.obj, (char *)info.obj + (m ? m->size : 0));
	else if (m && m->size && (unsigned long)off >= m->size)
		printk("The buggy address is located %lu bytes to the right of the %u-byte region "
		       "[%p, %p)\n", off - m->size, m->size, info.obj, (char *)info.obj + m->size);
	else
		printk("The buggy address is located %ld bytes inside the %u-byte region [%p, %p)\n",
		       off, m ? m->size : 0, info.obj, (char *)info.obj + (m ? m->size : 0));
}

/*
 * An access in a slot's tail just before a live object reads best as an
 * underflow of that object: the address of its start, or 0.
 */
static unsigned long left_of_next(unsigned long bad)
{
	struct kmalloc_obj_info here, next;
	unsigned long n;

	if (!kmalloc_find_object((void *)bad, &here) || !here.class_size)
		return 0;
	n = (unsigned long)here.obj + here.slot;
	if (n - bad > KASAN_KMALLOC_REDZONE_MIN || !kmalloc_find_object((void *)n, &next) ||
	    !next.meta || next.meta->state != KASAN_OBJ_LIVE || next.obj != (void *)n)
		return 0;
	if (here.meta && here.meta->state == KASAN_OBJ_LIVE && bad - (unsigned long)here.obj <
	    here.meta->size + KASAN_KMALLOC_REDZONE_MIN)
		return 0;	/* closer to the end of this one */
	return n;
}

static void print_shadow(unsigned long a)
{
	unsigned long row = ALIGN_DOWN(a, 16 * KASAN_GRANULE);

	printk("Memory state around the buggy address:\n");
	for (long r = -2; r <= 2; r++) {
		unsigned long base = row + r * 16 * KASAN_GRANULE;
		const u8 *s = kasan_mem_to_shadow(base);
		char line[16 * 3 + 1];
		int n = 0;

		for (int i = 0; i < 16; i++)
			n += snprintf(line + n, sizeof(line) - n, " %02x", s[i]);
		printk("%c%016lx:%s\n", r ? ' ' : '>', base, line);
		if (!r)
			printk("%*s^\n", (int)(18 + 3 * ((a - base) / KASAN_GRANULE)), "");
	}
}

static void report(const struct access *a, const char *kind_override, const void *free_ptr)
{
	u8 v = has_shadow(a->bad) ? *kasan_mem_to_shadow(a->bad) : 0;
	const char *kind;

	/* A granule usable in part: what follows it says whose bytes these are. */
	if (v && v < KASAN_GRANULE)
		v = *kasan_mem_to_shadow(a->bad + KASAN_GRANULE);
	kind = kind_override ? kind_override : shadow_kind(v);
	struct kmalloc_obj_info info;
	unsigned long flags, left, obj_addr = a->bad;

	if (in_nmi()) {		/* printk's lock may be the one the NMI interrupted */
		__atomic_add_fetch(&report_count, 1, __ATOMIC_RELAXED);
		return;
	}
	this_cpu(kasan_in_report)++;
	flags = kasan_lock(&report_lock);
	if (!multi_shot && site_seen(a->ip)) {
		kasan_unlock(&report_lock, flags);
		this_cpu(kasan_in_report)--;
		return;
	}
	report_count++;
	if (!kind_override && v == KASAN_KMALLOC_FREE && kmalloc_find_object((void *)a->bad, &info) &&
	    info.meta && info.meta->rcu_stack)
		kind = "use-after-rcu-free";
	if (!kind_override && (v == KASAN_KMALLOC_REDZONE || v == KASAN_SLOT_UNUSED) &&
	    (left = left_of_next(a->bad)))
		obj_addr = left;
	last_kind = kind;
	printk("==================================================================\n");
	printk("BUG: KASAN: %s in %pS\n", kind, (void *)(a->ip - 1));
	if (free_ptr)
		printk("kfree(%p) by task %s/%d on CPU %u\n", free_ptr, task_name(),
		       task_pid(), smp_processor_id());
	else
		printk("%s of size %lu at addr %016lx by task %s/%d on CPU %u\n",
		       a->write ? "Write" : "Read", a->size, a->addr, task_name(),
		       task_pid(), smp_processor_id());
	kasan_print_trace_from(a->ip);
	printk("\n");
	print_object(a, obj_addr, free_ptr != NULL);
	printk("\n");
	print_shadow(a->bad);
	printk("==================================================================\n");
	kasan_unlock(&report_lock, flags);
	this_cpu(kasan_in_report)--;
	if (panic_on_report)
		panic("KASAN: %s (kasan.panic=1)", kind);
}

/* ------------------------------------------------------------ boot */

extern void (*__init_array_start[])(void), (*__init_array_end[])(void);

void kasan_init(void)
{
	unsigned long pages = kasan_init_shadow();

	kasan_stackdepot_init();
	q_max = pmm_total_pages() * PAGE_SIZE / 32;
	kasan_ready = true;
	pmm_kasan_poison_free();
	kasan_run_ctors(__init_array_start, __init_array_end);
	printk("kasan: shadow at %#lx for RAM and the kernel image (%lu KiB), quarantine %lu KiB, "
	       "stack depot %lu KiB, %u global arrays registered\n", KASAN_SHADOW_START,
	       pages * 4, q_max >> 10, (PAGE_SIZE << 9) >> 10, nr_global_arrays);
}
