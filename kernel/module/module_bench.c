/*
 * Module benchmarks (BENCH JSON lines, never asserted; docs/modules.md):
 *
 *   bench_module_load: loading and unloading hello.ko (modules/hello.c),
 *     20 times: the load (file checks to init), and the unload in its
 *     three parts: the module's exit(), the grace period after
 *     list_del_rcu() (seed 000 Figure 8's synchronize_kernel(), the
 *     variant's part), and the free (poison, unmap, TLB shootdown).
 *     Medians and maxima, in us.
 *   bench_modlist_lookup: a reader of the module list, the symbol lookup
 *     of a backtrace (ksym_resolve() of an address in hello), as the RCU
 *     list does it and as a list under a reader-writer lock would (the
 *     same walk inside read_lock()/read_unlock() of one global rwlock),
 *     with 1 to N CPUs looking up at once: cycles per lookup and the
 *     ratio, side by side in one boot.
 *   bench_nmiprof_overhead: what profiling costs a CPU-bound load: a
 *     kernel thread on every CPU counts rounds of arithmetic while
 *     nmiprof.ko samples at 1000 Hz per CPU, in windows that alternate
 *     profiler off and on (side by side in one boot), and the throughput
 *     of the "on" windows is compared with the "off" ones.
 */
#include <ktest.h>
#include <module.h>
#include <nmi.h>
#include <sort.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <rcupdate.h>
#include <rwlock.h>
#include <ksyms.h>
#include <arch/cpu.h>
#include "module_test.h"
#include "bench/cpus_together.h"

#define LOAD_SAMPLES	20

static u64 median(u64 *v, int n)
{
	sort_u64(v, n);
	return v[n / 2];
}

KTEST(bench_module_load)
{
	u64 load[LOAD_SAMPLES], unload[LOAD_SAMPLES], gp[LOAD_SAMPLES], fr[LOAD_SAMPLES];
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	int n = 0;

	KT_ASSERT(t, !test_module_image("hello", &img, &size), "no hello.ko in the initrd");
	for (int i = -1; i < LOAD_SAMPLES; i++) {	/* -1: a warm-up */
		struct module_unload_times ut;
		u64 t0 = ktime_get_ns(), t1;
		int r = load_module(img, size, "count=0", err, sizeof(err));

		t1 = ktime_get_ns();
		KT_ASSERT(t, r == 0, "insmod hello: %s", err);
		r = unload_module("hello", 0, &ut);
		KT_ASSERT(t, r == 0, "rmmod hello: %d", r);
		if (i < 0)
			continue;
		load[n] = t1 - t0;
		unload[n] = ktime_get_ns() - t1;
		gp[n] = ut.gp_ns;
		fr[n] = ut.free_ns;
		n++;
	}
	u64 gp_med = median(gp, n), gp_max = gp[n - 1];	/* sorted by median() */

	bench_json("{\"bench\":\"module_load\",\"variant\":\"%s\",\"cpus\":%u,\"samples\":%d,"
		   "\"load_us\":%lu,\"unload_us\":%lu,\"unload_gp_us\":%lu,\"unload_free_us\":%lu,"
		   "\"unload_gp_max_us\":%lu}",
		   rcu_variant_name(), num_online_cpus(), n, (unsigned long)median(load, n) / 1000,
		   (unsigned long)median(unload, n) / 1000, (unsigned long)gp_med / 1000,
		   (unsigned long)median(fr, n) / 1000, (unsigned long)gp_max / 1000);
}

#define LOOKUPS		2000

static DEFINE_RWLOCK(bench_modlist_rw);
static unsigned long lookup_addr;

/* On each of the CPUs (cpus_together.c): LOOKUPS lookups, maybe locked. */
static void lookup_loop(void *locked)
{
	struct ksym_info info;

	for (int i = 0; i < LOOKUPS; i++) {
		if (locked) {
			read_lock(&bench_modlist_rw);
			ksym_resolve(lookup_addr, &info);	/* its own rcu_read_lock() is free */
			read_unlock(&bench_modlist_rw);
		} else {
			ksym_resolve(lookup_addr, &info);
		}
	}
}

static u64 lookup_run(unsigned int k, bool locked)
{
	return cpus_together(k, lookup_loop, locked ? (void *)1 : NULL) / LOOKUPS;
}

KTEST(bench_modlist_lookup)
{
	unsigned int ncpu = num_online_cpus();
	char err[QS_MODULE_ERRLEN];
	const void *img;
	size_t size;
	int r;

	KT_ASSERT(t, !test_module_image("hello", &img, &size), "no hello.ko in the initrd");
	r = load_module(img, size, "count=0", err, sizeof(err));
	KT_ASSERT(t, r == 0, "insmod hello: %s", err);
	lookup_addr = module_symbol_address("hello", "hello_spin") + 4;
	for (unsigned int k = 1; k <= ncpu; k = k < ncpu && k * 2 > ncpu ? ncpu : k * 2) {
		u64 rcu = lookup_run(k, false), rw = lookup_run(k, true);

		bench_json("{\"bench\":\"modlist_lookup\",\"variant\":\"%s\",\"readers\":%u,"
			   "\"rcu_cycles\":%lu,\"rwlock_cycles\":%lu,\"rwlock_over_rcu_x100\":%lu}",
			   rcu_variant_name(), k, (unsigned long)rcu, (unsigned long)rw,
			   (unsigned long)(rcu ? rw * 100 / rcu : 0));
		kt_info("%u CPUs looking up a module address: rcu %lu, rwlock %lu cycles per lookup",
			k, (unsigned long)rcu, (unsigned long)rw);
		if (k == ncpu)
			break;
	}
	KT_EXPECT(t, unload_module("hello", 0, NULL) == 0, "rmmod hello");
}

#define WINDOWS		40		/* alternating off, on, off, on, ... */
#define WINDOW_MS	50
#define PROFILE_HZ	1000

struct worker {
	volatile unsigned long rounds;
	struct task *task;
} __cacheline_aligned;

static struct worker workers[CONFIG_NR_CPUS];
static volatile bool workers_stop;

/* A CPU-bound load: arithmetic in registers, a quiescent state per round. */
static int worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned long x = (unsigned long)arg;

	while (!READ_ONCE(workers_stop)) {
		for (int i = 0; i < 256; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ __volatile__("" :: "r"(x));
		w->rounds++;
		cond_resched();
	}
	return 0;
}

static unsigned long total_rounds(void)
{
	unsigned long s = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		s += workers[cpu].rounds;
	return s;
}

KTEST(bench_nmiprof_overhead)
{
	u64 ns[2] = { 0, 0 }, rounds[2] = { 0, 0 }, nmis = 0, off_min = ~0ULL, off_max = 0;
	u64 pair_cost[WINDOWS / 2], off_rate = 0;	/* per off/on pair: 1000 + cost in 1/1000 */
	char err[QS_MODULE_ERRLEN];
	unsigned int cpu;
	const void *img;
	size_t size;
	int r;

	KT_ASSERT(t, !test_module_image("nmiprof", &img, &size), "no nmiprof.ko in the initrd");
	r = load_module(img, size, NULL, err, sizeof(err));
	KT_ASSERT(t, r == 0, "insmod nmiprof: %s", err);
	workers_stop = false;
	for_each_online_cpu(cpu) {
		workers[cpu].rounds = 0;
		workers[cpu].task = kthread_create_on_cpu(worker_fn, &workers[cpu], cpu, "cpubound/%u", cpu);
		if (workers[cpu].task)
			wake_up_process(workers[cpu].task);
	}
	msleep(50);
	for (int w = 0; w < WINDOWS; w++) {
		int on = w % 2;
		unsigned long r0, n0 = 0, n1 = 0;
		u64 t0;

		if (on) {
			r = module_ctl_call("nmiprof", NMIPROF_CTL_START, PROFILE_HZ, NULL, 0);
			KT_EXPECT(t, r == 0, "nmiprof start: %d", r);
		}
		for_each_online_cpu(cpu)
			n0 += nmi_count(cpu);
		r0 = total_rounds();
		t0 = ktime_get_ns();
		msleep(WINDOW_MS);
		r0 = total_rounds() - r0;
		t0 = ktime_get_ns() - t0;
		rounds[on] += r0;
		ns[on] += t0;
		if (!on) {	/* how much the "off" windows differ: the noise */
			off_rate = r0 * 1000000000ULL / t0;
			off_min = MIN(off_min, off_rate);
			off_max = MAX(off_max, off_rate);
		} else {	/* this window against the one just before it */
			u64 on_rate = r0 * 1000000000ULL / t0;

			pair_cost[w / 2] = 1000 + (s64)(off_rate - on_rate) * 1000 / (s64)off_rate;
		}
		for_each_online_cpu(cpu)
			n1 += nmi_count(cpu);
		if (on) {
			nmis += n1 - n0;
			module_ctl_call("nmiprof", NMIPROF_CTL_STOP, 0, NULL, 0);
		}
	}
	workers_stop = true;
	for_each_online_cpu(cpu)
		if (workers[cpu].task)
			kthread_join(workers[cpu].task);
	KT_EXPECT(t, unload_module("nmiprof", 0, NULL) == 0, "rmmod nmiprof");
	KT_ASSERT(t, rounds[0] && ns[0] && ns[1], "no work measured");
	{
		/* Rounds per second with the profiler off and on; the cost is the drop. */
		u64 off = rounds[0] * 1000000000ULL / ns[0], on = rounds[1] * 1000000000ULL / ns[1];
		long permille = (long)(1000 - on * 1000 / off);
		s64 pair = (s64)median(pair_cost, WINDOWS / 2) - 1000;	/* 1/1000 */
		u64 nmi_rate = nmis * 1000000000ULL / ns[1] / num_online_cpus();
		/* What one NMI costs the interrupted work, from the median drop. */
		u64 ns_per_nmi = pair > 0 && nmi_rate ? (u64)pair * 1000000ULL / nmi_rate : 0;

		bench_json("{\"bench\":\"nmiprof_overhead\",\"variant\":\"%s\",\"cpus\":%u,"
			   "\"hz\":%d,\"windows\":%d,\"window_ms\":%d,\"off_rounds_per_s\":%lu,"
			   "\"on_rounds_per_s\":%lu,\"nmis_per_cpu_per_s\":%lu,"
			   "\"overhead_pct\":%s%ld.%ld,\"pair_median_overhead_pct\":%s%ld.%ld,"
			   "\"us_per_nmi\":%lu.%lu,\"off_spread_pct\":%lu.%lu}",
			   rcu_variant_name(), num_online_cpus(), PROFILE_HZ, WINDOWS, WINDOW_MS,
			   (unsigned long)off, (unsigned long)on,
			   (unsigned long)nmi_rate,
			   permille < 0 ? "-" : "", (permille < 0 ? -permille : permille) / 10,
			   (permille < 0 ? -permille : permille) % 10,
			   pair < 0 ? "-" : "", (pair < 0 ? -pair : pair) / 10, (pair < 0 ? -pair : pair) % 10,
			   (unsigned long)(ns_per_nmi / 1000), (unsigned long)(ns_per_nmi / 100 % 10),
			   (unsigned long)((off_max - off_min) * 100 / off),
			   (unsigned long)((off_max - off_min) * 1000 / off % 10));
	}
}
