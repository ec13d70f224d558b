/*
 * SRCU's costs beside RCU's, in one boot (BENCH "srcu" lines, never
 * asserted; docs/rcu/srcu.md, docs/rcu/then-and-now.md):
 *
 *   ktest=bench_srcu
 *
 *   read_pair        srcu_read_lock() + srcu_read_unlock(), empty section
 *   rcu_read_pair    rcu_read_lock() + rcu_read_unlock() of the variant
 *                    built in, the same loop
 *   synchronize_srcu one grace period of an idle domain
 *   synchronize_rcu  one of the variant's, for scale
 *
 * The read pairs are the best of five runs with interrupts off (what the
 * operations cost when nothing intervenes); the grace periods the median
 * of 15 calls, since they sleep.
 */
#include <srcu.h>
#include <ktest.h>
#include <sched.h>
#include <time.h>
#include <sort.h>
#include <arch/cpu.h>
#include <arch/irq.h>

#define READ_LOOPS	20000
#define GP_CALLS	15

static struct srcu_struct bench_ss;

static void srcu_bench_emit(const char *op, u64 cycles, unsigned long count)
{
	u64 ns_x1000 = cycles_to_ns(cycles * 1000) / count;

	bench_json("{\"bench\":\"srcu\",\"op\":\"%s\",\"variant\":\"%s\",\"ps\":%lu,"
		   "\"cycles_x100\":%lu,\"count\":%lu}", op, rcu_variant_name(),
		   (unsigned long)ns_x1000, (unsigned long)(cycles * 100 / count), count);
	kt_info("%-16s %8lu.%03lu ns", op, (unsigned long)(ns_x1000 / 1000),
		(unsigned long)(ns_x1000 % 1000));
}

static u64 bench_srcu_pairs(void)
{
	u64 best = ~0ULL;
	int run, i;

	for (run = 0; run < 5; run++) {
		unsigned long flags = local_irq_save();
		u64 t0 = rdtsc();

		for (i = 0; i < READ_LOOPS; i++)
			srcu_read_unlock(&bench_ss, srcu_read_lock(&bench_ss));
		t0 = rdtsc() - t0;
		local_irq_restore(flags);
		if (t0 < best)
			best = t0;
	}
	return best;
}

static u64 bench_rcu_pairs(void)
{
	u64 best = ~0ULL;
	int run, i;

	for (run = 0; run < 5; run++) {
		unsigned long flags = local_irq_save();
		u64 t0 = rdtsc();

		for (i = 0; i < READ_LOOPS; i++) {
			rcu_read_lock();
			barrier();
			rcu_read_unlock();
		}
		t0 = rdtsc() - t0;
		local_irq_restore(flags);
		if (t0 < best)
			best = t0;
	}
	return best;
}

static u64 bench_gp_median(bool srcu)
{
	u64 t[GP_CALLS];
	int i;

	for (i = 0; i < GP_CALLS; i++) {
		u64 t0 = rdtsc();

		if (srcu)
			synchronize_srcu(&bench_ss);
		else
			synchronize_rcu();
		t[i] = rdtsc() - t0;
	}
	sort_u64(t, GP_CALLS);
	return t[GP_CALLS / 2];
}

KTEST(bench_srcu)
{
	KT_EXPECT(t, init_srcu_struct(&bench_ss, "bench") == 0, "init_srcu_struct");
	srcu_bench_emit("read_pair", bench_srcu_pairs(), READ_LOOPS);
	srcu_bench_emit("rcu_read_pair", bench_rcu_pairs(), READ_LOOPS);
	srcu_bench_emit("synchronize_srcu", bench_gp_median(true), 1);
	srcu_bench_emit("synchronize_rcu", bench_gp_median(false), 1);
	cleanup_srcu_struct(&bench_ss);
}
