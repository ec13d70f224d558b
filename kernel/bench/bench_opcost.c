/*
 * Seed 001 Table 1 ("Time Required for Common Operations on a 700MHz
 * Pentium III") measured on this machine, so that the hash-lookup
 * figures can be read against what their ingredients cost here
 * (BENCH "opcost" lines, never asserted; docs/figures.md):
 *
 *   ktest=bench_opcost
 *
 *   instruction        independent register adds, 256 a loop pass
 *   clock_cycle        the TSC's period (the only clock a guest can read)
 *   l2_hit             a pointer chase through 256 KiB, one line per load,
 *                      in random order (past L1, inside a usual L2)
 *   atomic_inc         a locked increment of a line this CPU holds
 *   cmpxchg_inc        a read and a cmpxchg, the same line
 *   main_memory        the pointer chase through 64 MiB
 *   cpu_local_lock     spin_lock() and spin_unlock() of a lock only this
 *                      CPU takes (what a brlock reader takes)
 *   cache_transfer     a line handed back and forth between CPUs 0 and 1,
 *                      per hand-off (needs two CPUs)
 *
 * Each figure is the best of five runs (main memory: three) with
 * interrupts off (the transfer: with them on, the other CPU a kernel
 * thread), so it is what the operation costs when nothing else
 * intervenes, as the paper's figures are.
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <kmalloc.h>
#include <spinlock.h>
#include <mm.h>
#include <arch/cpu.h>

#define RUNS		5
#define CHASE_BLOCK	(4UL << 20)	/* kmalloc's largest: 2^MAX_ORDER pages */
#define CHASE_BLOCKS	16		/* 64 MiB for main memory */
#define LINE		64

static u64 opcost_rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void report(const char *op, u64 cycles, u64 count)
{
	u64 ps = count ? cycles_to_ns(cycles * 1000) / count : 0;

	bench_json("{\"bench\":\"opcost\",\"op\":\"%s\",\"ps\":%lu,\"cycles_x100\":%lu,\"count\":%lu}",
		   op, (unsigned long)ps, (unsigned long)(count ? cycles * 100 / count : 0),
		   (unsigned long)count);
	kt_info("%-16s %6lu.%03lu ns", op, (unsigned long)(ps / 1000), (unsigned long)(ps % 1000));
}

/* ---- one CPU, interrupts off */

#define ITERS	4096

static u64 run_insns(void)
{
	u64 a = 0, b = 0, c = 0, d = 0, t0 = rdtsc_ordered();

	for (int i = 0; i < ITERS; i++)
		__asm__ __volatile__(".rept 64\n\tadd $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\tadd $1, %3\n\t.endr"
				     : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
	return rdtsc_ordered() - t0;
}

static u64 run_atomic_inc(void)
{
	static unsigned int v __cacheline_aligned;
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ITERS; i++)
		__asm__ __volatile__(".rept 8\n\tlock incl %0\n\t.endr" : "+m"(v) :: "memory");
	return rdtsc_ordered() - t0;
}

static u64 run_cmpxchg_inc(void)
{
	static unsigned int v __cacheline_aligned;
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ITERS * 8; i++) {
		unsigned int old = READ_ONCE(v);

		while (!__atomic_compare_exchange_n(&v, &old, old + 1, false, __ATOMIC_SEQ_CST,
						    __ATOMIC_RELAXED))
			;
	}
	return rdtsc_ordered() - t0;
}

static u64 run_local_lock(void)
{
	static DEFINE_SPINLOCK(opcost_lock);
	u64 t0 = rdtsc_ordered();

	for (int i = 0; i < ITERS * 8; i++) {
		spin_lock(&opcost_lock);
		spin_unlock(&opcost_lock);
	}
	return rdtsc_ordered() - t0;
}

/* Best of RUNS of fn, interrupts off; count operations a run. */
static void best_of(const char *op, u64 (*fn)(void), u64 count)
{
	u64 best = ~0ULL;

	for (int r = 0; r < RUNS; r++) {
		unsigned long flags = local_irq_save();
		u64 c = fn();

		local_irq_restore(flags);
		if (c < best)
			best = c;
	}
	report(op, best, count);
}

/* A benchmark, not a check: a cell without a figure says why. */
#define no_figure(op, why, ...)	kt_info("%s: no figure: " why, op, ##__VA_ARGS__)

/* ---- pointer chases: every line of the blocks once, in random order */

static void **chase_build(void **blocks, unsigned int nblocks, unsigned long block_size)
{
	unsigned long lpb = block_size / LINE, n = lpb * nblocks;
	u32 *perm = kmalloc(n * sizeof(u32));
	u64 seed = 0x9e3779b97f4a7c15ULL;

	if (!perm)
		return NULL;
	for (unsigned long i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned long i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		unsigned long j = opcost_rnd(&seed) % (i + 1);
		u32 x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
#define LINE_AT(k)	((void **)((char *)blocks[(k) / lpb] + ((k) % lpb) * LINE))
	for (unsigned long i = 0; i < n; i++)
		*LINE_AT(perm[i]) = LINE_AT(perm[(i + 1) % n]);
	void **head = LINE_AT(perm[0]);
#undef LINE_AT
	kfree(perm);
	return head;
}

static void chase(const char *op, void **blocks, unsigned int nblocks, unsigned long block_size,
		  int runs)
{
	unsigned long n = block_size / LINE * nblocks;
	void **head = chase_build(blocks, nblocks, block_size);
	u64 best = ~0ULL;

	if (!head) {
		no_figure(op, "no memory for the chase's order (kmalloc of one u32 a line failed)");
		return;
	}
	for (int r = 0; r < runs; r++) {
		unsigned long flags = local_irq_save();
		void **p = head;
		u64 t0 = rdtsc_ordered();

		for (unsigned long i = 0; i < n; i++)
			p = *p;
		u64 c = rdtsc_ordered() - t0;

		local_irq_restore(flags);
		if (p != head) {		/* one full cycle: also keeps the loads */
			no_figure(op, "the chase did not come back to its start");
			return;
		}
		if (c < best)
			best = c;
	}
	report(op, best, n);
}

static void chase_l2(void)
{
	void *buf = kmalloc(256 << 10);

	if (!buf) {
		no_figure("l2_hit", "kmalloc(256 KiB) failed");
		return;
	}
	chase("l2_hit", &buf, 1, 256 << 10, RUNS);
	kfree(buf);
}

static void chase_memory(void)
{
	void *blocks[CHASE_BLOCKS];
	unsigned int n = 0;

	while (n < CHASE_BLOCKS && (blocks[n] = kmalloc(CHASE_BLOCK)))
		n++;
	if (n)
		chase("main_memory", blocks, n, CHASE_BLOCK, 3);	/* a second of TCG each */
	else	/* KASAN's redzone makes the largest class one a request cannot fill */
		no_figure("main_memory", "kmalloc(4 MiB), kmalloc's largest, failed");
	while (n)
		kfree(blocks[--n]);
}

/* ---- two CPUs: a line handed back and forth */

#define HANDOFFS	4000

static volatile unsigned long pingpong __cacheline_aligned;
static volatile bool pong_stop, pong_ready;

static int pong(void *arg)
{
	WRITE_ONCE(pong_ready, true);
	while (!READ_ONCE(pong_stop)) {
		unsigned long v = READ_ONCE(pingpong);

		if (v & 1)			/* odd: CPU 0 handed it over; hand it back */
			WRITE_ONCE(pingpong, v + 1);
		cpu_relax();
	}
	return 0;
}

static void cache_transfer(void)
{
	struct task *p;
	u64 best = ~0ULL, limit = tsc_khz * 1000;	/* a second a run at most */

	if (num_online_cpus() < 2)
		return;
	pingpong = 0;
	pong_stop = false;
	pong_ready = false;
	p = kthread_create_on_cpu(pong, NULL, 1, "opcost/1");
	if (!p)
		return;
	wake_up_process(p);
	/* On a loaded host CPU 1 may take a while to run its thread at all. */
	for (int ms = 0; ms < 5000 && !READ_ONCE(pong_ready); ms += 10)
		msleep(10);
	for (int r = 0; r < RUNS && READ_ONCE(pong_ready); r++) {
		unsigned long v = READ_ONCE(pingpong);
		u64 t0 = rdtsc_ordered(), t = t0;

		for (int i = 0; i < HANDOFFS / 2 && t - t0 < limit; i++) {
			WRITE_ONCE(pingpong, v + 1);		/* odd: CPU 1's turn */
			while (READ_ONCE(pingpong) != v + 2 && (t = rdtsc()) - t0 < limit)
				cpu_relax();
			v += 2;
		}
		t = rdtsc_ordered() - t0;
		if (t >= limit)			/* CPU 1 was not there: no figure */
			continue;
		if (t < best)
			best = t;
	}
	pong_stop = true;
	kthread_join(p);
	if (best != ~0ULL)
		report("cache_transfer", best, HANDOFFS);
	else
		no_figure("cache_transfer", "CPU 1 did not answer within a second in any of %d "
			  "runs (a loaded host?)", RUNS);
}

KTEST(bench_opcost)
{
	best_of("instruction", run_insns, (u64)ITERS * 256);
	report("clock_cycle", 1, 1);
	chase_l2();
	best_of("atomic_inc", run_atomic_inc, (u64)ITERS * 8);
	best_of("cmpxchg_inc", run_cmpxchg_inc, (u64)ITERS * 8);
	chase_memory();
	best_of("cpu_local_lock", run_local_lock, (u64)ITERS * 8);
	cache_transfer();
}
