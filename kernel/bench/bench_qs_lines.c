/*
 * bench_qs_lines: the window in which the coherence plugin counts the
 * cache lines each RCU variant's quiescent states and grace periods
 * write (tools/c2c.py qslines, docs/rcu/qs-lines.md). Counted, not
 * timed, and by the plugin, not by the kernel: seed 000 section 6 and
 * Table 2 count the memory references each design adds, and the plugin
 * sees every store the variant's code makes without a line of it in the
 * variant.
 *
 * A light reader load (a thread per CPU that takes a short read-side
 * section, then sleeps a millisecond) keeps every CPU passing quiescent
 * states the ordinary way while bench.qs_gps synchronize_kernel() calls
 * run; the BENCH line says how many grace periods completed in the
 * window and which plugin cell it was. Without c2c=1 it only runs them.
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

KTEST(bench_qs_lines)
{
	struct task *readers[CONFIG_NR_CPUS] = { NULL };
	unsigned long gps;
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
	gps = rcu_gp_completed();
	for (unsigned long i = 0; i < qs_gps; i++)
		synchronize_kernel();
	gps = rcu_gp_completed() - gps;
	if (c2c_enabled)
		on_each_cpu(qs_cell_end, NULL, true);
	readers_stop = true;
	for_each_online_cpu(cpu)
		kthread_join(readers[cpu]);

	bench_json("{\"bench\":\"qs_lines\",\"variant\":\"%s\",\"cpus\":%u,"
		   "\"grace_periods\":%lu,\"c2c_cell\":%u}",
		   rcu_variant_name(), num_online_cpus(), gps, qs_cell);
	kt_info("%lu grace periods in the window (c2c cell %u)", gps, qs_cell);
}
