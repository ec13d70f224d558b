/*
 * Tests of kmalloc (kernel/mm/kmalloc.c): every size round-trips, from
 * every CPU at once with objects crossing CPUs, statistics come back to
 * where they started; manual tests that must end in the write-after-free
 * and double-free panics; and the allocation benchmark (1 CPU against all
 * CPUs at once), which prints BENCH lines and asserts nothing on timing.
 */
#include <ktest.h>
#include <kmalloc.h>
#include <mm.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <printk.h>
#include <time.h>
#include <arch/cpu.h>

#ifdef CONFIG_DEBUG_KMALLOC_POISON
#define POISON_ON	true
#else
#define POISON_ON	false
#endif

static u8 pattern_of(const void *p, size_t size)
{
	return (u8)((((unsigned long)p >> 4) * 31) + size) | 1;	/* never 0 */
}

/* First offset in [from, size) that does not hold p's pattern, or size. */
static size_t pattern_check(const u8 *p, size_t from, size_t size)
{
	u8 v = pattern_of(p, size);

	for (size_t i = from; i < size; i++)
		if (p[i] != v)
			return i;
	return size;
}

static bool live_same(const struct kmalloc_stats *a, const struct kmalloc_stats *b)
{
	return a->objects == b->objects && a->bytes == b->bytes &&
	       a->poison_errors == b->poison_errors;
}

/* ------------------------------------------------------------ kmalloc_basic */

#define BASIC_BATCH	128
#define BASIC_MAX	8192

static void basic_check_one(struct ktest_ctx *t, u8 *p, size_t size)
{
	size_t ks = ksize(p), align = ks < PAGE_SIZE ? ks : PAGE_SIZE;

	KT_EXPECT(t, ((unsigned long)p & (KMALLOC_MIN_SIZE - 1)) == 0,
		  "kmalloc(%lu) = %p is 16-byte aligned", size, p);
	KT_EXPECT(t, ((unsigned long)p & (align - 1)) == 0,
		  "kmalloc(%lu) = %p is aligned to %lu", size, p, align);
	KT_EXPECT(t, ks >= size, "ksize(%p) = %lu >= %lu", p, ks, size);
	KT_EXPECT(t, pattern_check(p, 0, size) == size,
		  "kmalloc(%lu) = %p kept its contents (bad at %lu)", size, p,
		  pattern_check(p, 0, size));
}

static void basic_batch(struct ktest_ctx *t, size_t first, size_t last)
{
	u8 *ptr[BASIC_BATCH];
	size_t n = 0;

	for (size_t size = first; size <= last; size++, n++) {
		ptr[n] = kmalloc(size);
		KT_ASSERT(t, ptr[n], "kmalloc(%lu) succeeded", size);
		memset(ptr[n], pattern_of(ptr[n], size), size);
	}
	for (size_t i = 0; i < n; i++) {
		basic_check_one(t, ptr[i], first + i);
		kfree(ptr[i]);
	}
}

KTEST(kmalloc_basic)
{
	struct kmalloc_stats before, after;
	unsigned long allocs = 0;
	u8 *z, *big;

	kmalloc_get_stats(&before);
	for (size_t size = 1; size <= BASIC_MAX; size += BASIC_BATCH) {
		size_t last = MIN(size + BASIC_BATCH - 1, (size_t)BASIC_MAX);

		basic_batch(t, size, last);
		allocs += last - size + 1;
	}
	z = kzalloc(3000);
	KT_EXPECT(t, z && !memcmp(z, z + 1, 2999) && !z[0],
		  "kzalloc(3000) is zeroed");
	kfree(z);
	z = kmalloc(0);
	KT_EXPECT(t, z && ksize(z) == KMALLOC_MIN_SIZE, "kmalloc(0) gives a 16-byte object");
	kfree(z);
	kfree(NULL);
	big = kmalloc((PAGE_SIZE << MAX_ORDER) + 1);
	KT_EXPECT(t, big == NULL, "kmalloc beyond the largest block fails cleanly");
	allocs += 2;

	kmalloc_get_stats(&after);
	KT_EXPECT(t, live_same(&before, &after), "live objects %ld -> %ld, bytes %ld -> %ld",
		  before.objects, after.objects, before.bytes, after.bytes);
	KT_EXPECT(t, after.allocs - before.allocs == allocs, "%lu allocations counted, %lu made",
		  after.allocs - before.allocs, allocs);
	kt_info("%lu allocations of 1..%d bytes; %lu slab pages in use", allocs, BASIC_MAX,
		after.slab_pages);
}

/* ------------------------------------------------------------ stress, all CPUs */

#define STRESS_ITERS	3000
#define STRESS_LIVE	48
#define XCHG_SLOTS	64

struct stress_obj {		/* at the start of every stress object */
	u32 size;
	u32 cpu;
};

static struct {
	spinlock_t lock;
	void *slot[XCHG_SLOTS];		/* objects on their way to another CPU */
	int arrived, done, errors;
	unsigned long cross_frees, ops;
	char first_error[160];
} st;

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t stress_size(u64 *rng)
{
	u64 r = xorshift(rng);

	if (r % 32 == 0)
		return 4097 + (r >> 8) % (3 * PAGE_SIZE);	/* whole pages */
	return sizeof(struct stress_obj) + (r >> 8) % (1UL << (3 + (r >> 40) % 10));
}

static void stress_error(const char *what, void *p, size_t off)
{
	if (__atomic_fetch_add(&st.errors, 1, __ATOMIC_SEQ_CST) == 0)
		snprintf(st.first_error, sizeof(st.first_error), "%s: object %p, offset %lu",
			 what, p, off);
}

static void *stress_alloc(u64 *rng)
{
	size_t size = stress_size(rng);
	struct stress_obj *o = kmalloc(size);

	if (!o) {
		stress_error("kmalloc returned NULL", NULL, size);
		return NULL;
	}
	memset(o, pattern_of(o, size), size);
	o->size = size;
	o->cpu = smp_processor_id();
	return o;
}

static void stress_free(struct stress_obj *o)
{
	size_t bad = pattern_check((u8 *)o, sizeof(*o), o->size);

	if (bad != o->size)
		stress_error("object contents changed while allocated", o, bad);
	if (o->cpu != smp_processor_id())
		__atomic_fetch_add(&st.cross_frees, 1, __ATOMIC_RELAXED);
	kfree(o);
}

/* Swap one of ours (or nothing) with whatever sits in a random slot. */
static void stress_exchange(void *mine, u64 *rng)
{
	unsigned int i = xorshift(rng) % XCHG_SLOTS;
	unsigned long flags = spin_lock_irqsave(&st.lock);
	void *theirs = st.slot[i];

	st.slot[i] = mine;
	spin_unlock_irqrestore(&st.lock, flags);
	if (theirs)
		stress_free(theirs);
}

static void stress_cpu(void *unused)
{
	void *live[STRESS_LIVE];
	unsigned int n = 0, cpus = num_online_cpus();
	u64 rng = 0x9e3779b97f4a7c15UL * (smp_processor_id() + 1);

	__atomic_fetch_add(&st.arrived, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(st.arrived) < (int)cpus)	/* start together */
		cpu_relax();
	for (int i = 0; i < STRESS_ITERS; i++) {
		unsigned int op = xorshift(&rng) % 8;

		if (op < 4 && n < STRESS_LIVE) {
			if ((live[n] = stress_alloc(&rng)))
				n++;
		} else if (op == 4 && n) {
			stress_exchange(live[--n], &rng);
		} else if (n) {
			unsigned int k = xorshift(&rng) % n;

			stress_free(live[k]);
			live[k] = live[--n];
		}
	}
	while (n)
		stress_free(live[--n]);
	__atomic_fetch_add(&st.ops, STRESS_ITERS, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st.done, 1, __ATOMIC_SEQ_CST);
}

KTEST(kmalloc_stress_all_cpus)
{
	struct kmalloc_stats before, after;
	unsigned int cpus = num_online_cpus();
	u64 t0;

	if (!POISON_ON)
		kt_info("CONFIG_DEBUG_KMALLOC_POISON is off: writes after free go unseen");
	memset(&st, 0, sizeof(st));
	spin_lock_init(&st.lock, "kmalloc_stress");
	kmalloc_get_stats(&before);
	t0 = ktime_get_ns();
	smp_call_function(stress_cpu, NULL, false);
	stress_cpu(NULL);
	while (READ_ONCE(st.done) < (int)cpus)
		cpu_relax();
	for (int i = 0; i < XCHG_SLOTS; i++)
		if (st.slot[i])
			stress_free(st.slot[i]);
	kmalloc_get_stats(&after);

	KT_EXPECT(t, st.errors == 0, "%d errors; first: %s", st.errors, st.first_error);
	KT_EXPECT(t, live_same(&before, &after),
		  "live objects %ld -> %ld, bytes %ld -> %ld, poison errors %lu -> %lu",
		  before.objects, after.objects, before.bytes, after.bytes,
		  before.poison_errors, after.poison_errors);
	KT_EXPECT(t, after.allocs - before.allocs == after.frees - before.frees,
		  "allocs (%lu) and frees (%lu) match", after.allocs - before.allocs,
		  after.frees - before.frees);
	KT_EXPECT(t, cpus == 1 || st.cross_frees > 0, "objects were freed on other CPUs");
	kt_info("%u CPUs x %d steps: %lu allocs, %lu freed on another CPU, poison %s, %lu ms",
		cpus, STRESS_ITERS, after.allocs - before.allocs, st.cross_frees,
		POISON_ON ? "on" : "off", (unsigned long)((ktime_get_ns() - t0) / 1000000));
}

/* ------------------------------------------------------------ manual: must panic */

KTEST_MANUAL(kmalloc_poison_detects)
{
	u8 *p = kmalloc(64);

	if (!POISON_ON) {
		ktest_skip(t, "CONFIG_DEBUG_KMALLOC_POISON is off");
		kfree(p);
		return;
	}
	kfree(p);
	kt_info("writing into freed object %p at offset 10; the next kmalloc(64) must panic", p);
	p[10] = 0x42;
	/* The per-CPU cache is LIFO, so p comes back first; try more to be sure. */
	for (int i = 0; i < 1000; i++)
		kmalloc(64);
	ktest_fail(t, __FILE__, __LINE__, "the write after free went unnoticed");
}

KTEST_MANUAL(kmalloc_double_free_detects)
{
	void *p = kmalloc(200);

	if (!POISON_ON) {
		ktest_skip(t, "CONFIG_DEBUG_KMALLOC_POISON is off");
		kfree(p);
		return;
	}
	kfree(p);
	kt_info("freeing %p a second time; this must panic", p);
	kfree(p);
	ktest_fail(t, __FILE__, __LINE__, "the double free went unnoticed");
}

/* ------------------------------------------------------------ benchmark */

#define BENCH_OPS	100000
#define BURST		128	/* objects held per burst: overflows the CPU cache */

enum bench_pattern { BENCH_PAIR, BENCH_BURST };

static struct {
	enum bench_pattern pattern;
	size_t size;
	int arrived, done, cpus;
	u64 start_ns[CONFIG_NR_CPUS], end_ns[CONFIG_NR_CPUS];
	u64 cycles[CONFIG_NR_CPUS];
} bn;

/* BENCH_OPS kmalloc/kfree pairs: back to back, or BURST allocations then BURST frees. */
static void bench_loop(void)
{
	void *held[BURST];

	if (bn.pattern == BENCH_PAIR) {
		for (int i = 0; i < BENCH_OPS; i++)
			kfree(kmalloc(bn.size));
		return;
	}
	for (int i = 0; i < BENCH_OPS; i += BURST) {
		for (int j = 0; j < BURST; j++)
			held[j] = kmalloc(bn.size);
		for (int j = 0; j < BURST; j++)
			kfree(held[j]);
	}
}

static void bench_cpu(void *unused)
{
	unsigned int me = smp_processor_id();
	unsigned long flags = local_irq_save();
	u64 c0;

	bench_loop();				/* warm the caches and pools */
	__atomic_fetch_add(&bn.arrived, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(bn.arrived) < bn.cpus)
		cpu_relax();
	bn.start_ns[me] = ktime_get_ns();
	c0 = rdtsc_ordered();
	bench_loop();
	bn.cycles[me] = rdtsc_ordered() - c0;
	bn.end_ns[me] = ktime_get_ns();
	local_irq_restore(flags);
	__atomic_fetch_add(&bn.done, 1, __ATOMIC_SEQ_CST);
}

static void bench_report(const char *name, unsigned int cpus)
{
	u64 first = ~0UL, last = 0, cycles = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		if (cpus == 1 && cpu != smp_processor_id())
			continue;
		first = MIN(first, bn.start_ns[cpu]);
		last = MAX(last, bn.end_ns[cpu]);
		cycles += bn.cycles[cpu];
	}
	u64 ops = (u64)BENCH_OPS * cpus, wall = last - first;
	/* ops per second = ops / (wall_ns / 1e9); integers only (no FPU). */
	u64 rate = wall ? ops * NSEC_PER_SEC / wall : 0;

	bench_json("{\"bench\":\"kmalloc\",\"pattern\":\"%s\",\"size\":%lu,\"cpus\":%u,"
		   "\"ops\":%lu,\"wall_ns\":%lu,\"cycles_per_op\":%lu,\"ns_per_op\":%lu,"
		   "\"ops_per_sec\":%lu,\"ops_per_sec_per_cpu\":%lu,\"poison\":%s}",
		   name, bn.size, cpus, ops, wall, cycles / ops,
		   wall / BENCH_OPS, rate, rate / cpus, POISON_ON ? "true" : "false");
}

static void bench_run(enum bench_pattern pattern, const char *name, size_t size, bool all)
{
	unsigned int cpus = all ? num_online_cpus() : 1;

	memset(&bn, 0, sizeof(bn));
	bn.pattern = pattern;
	bn.size = size;
	bn.cpus = cpus;
	if (all)
		smp_call_function(bench_cpu, NULL, false);
	bench_cpu(NULL);
	while (READ_ONCE(bn.done) < (int)cpus)
		cpu_relax();
	bench_report(name, cpus);
}

KTEST(bench_kmalloc)
{
	struct kmalloc_stats before, after;

	kmalloc_get_stats(&before);
	if (!ktime_get_ns())
		kt_info("the TSC clock is not calibrated: ns figures are 0");
	bench_run(BENCH_PAIR, "pair", 64, false);
	bench_run(BENCH_PAIR, "pair", 64, true);
	bench_run(BENCH_BURST, "burst", 64, false);
	bench_run(BENCH_BURST, "burst", 64, true);
	bench_run(BENCH_PAIR, "pair", 1024, false);
	bench_run(BENCH_PAIR, "pair", 1024, true);
	kmalloc_get_stats(&after);
	KT_EXPECT(t, live_same(&before, &after), "live objects %ld -> %ld", before.objects,
		  after.objects);
}
