/*
 * bench_qs_lines: the cache lines one quiescent state writes, counted,
 * not timed (kernel/rcu/qs_lines.h marks each variant's quiescent-state
 * path; docs/rcu/qs-lines.md says what each design writes).
 *
 * A light reader load (a thread per CPU that takes a short read-side
 * section, then sleeps a millisecond) keeps every CPU passing quiescent
 * states the ordinary way; counting is switched on for a fixed number of
 * synchronize_kernel() calls and off again, and one BENCH line gives, per
 * quiescent state reported, the distinct lines written: private (this
 * CPU's own data), shared (data other CPUs write: masks, counters,
 * locks), their total, and the most that one report wrote; and how many
 * distinct shared lines were written, by at most how many CPUs each.
 */
#include <ktest.h>
#include <rcupdate.h>
#include <rcu_test.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <cmdline.h>
#include <c2c_mark.h>

static unsigned long qs_gps = 20;
CMDLINE_ULONG("bench.qs_gps", qs_gps, 1, 1000,
	      "bench.qs_gps=N: synchronize_kernel() calls bench_qs_lines counts over "
	      "(default 20, 1..1000)");

static volatile bool readers_stop;

static int light_reader(void *arg)
{
	while (!READ_ONCE(readers_stop)) {
		rcu_read_lock();
		udelay(10);
		rcu_read_unlock();
		msleep(1);
	}
	return 0;
}

/*
 * Under the coherence plugin (c2c=1), the counted grace periods are one
 * cell on every CPU at once: the quiescent states are reported from each
 * CPU's tick, softirqs and kthreads, not from this thread, so the cell
 * is opened and closed on each CPU by a cross-call, and everything a CPU
 * runs in between counts.
 */
static unsigned int qs_cell;

static void qs_cell_begin(void *arg)
{
	c2c_cell_begin(qs_cell, (const char *)arg);
}

static void qs_cell_end(void *arg)
{
	c2c_cell_end(qs_cell);
}

/* Lines per quiescent state, in hundredths. */
static unsigned long per_qs_x100(unsigned long lines, unsigned long qs)
{
	return qs ? lines * 100 / qs : 0;
}

KTEST(bench_qs_lines)
{
	struct task *readers[CONFIG_NR_CPUS] = { NULL };
	struct qs_lines_totals tot;
	struct qs_lines_line line;
	unsigned long gp0;
	unsigned int cpu;

	readers_stop = false;
	for_each_online_cpu(cpu) {
		readers[cpu] = kthread_create_on_cpu(light_reader, NULL, cpu, "qsread/%u", cpu);
		KT_ASSERT(t, readers[cpu], "no reader thread");
		wake_up_process(readers[cpu]);
	}
	synchronize_kernel();		/* the readers running before counting starts */
	if (c2c_enabled) {
		qs_cell = c2c_cell_id();
		on_each_cpu(qs_cell_begin, (void *)"qs_lines", true);
	}
	gp0 = rcu_gp_completed();
	qs_lines_enable(true);
	for (unsigned long i = 0; i < qs_gps; i++)
		synchronize_kernel();
	qs_lines_enable(false);
	gp0 = rcu_gp_completed() - gp0;
	if (c2c_enabled)
		on_each_cpu(qs_cell_end, NULL, true);
	qs_lines_read(&tot);
	for (unsigned int i = 0; qs_lines_line(i, &line); i++)
		kt_info("qs_lines line %#lx %s reports %lu writers %#lx", line.addr,
			line.shared ? "shared" : "private", line.reports, line.writers);
	readers_stop = true;
	for_each_online_cpu(cpu)
		kthread_join(readers[cpu]);

	unsigned long all = tot.private_lines + tot.shared_lines;

	bench_json("{\"bench\":\"qs_lines\",\"variant\":\"%s\",\"cpus\":%u,"
		   "\"grace_periods\":%lu,\"reports\":%lu,\"qs\":%lu,"
		   "\"private_x100\":%lu,\"shared_x100\":%lu,\"total_x100\":%lu,"
		   "\"max_lines\":%lu,\"max_shared\":%lu,\"overflows\":%lu,"
		   "\"shared_lines_seen\":%lu,\"max_writers\":%lu,\"c2c_cell\":%u}",
		   rcu_variant_name(), num_online_cpus(), gp0,
		   tot.reports, tot.qs, per_qs_x100(tot.private_lines, tot.qs),
		   per_qs_x100(tot.shared_lines, tot.qs), per_qs_x100(all, tot.qs),
		   tot.max_lines, tot.max_shared, tot.overflows, tot.shared_lines_seen,
		   tot.max_writers, qs_cell);
	kt_info("%lu quiescent states in %lu reports: %lu.%02lu lines each (%lu.%02lu private, "
		"%lu.%02lu shared), at most %lu", tot.qs, tot.reports,
		per_qs_x100(all, tot.qs) / 100, per_qs_x100(all, tot.qs) % 100,
		per_qs_x100(tot.private_lines, tot.qs) / 100,
		per_qs_x100(tot.private_lines, tot.qs) % 100,
		per_qs_x100(tot.shared_lines, tot.qs) / 100,
		per_qs_x100(tot.shared_lines, tot.qs) % 100, tot.max_lines);
	kt_info("%lu shared lines written, by at most %lu CPUs each", tot.shared_lines_seen,
		tot.max_writers);
}
