/*
 * KCSAN's runtime: soft watchpoints on sampled accesses (docs/kcsan.md).
 *
 * GCC's ThreadSanitizer instrumentation (-fsanitize=thread, with
 * tsan-distinguish-volatile=1 so that READ_ONCE()/WRITE_ONCE() arrive as
 * __tsan_volatile_*) calls in here on every load and store of every
 * instrumented file. Most calls only look for a watchpoint on their
 * address; every kcsan.skip-th access of a CPU sets one instead, stalls
 * its CPU kcsan.udelay microseconds, and takes it down again. Another
 * CPU's access that lands on the watchpoint meanwhile, and conflicts
 * with it (one of the two a write, not both marked), is a data race:
 * both are reported. A value that changed under the watchpoint with no
 * access seen is a race with code the compiler did not instrument.
 * Besides the samples, the stores that initialise the object kmalloc()
 * just returned are watched until a release orders them, and stall only
 * if a marked store published the object first (kcsan.fresh).
 *
 * This file is built without instrumentation: it is what the
 * instrumentation calls. The __tsan_atomic* entry points must also do
 * the atomic operation the compiler replaced with the call.
 */
#include <kcsan.h>
#include <types.h>
#include <percpu.h>
#include <preempt.h>
#include <printk.h>
#include <panic.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <time.h>
#include <cmdline.h>
#include <ksyms.h>
#include <arch/cpu.h>

#define NR_WATCHPOINTS	64	/* a power of two: slots by cache line */
#define STACK_DEPTH	8
#define NR_SEEN_PAIRS	128	/* reported pairs of sites, for deduplication */

struct kcsan_access {
	unsigned long ptr, size, ip;
	unsigned int type;
	int cpu, pid;
	char comm[16];
	unsigned long stack[STACK_DEPTH];
	int depth;
};

struct watchpoint {
	unsigned long addr;		/* 0: free; claimed with a compare-and-swap */
	unsigned long size;
	unsigned long mask;		/* WATCH_LINE: the line's bytes watched, one bit each */
	unsigned int type;
	int cpu;			/* the CPU that set it: its own accesses do not hit it */
	int hit;			/* 1 once a conflicting access recorded `other` */
	struct kcsan_access other;
};

/*
 * A sampled plain access kept in flight: the machine may perform it late,
 * up to the next release or full barrier, so its watchpoint stays up
 * while this CPU goes on, and the stall comes at the barrier (or after
 * REORDER_BUDGET more accesses). An access another CPU makes meanwhile
 * that conflicts with it is a race under that reordering: a missing
 * barrier, when this CPU passed a marked store that published it.
 */
#define REORDER_BUDGET	64

struct in_flight {
	struct watchpoint *w;		/* NULL: none */
	struct kcsan_access me;
	int budget;
	bool passed_marked_store;	/* a marked store since: a publication? */
};

/*
 * The object this CPU kmalloc'd last, while it is fresh (kcsan.fresh).
 * Its initialising stores are the ones a publication without a release
 * leaves unordered: the pattern of list_add() where list_add_rcu() was
 * meant, or a pointer stored with WRITE_ONCE() where rcu_assign_pointer()
 * was. A random sample catches one of those stores rarely (one store in
 * kcsan.skip, a handful per object), so here every plain store of this
 * CPU into the object is kept in flight, on one watchpoint that watches
 * the bytes stored in the line of the first. It ends at the next release
 * or full barrier, at the next allocation or free, or REORDER_BUDGET
 * accesses after the latest store; it stalls there only if a marked
 * store between stored a pointer into the object (a publication that
 * ordered nothing before it): ordered initialisation costs no stall.
 */
#define WATCH_LINE	0x100		/* internal: a watchpoint on the bytes in ->mask */
#define FRESH_STORES	6		/* stores one object's watchpoint remembers */
#define FRESH_LIFE	4096		/* accesses after its allocation an object is fresh */

struct fresh {
	unsigned long start, end;	/* [start, end); end 0: none */
	int life;			/* accesses until it is no longer fresh */
	struct watchpoint *w;		/* NULL: none set */
	unsigned long line;		/* the line w watches */
	int budget;
	unsigned int marked;		/* marked stores of this CPU since w was set */
	unsigned long check;		/* the latest one's address, if 8 bytes: read once done */
	unsigned int pub;		/* `marked` after the one that stored a pointer into
					 * the object: its publication; 0: none yet */
	int nstores;
	unsigned int marked_at[FRESH_STORES];	/* `marked` when each store was made */
	struct kcsan_access stores[FRESH_STORES];
};

struct kcsan_cpu {
	int busy;			/* in the runtime (or stalled in it) on this CPU */
	long countdown;			/* accesses until this CPU next sets a watchpoint */
	unsigned long rnd;
	struct in_flight pending;
	unsigned long allocs;		/* kmalloc()s seen, for kcsan.fresh=N */
	struct fresh fresh;
};

static struct watchpoint watchpoints[NR_WATCHPOINTS];
static DEFINE_PER_CPU(struct kcsan_cpu, kcsan_cpu);
static int kcsan_enabled;
static unsigned long kcsan_skip = 2000;
static unsigned long kcsan_udelay = 20;
static unsigned long kcsan_panic;
static unsigned long kcsan_fresh = 1;
static unsigned long kcsan_report_count;
static unsigned long seen_pairs[NR_SEEN_PAIRS][2];
static int report_lock;

CMDLINE_ULONG("kcsan.skip", kcsan_skip, 1, 1000000,
	      "kcsan.skip=N: each CPU sets a watchpoint on about every N-th access (default 2000)");
CMDLINE_ULONG("kcsan.udelay", kcsan_udelay, 1, 10000,
	      "kcsan.udelay=US: how long a watchpoint stalls its CPU (default 20)");
CMDLINE_ULONG("kcsan.panic", kcsan_panic, 0, 1,
	      "kcsan.panic=1: panic at the first data-race report (graders)");
CMDLINE_ULONG("kcsan.fresh", kcsan_fresh, 0, 1000000,
	      "kcsan.fresh=N: watch the initialising stores of one kmalloc'd object in N "
	      "until a release orders them (0: none; default 1)");

unsigned long kcsan_reports(void)
{
	return __atomic_load_n(&kcsan_report_count, __ATOMIC_RELAXED);
}

void kcsan_set_sampling(unsigned long skip, unsigned long udelay_us)
{
	__atomic_store_n(&kcsan_skip, skip ? skip : 1, __ATOMIC_RELAXED);
	__atomic_store_n(&kcsan_udelay, udelay_us, __ATOMIC_RELAXED);
}

void kcsan_get_sampling(unsigned long *skip, unsigned long *udelay_us)
{
	*skip = __atomic_load_n(&kcsan_skip, __ATOMIC_RELAXED);
	*udelay_us = __atomic_load_n(&kcsan_udelay, __ATOMIC_RELAXED);
}

unsigned long kcsan_set_fresh(unsigned long n)
{
	return __atomic_exchange_n(&kcsan_fresh, n, __ATOMIC_RELAXED);
}

/* After the CPUs are up and per-CPU data exists: from then on, check. */
void kcsan_init(void)
{
	printk("kcsan: data-race detector on: a watchpoint about every %lu accesses per CPU, "
	       "%lu us each\n", kcsan_skip, kcsan_udelay);
	__atomic_store_n(&kcsan_enabled, 1, __ATOMIC_RELEASE);
}

void kcsan_disable_current(void)
{
	if (__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED))
		current->kcsan_disable++;
}

void kcsan_enable_current(void)
{
	if (__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED) && current->kcsan_disable > 0)
		current->kcsan_disable--;
}

static unsigned long next_random(struct kcsan_cpu *kc)
{
	kc->rnd ^= kc->rnd << 13;
	kc->rnd ^= kc->rnd >> 7;
	kc->rnd ^= kc->rnd << 17;
	return kc->rnd;
}

static struct watchpoint *slot_of(unsigned long addr)
{
	return &watchpoints[(addr >> 6) & (NR_WATCHPOINTS - 1)];
}

/* The bytes of [addr, addr+size) in the line at line, one bit each. */
static unsigned long line_bytes(unsigned long line, unsigned long addr, unsigned long size)
{
	unsigned long lo = addr > line ? addr : line;
	unsigned long hi = addr + size < line + 64 ? addr + size : line + 64;

	if (lo >= hi)
		return 0;
	return (hi - lo == 64 ? ~0UL : (1UL << (hi - lo)) - 1) << (lo - line);
}

/* Does an access of type to [addr, addr+size) conflict with watchpoint w? */
static bool conflicts(const struct watchpoint *w, unsigned long waddr, unsigned long addr,
		      unsigned long size, unsigned int type)
{
	if (w->type & WATCH_LINE) {
		if (!(line_bytes(waddr, addr, size) & __atomic_load_n(&w->mask, __ATOMIC_RELAXED)))
			return false;
	} else if (addr + size <= waddr || waddr + w->size <= addr)
		return false;
	if (w->cpu == smp_processor_id())
		return false;			/* this CPU's own, in flight */
	if (w->type & KCSAN_ACCESS_ASSERT_ACCESS)
		return true;
	if (w->type & KCSAN_ACCESS_ASSERT_WRITER)
		return type & KCSAN_ACCESS_WRITE;
	if (!((w->type | type) & KCSAN_ACCESS_WRITE))
		return false;			/* two reads */
	return !((w->type & type) & KCSAN_ACCESS_MARKED);	/* two marked: not a race */
}

/*
 * The callers of the access: the frame chain from here, past the
 * runtime's own frames up to the one that returns to the access (ip),
 * then the ones above it.
 */
static void save_stack(struct kcsan_access *a)
{
	extern char _text_start[], _text_end[];
	unsigned long rbp = (unsigned long)__builtin_frame_address(0);
	bool above = false;

	a->depth = 0;
	for (int i = 0; i < 24 && a->depth < STACK_DEPTH && rbp; i++) {
		unsigned long *frame = (unsigned long *)rbp;
		unsigned long ret = frame[1];

		/* The kernel's text by its bounds first: ksym_is_text()'s symbol
		 * search runs instrumented, and every store kcsan.fresh keeps
		 * saves a stack. */
		if (!ret || (!(ret >= (unsigned long)_text_start && ret < (unsigned long)_text_end) &&
			     !ksym_is_text(ret)))
			break;
		if (above)
			a->stack[a->depth++] = ret - 1;
		else if (ret == a->ip)
			above = true;
		if (frame[0] <= rbp)
			break;
		rbp = frame[0];
	}
}

static void fill_access(struct kcsan_access *a, unsigned long ptr, unsigned long size,
			unsigned int type, unsigned long ip)
{
	struct task *t = current;

	a->ptr = ptr;
	a->size = size;
	a->type = type;
	a->ip = ip;
	a->cpu = smp_processor_id();
	a->pid = t ? t->pid : -1;
	strlcpy(a->comm, t ? t->name : "?", sizeof(a->comm));
	a->depth = 0;
	save_stack(a);
}

static const char *kind(unsigned int type)
{
	if (type & KCSAN_ACCESS_ASSERT_WRITER)
		return "assert no other writer";
	if (type & KCSAN_ACCESS_ASSERT_ACCESS)
		return "assert no other access";
	if (type & KCSAN_ACCESS_WRITE)
		return type & KCSAN_ACCESS_MARKED ? "write (marked)" : "write";
	return type & KCSAN_ACCESS_MARKED ? "read (marked)" : "read";
}

static void print_access(const struct kcsan_access *a)
{
	printk("%s to 0x%lx of %lu bytes by task %d (%s) on cpu %d:\n", kind(a->type), a->ptr,
	       a->size, a->pid, a->comm, a->cpu);
	/* ip returns past the access: one byte back is its instruction. */
	printk("  [<%016lx>] %pS\n", a->ip - 1, (void *)(a->ip - 1));
	for (int i = 0; i < a->depth; i++)
		printk("  [<%016lx>] %pS\n", a->stack[i], (void *)a->stack[i]);
}

/* The fix in words, where the pattern of the two accesses says it. */
static const char *hint(unsigned int mine, unsigned int theirs)
{
	if ((mine | theirs) & (KCSAN_ACCESS_ASSERT_WRITER | KCSAN_ACCESS_ASSERT_ACCESS))
		return "the design says no other CPU may do this here: find who does, and why";
	if (!((mine | theirs) & KCSAN_ACCESS_WRITE))
		return NULL;
	if ((mine ^ theirs) & KCSAN_ACCESS_MARKED) {
		unsigned int plain = mine & KCSAN_ACCESS_MARKED ? theirs : mine;

		if (!(plain & KCSAN_ACCESS_WRITE))
			return "a plain load racing with a marked store (rcu_assign_pointer(), "
			       "list_add_rcu(), WRITE_ONCE()): read it with rcu_dereference() or "
			       "READ_ONCE(), walk the list with list_for_each_entry_rcu()";
		return "a plain store racing with a marked load (rcu_dereference(), READ_ONCE()): "
		       "publish it with rcu_assign_pointer() or WRITE_ONCE() (list_add_rcu(), "
		       "not list_add())";
	}
	return "two plain accesses, at least one a write: take the lock that orders them, mark "
	       "both (READ_ONCE()/WRITE_ONCE(), rcu_dereference()/rcu_assign_pointer()), or, if "
	       "the race is intended, say why with data_race()";
}

static bool seen_before(unsigned long a, unsigned long b)
{
	unsigned long lo = a < b ? a : b, hi = a < b ? b : a;

	for (int i = 0; i < NR_SEEN_PAIRS; i++) {
		if (seen_pairs[i][0] == lo && seen_pairs[i][1] == hi)
			return true;
		if (!seen_pairs[i][0]) {
			seen_pairs[i][0] = lo;
			seen_pairs[i][1] = hi;
			return false;
		}
	}
	return false;
}

static void report(const struct kcsan_access *me, const struct kcsan_access *other,
		   u64 old, u64 new, bool reordered)
{
	char a[96], b[96];
	const char *h;

	/* A hit recorded against a slot reused for another address meanwhile:
	 * the two accesses do not overlap, and there is nothing to report. */
	if (other && (other->ptr + other->size <= me->ptr || me->ptr + me->size <= other->ptr))
		return;
	while (__atomic_exchange_n(&report_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	if (seen_before(me->ip, other ? other->ip : 0)) {
		__atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
		return;
	}
	__atomic_fetch_add(&kcsan_report_count, 1, __ATOMIC_RELAXED);
	ksym_format(me->ip - 1, a, sizeof(a));
	printk("==================================================================\n");
	if (other) {
		ksym_format(other->ip - 1, b, sizeof(b));
		printk("BUG: KCSAN: data-race in %s / %s\n", a, b);
		print_access(other);
		print_access(me);
	} else {
		printk("BUG: KCSAN: data-race in %s (the other access was not instrumented)\n", a);
		print_access(me);
	}
	if (!(me->type & (KCSAN_ACCESS_ASSERT_WRITER | KCSAN_ACCESS_ASSERT_ACCESS)) &&
	    me->size <= 8 && old != new)
		printk("value changed: 0x%016llx -> 0x%016llx\n", (unsigned long long)old,
		       (unsigned long long)new);
	if (reordered)
		printk("reordered: the %s above was kept in flight past a later marked store on "
		       "cpu %d, as a weaker machine or the compiler may: only a release between "
		       "them (smp_store_release(), rcu_assign_pointer(), list_add_rcu()) forbids "
		       "that\n", kind(me->type), me->cpu);
	h = reordered ? "a plain access ordered before a publication only by program order: "
			"publish with rcu_assign_pointer() or smp_store_release() (list_add_rcu(), "
			"not list_add()), which orders what came before it" :
	    other ? hint(me->type, other->type) :
		"a value changed under a watchpoint with no instrumented access seen: an "
		"uninstrumented writer (assembly, a device, a file built without KCSAN)";
	if (h)
		printk("hint: %s\n", h);
	printk("==================================================================\n");
	__atomic_store_n(&report_lock, 0, __ATOMIC_RELEASE);
	if (kcsan_panic)
		panic("KCSAN: data-race reported, kcsan.panic=1");
}

static u64 read_value(unsigned long ptr, unsigned long size)
{
	switch (size) {
	case 1: return *(volatile u8 *)ptr;
	case 2: return *(volatile u16 *)ptr;
	case 4: return *(volatile u32 *)ptr;
	case 8: return *(volatile u64 *)ptr;
	default: return 0;
	}
}

/* Claim the line's slot for this access; NULL if another CPU holds it.
 * With WATCH_LINE, ptr is the line and mask the bytes watched in it. */
static struct watchpoint *arm(unsigned long ptr, unsigned long size, unsigned int type,
			      unsigned long mask)
{
	struct watchpoint *w = slot_of(ptr);
	unsigned long expect = 0;

	if ((ptr >> 6) != ((ptr + size - 1) >> 6) || (size > 8 && !(type & WATCH_LINE)))
		return NULL;			/* one slot covers one cache line */
	if (!__atomic_compare_exchange_n(&w->addr, &expect, ~0UL, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return NULL;			/* the slot is busy: skip this sample */
	w->size = size;
	w->mask = mask;
	w->type = type;
	w->cpu = smp_processor_id();
	w->hit = 0;
	/* Publish the address last: others match only a complete watchpoint. */
	__atomic_store_n(&w->addr, ptr, __ATOMIC_RELEASE);
	return w;
}

/* Take w down; true if another CPU's conflicting access hit it. */
static bool disarm(struct watchpoint *w)
{
	bool hit;

	__atomic_store_n(&w->addr, ~0UL, __ATOMIC_SEQ_CST);	/* no new hits */
	/* A hitter that claimed the slot is still writing what it saw. */
	for (int spins = 0; __atomic_load_n(&w->hit, __ATOMIC_ACQUIRE) == 1 && spins < 100000; spins++)
		cpu_relax();
	hit = __atomic_load_n(&w->hit, __ATOMIC_ACQUIRE) == 2;
	return hit;
}

static void release_slot(struct watchpoint *w)
{
	__atomic_store_n(&w->addr, 0, __ATOMIC_RELEASE);
}

/* Set a watchpoint on this access, stall, and see who came. */
static void watch(struct kcsan_cpu *kc, unsigned long ptr, unsigned long size,
		  unsigned int type, unsigned long ip)
{
	struct watchpoint *w = arm(ptr, size, type, 0);
	struct kcsan_access me;
	u64 old, new;
	bool hit;

	if (!w)
		return;
	old = read_value(ptr, size);
	udelay(__atomic_load_n(&kcsan_udelay, __ATOMIC_RELAXED));
	new = read_value(ptr, size);
	hit = disarm(w);
	fill_access(&me, ptr, size, type, ip);
	if (hit)
		report(&me, &w->other, old, new, false);
	else if (old != new && !(type & KCSAN_ACCESS_MARKED) &&
		 !(type & (KCSAN_ACCESS_ASSERT_WRITER | KCSAN_ACCESS_ASSERT_ACCESS)))
		report(&me, NULL, old, new, false);
	release_slot(w);
}

/* A plain access sampled: keep it in flight instead of stalling at once. */
static void start_in_flight(struct kcsan_cpu *kc, unsigned long ptr, unsigned long size,
			    unsigned int type, unsigned long ip)
{
	struct in_flight *f = &kc->pending;
	struct watchpoint *w;

	if (f->w || !(w = arm(ptr, size, type, 0)))
		return;
	fill_access(&f->me, ptr, size, type, ip);
	f->budget = REORDER_BUDGET;
	f->passed_marked_store = false;
	f->w = w;
}

/* The barrier (or the budget's end) the in-flight access cannot pass:
 * stall here (unless the caller did), with its watchpoint still up, and
 * see who came. */
static void end_in_flight(struct kcsan_cpu *kc, bool stall)
{
	struct in_flight *f = &kc->pending;
	struct watchpoint *w = f->w;

	if (!w)
		return;
	if (stall)
		udelay(__atomic_load_n(&kcsan_udelay, __ATOMIC_RELAXED));
	if (disarm(w))
		report(&f->me, &w->other, 0, 0, f->passed_marked_store);
	f->w = NULL;
	release_slot(w);
}

/*
 * The marked store before this access has been performed: did it store a
 * pointer into the fresh object? Then that was its publication. The
 * instrumentation passes no value, so it is read back from the place.
 */
static void fresh_note_store(struct fresh *f)
{
	unsigned long v;

	if (!f->check)
		return;
	v = *(volatile unsigned long *)f->check;
	if (!f->pub && v >= f->start && v < f->end)
		f->pub = f->marked;
	f->check = 0;
}

/* Whether store i of the fresh object came before its publication. */
static bool fresh_store_passed(const struct fresh *f, int i)
{
	return f->pub && f->marked_at[i] < f->pub;
}

/* Whether a store of the fresh object was published by a marked store
 * that did not order it: the stall is the window a reader needs. */
static bool fresh_passed(struct fresh *f)
{
	if (!f->w)
		return false;
	fresh_note_store(f);
	for (int i = 0; i < f->nstores; i++)
		if (fresh_store_passed(f, i))
			return true;
	return false;
}

/* The fresh object's watchpoint down: stalled first (unless the caller
 * did) if its stores passed a marked store; a hit is reported with the
 * store it hit. */
static void end_fresh(struct kcsan_cpu *kc, bool stall)
{
	struct fresh *f = &kc->fresh;
	struct watchpoint *w = f->w;

	if (!w)
		return;
	if (fresh_passed(f) && stall)
		udelay(__atomic_load_n(&kcsan_udelay, __ATOMIC_RELAXED));
	if (disarm(w)) {
		const struct kcsan_access *o = &w->other;

		for (int i = 0; i < f->nstores; i++) {
			const struct kcsan_access *s = &f->stores[i];

			if (s->ptr < o->ptr + o->size && o->ptr < s->ptr + s->size) {
				report(s, o, 0, 0, fresh_store_passed(f, i));
				break;
			}
		}
	}
	f->w = NULL;
	release_slot(w);
}

/*
 * A plain store of this CPU into its fresh object: kept in flight on the
 * object's watchpoint (set on the first store's line; a store to another
 * line is left to the random samples). False if not kept.
 */
static bool fresh_store(struct kcsan_cpu *kc, unsigned long ptr, unsigned long size,
			unsigned long ip)
{
	struct fresh *f = &kc->fresh;
	unsigned long line = ptr & ~63UL, bytes = line_bytes(line, ptr, size);
	int i;

	if ((ptr >> 6) != ((ptr + size - 1) >> 6))
		return false;
	if (!f->w) {
		f->w = arm(line, 64, KCSAN_ACCESS_WRITE | WATCH_LINE, bytes);
		if (!f->w)
			return false;
		f->line = line;
		f->nstores = 0;
		f->marked = 0;
		f->check = 0;
		f->pub = 0;
	} else if (f->line != line) {
		return false;
	}
	f->budget = REORDER_BUDGET;
	for (i = 0; i < f->nstores; i++)
		if (f->stores[i].ptr == ptr && f->stores[i].size == size)
			break;
	if (i == f->nstores) {
		if (i == FRESH_STORES)
			return true;	/* its bytes watched are the ones remembered */
		f->nstores++;
		__atomic_fetch_or(&f->w->mask, bytes, __ATOMIC_RELAXED);
	}
	/* The latest store to these bytes is the one a reader would see torn. */
	fill_access(&f->stores[i], ptr, size, KCSAN_ACCESS_WRITE, ip);
	f->marked_at[i] = f->marked;
	return true;
}

void kcsan_alloc(const void *p, unsigned long size)
{
	struct kcsan_cpu *kc;
	unsigned long n;

	if (!__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED) || !p)
		return;
	n = __atomic_load_n(&kcsan_fresh, __ATOMIC_RELAXED);
	kc = this_cpu_ptr(&kcsan_cpu);
	if (!n || kc->busy || in_nmi() || in_irq())
		return;
	preempt_disable();
	kc->busy = 1;
	end_fresh(kc, true);		/* the previous object's stores end here */
	kc->fresh.end = 0;
	if (++kc->allocs % n == 0) {
		kc->fresh.start = (unsigned long)p;
		kc->fresh.end = (unsigned long)p + size;
		kc->fresh.life = FRESH_LIFE;
	}
	kc->busy = 0;
	preempt_enable_no_resched();
}

void kcsan_free(const void *p)
{
	struct kcsan_cpu *kc;
	unsigned long a = (unsigned long)p;

	if (!__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED))
		return;
	kc = this_cpu_ptr(&kcsan_cpu);
	if (kc->busy || !kc->fresh.end || a < kc->fresh.start || a >= kc->fresh.end)
		return;
	preempt_disable();
	kc->busy = 1;
	/* The allocator's own stores (poison, its free list) are no
	 * initialisation, and another CPU may have the memory next. */
	end_fresh(kc, true);
	kc->fresh.end = 0;
	kc->busy = 0;
	preempt_enable_no_resched();
}

void kcsan_release(void)
{
	struct kcsan_cpu *kc;
	bool stall;

	if (!__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED))
		return;
	kc = this_cpu_ptr(&kcsan_cpu);
	if (kc->busy || (!kc->pending.w && !kc->fresh.w))
		return;
	preempt_disable();
	kc->busy = 1;
	/* One stall for both: their watchpoints are up together. */
	stall = kc->pending.w || fresh_passed(&kc->fresh);
	if (stall)
		udelay(__atomic_load_n(&kcsan_udelay, __ATOMIC_RELAXED));
	end_in_flight(kc, false);
	end_fresh(kc, false);
	kc->busy = 0;
	preempt_enable_no_resched();
}

void __kcsan_assert(const volatile void *p, unsigned long size, unsigned int type)
{
	kcsan_check(p, size, type, (unsigned long)__builtin_return_address(0));
}

void kcsan_check(const volatile void *p, unsigned long size, unsigned int type,
		 unsigned long ip)
{
	unsigned long ptr = (unsigned long)p, waddr;
	struct kcsan_cpu *kc;
	struct watchpoint *w;

	if (!__atomic_load_n(&kcsan_enabled, __ATOMIC_RELAXED) || !size)
		return;
	kc = this_cpu_ptr(&kcsan_cpu);
	if (kc->busy || in_nmi())
		return;
	preempt_disable();
	kc->busy = 1;
	if (current->kcsan_disable)
		goto out;
	if (kc->pending.w) {
		if ((type & (KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE)) ==
		    (KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE))
			kc->pending.passed_marked_store = true;
		if (--kc->pending.budget <= 0)
			end_in_flight(kc, true);
	}
	if (kc->fresh.w) {
		fresh_note_store(&kc->fresh);
		if ((type & (KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE)) ==
		    (KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE)) {
			kc->fresh.marked++;
			kc->fresh.check = size == sizeof(long) && !(ptr & 7) ? ptr : 0;
		}
		if (--kc->fresh.budget <= 0)
			end_fresh(kc, true);
	}
	/* Someone's watchpoint on this line, or the next one the access reaches? */
	for (unsigned long line = ptr >> 6; line <= (ptr + size - 1) >> 6; line++) {
		w = &watchpoints[line & (NR_WATCHPOINTS - 1)];
		waddr = __atomic_load_n(&w->addr, __ATOMIC_ACQUIRE);
		if (waddr && waddr != ~0UL && conflicts(w, waddr, ptr, size, type)) {
			int none = 0;

			if (__atomic_compare_exchange_n(&w->hit, &none, 1, false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED)) {
				/* The slot may have been taken down and set again
				 * for another address since we read it: then this
				 * hit is not its. */
				if (__atomic_load_n(&w->addr, __ATOMIC_ACQUIRE) != waddr) {
					__atomic_store_n(&w->hit, 0, __ATOMIC_RELEASE);
					goto out;
				}
				fill_access(&w->other, ptr, size, type, ip);
				__atomic_store_n(&w->hit, 2, __ATOMIC_RELEASE);
			}
			goto out;
		}
	}
	if (kc->fresh.end && --kc->fresh.life <= 0)
		kc->fresh.end = 0;
	if (kc->fresh.end && type == KCSAN_ACCESS_WRITE && !in_irq() &&
	    ptr >= kc->fresh.start && ptr + size <= kc->fresh.end &&
	    fresh_store(kc, ptr, size, ip))
		goto out;
	if (--kc->countdown <= 0) {
		unsigned long skip = __atomic_load_n(&kcsan_skip, __ATOMIC_RELAXED);

		if (!kc->rnd)
			kc->rnd = rdtsc() | 1;
		/* Between half and one and a half times skip, so that samples
		 * do not lock step with a loop's period. */
		kc->countdown = skip / 2 + (long)(next_random(kc) % (skip + 1));
		if (in_irq())
			;
		else if (type & (KCSAN_ACCESS_MARKED | KCSAN_ACCESS_ASSERT_WRITER |
				 KCSAN_ACCESS_ASSERT_ACCESS))
			watch(kc, ptr, size, type, ip);
		else
			start_in_flight(kc, ptr, size, type, ip);
	}
out:
	kc->busy = 0;
	preempt_enable_no_resched();
}

#define IP	((unsigned long)__builtin_return_address(0))

/* The plain and marked accesses the compiler reports. */
#define TSAN_RW(n)								\
void __tsan_read##n(void *p);							\
void __tsan_read##n(void *p) { kcsan_check(p, n, 0, IP); }			\
void __tsan_write##n(void *p);							\
void __tsan_write##n(void *p) { kcsan_check(p, n, KCSAN_ACCESS_WRITE, IP); }	\
void __tsan_unaligned_read##n(void *p);						\
void __tsan_unaligned_read##n(void *p) { kcsan_check(p, n, 0, IP); }		\
void __tsan_unaligned_write##n(void *p);					\
void __tsan_unaligned_write##n(void *p) { kcsan_check(p, n, KCSAN_ACCESS_WRITE, IP); } \
void __tsan_volatile_read##n(void *p);						\
void __tsan_volatile_read##n(void *p) { kcsan_check(p, n, KCSAN_ACCESS_MARKED, IP); } \
void __tsan_volatile_write##n(void *p);						\
void __tsan_volatile_write##n(void *p)						\
{ kcsan_check(p, n, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP); }		\
void __tsan_unaligned_volatile_read##n(void *p);				\
void __tsan_unaligned_volatile_read##n(void *p) { kcsan_check(p, n, KCSAN_ACCESS_MARKED, IP); } \
void __tsan_unaligned_volatile_write##n(void *p);				\
void __tsan_unaligned_volatile_write##n(void *p)				\
{ kcsan_check(p, n, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP); }

TSAN_RW(1)
TSAN_RW(2)
TSAN_RW(4)
TSAN_RW(8)
TSAN_RW(16)

void __tsan_read_range(void *p, unsigned long size);
void __tsan_read_range(void *p, unsigned long size) { kcsan_check(p, size, 0, IP); }
void __tsan_write_range(void *p, unsigned long size);
void __tsan_write_range(void *p, unsigned long size)
{
	kcsan_check(p, size, KCSAN_ACCESS_WRITE, IP);
}

void __tsan_func_entry(void *call_pc);
void __tsan_func_entry(void *call_pc) { }
void __tsan_func_exit(void);
void __tsan_func_exit(void) { }
/* The constructor the instrumentation adds to every file (.init_array). */
void __tsan_init(void);
void __tsan_init(void) { }

/*
 * The atomics: each is checked as a marked access and then performed.
 * Every one as sequentially consistent, whatever order the caller
 * asked for: stronger than needed is still correct, and x86 gives the
 * same code for all but relaxed and seq_cst stores.
 */
/* ThreadSanitizer's orders: 3 release, 4 acq_rel, 5 seq_cst order what came before. */
#define RELEASES(mo)	do { if ((mo) >= 3) kcsan_release(); } while (0)
#define TSAN_ATOMIC(n, T)							\
T __tsan_atomic##n##_load(const volatile T *p, int mo);			\
T __tsan_atomic##n##_load(const volatile T *p, int mo)				\
{ kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED, IP); return __atomic_load_n(p, __ATOMIC_SEQ_CST); } \
void __tsan_atomic##n##_store(volatile T *p, T v, int mo);			\
void __tsan_atomic##n##_store(volatile T *p, T v, int mo)			\
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP);		\
  __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }					\
T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo);			\
T __tsan_atomic##n##_exchange(volatile T *p, T v, int mo)			\
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP);		\
  return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }				\
TSAN_RMW(n, T, fetch_add) TSAN_RMW(n, T, fetch_sub) TSAN_RMW(n, T, fetch_and)	\
TSAN_RMW(n, T, fetch_or) TSAN_RMW(n, T, fetch_xor) TSAN_RMW(n, T, fetch_nand)	\
int __tsan_atomic##n##_compare_exchange_strong(volatile T *p, T *exp, T v, int mo, int fmo); \
int __tsan_atomic##n##_compare_exchange_strong(volatile T *p, T *exp, T v, int mo, int fmo) \
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP);		\
  return __atomic_compare_exchange_n(p, exp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
int __tsan_atomic##n##_compare_exchange_weak(volatile T *p, T *exp, T v, int mo, int fmo); \
int __tsan_atomic##n##_compare_exchange_weak(volatile T *p, T *exp, T v, int mo, int fmo) \
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP);		\
  return __atomic_compare_exchange_n(p, exp, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T exp, T v, int mo, int fmo); \
T __tsan_atomic##n##_compare_exchange_val(volatile T *p, T exp, T v, int mo, int fmo) \
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP);		\
  __atomic_compare_exchange_n(p, &exp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  return exp; }

#define TSAN_RMW(n, T, op)							\
T __tsan_atomic##n##_##op(volatile T *p, T v, int mo);				\
T __tsan_atomic##n##_##op(volatile T *p, T v, int mo)				\
{ RELEASES(mo); kcsan_check(p, n / 8, KCSAN_ACCESS_MARKED | KCSAN_ACCESS_WRITE, IP); \
  return __atomic_##op(p, v, __ATOMIC_SEQ_CST); }

TSAN_ATOMIC(8, u8)
TSAN_ATOMIC(16, u16)
TSAN_ATOMIC(32, u32)
TSAN_ATOMIC(64, u64)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	RELEASES(mo);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
