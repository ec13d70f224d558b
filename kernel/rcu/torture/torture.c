/*
 * rcutorture: a torture test for the RCU variant that is built in,
 * modelled on Linux's kernel/rcu/rcutorture.c (docs/rcu/torture.md).
 *
 * This file holds the parameters, the run itself and the KTESTs:
 *
 *   ktest=torture_rcu                  passes if torture reports SUCCESS
 *   ktest=torture_rcu_expect_failure   passes if torture reports FAILURE
 *                                      caught by its readers (the busted
 *                                      variant's test; manual only)
 *
 * A run starts the writer, fake writers and rcu_barrier() tester
 * (torture_writer.c), the readers (torture_readers.c) and the callback
 * flood (torture_flood.c), prints a stats block every stat_interval
 * seconds, and checks liveness there: the writer's version and the
 * grace-period count must both have risen since the previous pass. After
 * torture.duration seconds everything stops, every element and callback
 * is accounted for, and the run ends with
 *
 *   rcu-torture: SUCCESS          or   rcu-torture: FAILURE: <why>
 *   rcu-torture: summary: variant=... cpus=... preemption=... gps=... gps/s=...
 */
#include "torture.h"
#include "../rcu_internal.h"
#include <ktest.h>
#include <cmdline.h>
#include <kmalloc.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <string.h>
#include <printk.h>
#include <errno.h>
#include <arch/cpu.h>

struct torture_params torture_params = {
	.duration_s = 3,
	.stat_interval_s = 1,
	.nreaders = 0,
	.nfakewriters = 2,
	.irqreader = 1,
	.flood = 100000,
	.flood_bound = 10000,
	.barrier_cbs = 16,
	.long_delay_us = 40000,
	.long_every = 1024,
	.stutter_ms = 1000,
	.segments = 0,
	.gp_mask = TORTURE_GP_ALL,
	.fwd = 0,
	.fwd_pct = 50,
	.read_exit = 0,
};

struct torture_errors torture_errors;
volatile bool torture_stopping;

/* ---------------------------------------------------------------- parameters */

#define TORTURE_PARAM(name, field, lo, hi, help)				\
	CMDLINE_ULONG_TAGGED("torture." name, torture_##field, torture_params.field, lo, hi, help)

TORTURE_PARAM("duration", duration_s, 1, 86400,
	      "torture.duration=S: rcu_torture runs S seconds (default 3, 1..86400)");
TORTURE_PARAM("stat_interval", stat_interval_s, 1, 3600,
	      "torture.stat_interval=S: stats and liveness check every S s (default 1, 1..3600)");
TORTURE_PARAM("nreaders", nreaders, 0, 64,
	      "torture.nreaders=N: reader threads, 0 = one per CPU (default 0, 0..64)");
TORTURE_PARAM("nfakewriters", nfakewriters, 0, 16,
	      "torture.nfakewriters=N: grace-period-only writers (default 2, 0..16)");
TORTURE_PARAM("irqreader", irqreader, 0, 1,
	      "torture.irqreader=0|1: readers in per-CPU timer handlers and IPIs (default 1)");
TORTURE_PARAM("flood", flood, 0, 100000000,
	      "torture.flood=N: callbacks in the flood test, 0 = none (default 100000, 0..100000000)");
TORTURE_PARAM("flood_bound", flood_bound, 16, 10000000,
	      "torture.flood_bound=N: most flood callbacks pending (default 10000, 16..10000000)");
TORTURE_PARAM("barrier", barrier_cbs, 0, 64,
	      "torture.barrier=N: callbacks per CPU per rcu_barrier() round, 0 = off (default 16, 0..64)");
TORTURE_PARAM("long_delay", long_delay_us, 0, 1000000,
	      "torture.long_delay=US: longest reader delay, 1 read in torture.long_every "
	      "(default 40000, 0..1000000)");
TORTURE_PARAM("long_every", long_every, 1, 1000000,
	      "torture.long_every=N: one thread read in N takes the long delay (default 1024, 1..1000000)");
TORTURE_PARAM("stutter", stutter_ms, 0, 60000,
	      "torture.stutter=MS: run about MS ms, pause about MS/4 (every CPU idles), "
	      "0 = never pause (default 1000, 0..60000)");

TORTURE_PARAM("segments", segments, 0, 1,
	      "torture.segments=0|1: reader-segment threads, sections extended by irqs-, "
	      "softirqs- and preemption-off segments (default 0)");
TORTURE_PARAM("gp", gp_mask, 1, TORTURE_GP_ALL,
	      "torture.gp=MASK: the grace-period kinds: 1 call_rcu, 2 synchronize, "
	      "4 expedited (held to a long reader), 8 polled, 16 conditional, "
	      "32 SRCU polled (default 63, all)");

TORTURE_PARAM("fwd", fwd, 0, 1,
	      "torture.fwd=0|1: forward-progress test, an unbounded call_rcu() flood beside a "
	      "reader-free loop (default 0)");
TORTURE_PARAM("fwd_pct", fwd_pct, 1, 100,
	      "torture.fwd_pct=P: the flood lasts P% of rcu_stall_timeout (default 50)");

/*
 * The seed of every thread's random numbers. Printed in the start line,
 * whichever way it was chosen: in the deterministic mode (docs/replay.md)
 * a run is a function of its command line, and a seed sweep
 * (make torture SEEDS=1-50) explores other interleavings on purpose.
 */
TORTURE_PARAM("seed", seed, 0, ~0UL,
	      "torture.seed=N: the random numbers' seed, 0 = drawn from the TSC (default 0)");

TORTURE_PARAM("read_exit", read_exit, 0, 32,
	      "torture.read_exit=N: every ~100 ms, N tasks that read, queue a callback and exit "
	      "(default 0 = off, 0..32)");

/* ---------------------------------------------------------------- helpers */

/*
 * This run's seed (rcu_torture_run() draws it); 0 outside a run. Drawn
 * from the time since boot, not the raw TSC: a run stopped under gdb
 * before the TSC's calibration (make replay STOP=) starts its TSC at
 * another value, with every time since the calibration unchanged.
 */
static unsigned long torture_seed;

static unsigned long torture_draw_seed(void)
{
	return ktime_get_ns() | 1;
}

void torture_rand_init(struct torture_rand *r, unsigned long salt)
{
	unsigned long seed = torture_seed ? torture_seed : torture_draw_seed();

	r->state = seed ^ (salt * 0x9e3779b97f4a7c15UL) ^ 0x2545f4914f6cdd1dUL;
	if (!r->state)
		r->state = 1;
}

/* xorshift64* (Marsaglia; Vigna's multiplier). */
unsigned long torture_random(struct torture_rand *r)
{
	u64 x = r->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return (x * 0x2545f4914f6cdd1dUL) >> 16;
}

void torture_sleep(long j)
{
	if (j <= 0)
		cond_resched();
	else
		schedule_timeout_uninterruptible(j);
}

/*
 * Stutter, as Linux's rcutorture does it: every torture thread stops now
 * and then, all at once, so that every CPU goes idle, and then they all
 * start again together. Grace periods must end across the idle spell and
 * survive the rush back (the idle loop's and the wake-up's quiescent
 * states, timers that stop and restart).
 */
static volatile bool torture_stutter_paused;
static struct task *stutter_task;
static unsigned long torture_stutters;

void torture_stutter_wait(void)
{
	while (READ_ONCE(torture_stutter_paused) && !READ_ONCE(torture_stopping))
		schedule_timeout_uninterruptible(1);
}

static int torture_stutter(void *arg)
{
	struct torture_rand r;
	unsigned long run = torture_params.stutter_ms, x;

	torture_rand_init(&r, 99);
	while (!READ_ONCE(torture_stopping)) {
		x = torture_random(&r);
		msleep(run / 2 + x % (run + 1));
		if (READ_ONCE(torture_stopping))
			break;
		WRITE_ONCE(torture_stutter_paused, true);
		torture_stutters++;
		msleep(run / 8 + (x >> 16) % (run / 4 + 1));
		WRITE_ONCE(torture_stutter_paused, false);
	}
	WRITE_ONCE(torture_stutter_paused, false);
	return 0;
}

static atomic_t torture_reports;
#define TORTURE_MAX_REPORTS	20

void torture_report(const char *fmt, ...)
{
	char buf[200];
	va_list ap;
	int n = atomic_inc_return(&torture_reports);

	if (n > TORTURE_MAX_REPORTS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk("rcu-torture: ERROR: %s%s\n", buf,
	       n == TORTURE_MAX_REPORTS ? " (further errors only counted)" : "");
}

static const struct {
	const char *name;
	size_t off;
	bool reader;		/* caught by the readers' checks */
} error_kinds[] = {
	{ "pipe", offsetof(struct torture_errors, pipe), true },
	{ "gp", offsetof(struct torture_errors, gp), true },
	{ "freed", offsetof(struct torture_errors, mark), true },
	{ "reused", offsetof(struct torture_errors, reuse), true },
	{ "barrier", offsetof(struct torture_errors, barrier), false },
	{ "poll", offsetof(struct torture_errors, poll), false },
	{ "lost", offsetof(struct torture_errors, cb_lost), false },
	{ "flood", offsetof(struct torture_errors, flood), false },
	{ "stall", offsetof(struct torture_errors, stall), false },
	{ "nomem", offsetof(struct torture_errors, alloc), false },
	{ "segment", offsetof(struct torture_errors, segment), true },
	{ "hotplug", offsetof(struct torture_errors, hotplug), false },
	{ "exp", offsetof(struct torture_errors, exp), false },
	{ "srcu", offsetof(struct torture_errors, srcu), false },
};

static long error_count(int k)
{
	return atomic_long_read((atomic_long_t *)((char *)&torture_errors + error_kinds[k].off));
}

long torture_error_total(void)
{
	long n = 0;

	for (unsigned int k = 0; k < ARRAY_SIZE(error_kinds); k++)
		n += error_count(k);
	return n;
}

static long torture_reader_errors(void)
{
	long n = 0;

	for (unsigned int k = 0; k < ARRAY_SIZE(error_kinds); k++)
		if (error_kinds[k].reader)
			n += error_count(k);
	return n;
}

/* Callbacks queued and invoked, all CPUs, as the variant counts them. */
static void rcu_cb_totals(unsigned long *queued, unsigned long *invoked)
{
	unsigned int cpu;

	*queued = *invoked = 0;
	for_each_possible_cpu(cpu) {
		*queued += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).queued);
		*invoked += READ_ONCE(per_cpu(rcu_cpu_stats, cpu).invoked);
	}
}

/* ---------------------------------------------------------------- stats */

struct torture_snapshot {
	u64 ns;
	unsigned long gps, cbq, cbi, version;
};

static void take_snapshot(struct torture_snapshot *s)
{
	s->ns = ktime_get_ns();
	s->gps = rcu_gp_completed();
	rcu_cb_totals(&s->cbq, &s->cbi);
	s->version = READ_ONCE(rcu_torture_current_version);
}

static void print_hist(const char *what, const unsigned long *h)
{
	char buf[256];
	int n = 0;

	for (int i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		n += snprintf(buf + n, sizeof(buf) - n, " %lu", h[i]);
	printk("rcu-torture: %s:%s\n", what, buf);
}

static void torture_stats_print(const struct torture_snapshot *start, const char *tag)
{
	struct torture_snapshot now;
	unsigned long pipe[RCU_TORTURE_PIPE_LEN + 1], batch[RCU_TORTURE_PIPE_LEN + 1];
	unsigned long wc[RCU_TORTURE_PIPE_LEN + 1], reads, treads;
	char ebuf[200];
	int n = 0;

	take_snapshot(&now);
	torture_reader_hist(pipe, batch, &reads, &treads);
	for (int i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
		wc[i] = atomic_long_read(&torture_wstats.wcount[i]);
	printk("rcu-torture: %s t=%lums ver=%lu rtc=%p gps=%lu cbs=%lu/%lu "
	       "rta=%ld rtf=%ld reads=%lu/%lu\n",
	       tag, (now.ns - start->ns) / 1000000, now.version, rcu_access_pointer(rcu_torture_current),
	       now.gps - start->gps, now.cbq - start->cbq, now.cbi - start->cbi,
	       atomic_long_read(&torture_wstats.alloc), atomic_long_read(&torture_wstats.free),
	       reads, treads);
	printk("rcu-torture: %s retire=%ld/%ld/%ld/%ld/%ld fake=%ld barrier=%ld "
	       "exp-long=%ld srcu=%ld/%ld flood=%ld/%ld/%lu\n", tag,
	       atomic_long_read(&torture_wstats.by_call_rcu),
	       atomic_long_read(&torture_wstats.by_sync),
	       atomic_long_read(&torture_wstats.by_exp),
	       atomic_long_read(&torture_wstats.by_poll),
	       atomic_long_read(&torture_wstats.by_cond),
	       atomic_long_read(&torture_wstats.fake_ops),
	       atomic_long_read(&torture_wstats.barrier_rounds),
	       atomic_long_read(&torture_wstats.exp_long),
	       atomic_long_read(&torture_srcu_polls), atomic_long_read(&torture_srcu_reads),
	       atomic_long_read(&torture_fstats.queued),
	       atomic_long_read(&torture_fstats.invoked), torture_params.flood);
	print_hist("Reader Pipe", pipe);
	print_hist("Reader Batch", batch);
	print_hist("Pipe Circulation", wc);
	for (unsigned int k = 0; k < ARRAY_SIZE(error_kinds); k++)
		n += snprintf(ebuf + n, sizeof(ebuf) - n, " %s=%ld", error_kinds[k].name,
			      error_count(k));
	printk("rcu-torture: errors:%s\n", ebuf);
}

/* ---------------------------------------------------------------- the run */

static void torture_reset(void)
{
	unsigned int cpu;

	memset(&torture_errors, 0, sizeof(torture_errors));
	memset(&torture_wstats, 0, sizeof(torture_wstats));
	memset(&torture_fstats, 0, sizeof(torture_fstats));
	for_each_possible_cpu(cpu)
		memset(&per_cpu(torture_rstats, cpu), 0, sizeof(struct torture_reader_stats));
	atomic_set(&torture_reports, 0);
	RCU_INIT_POINTER(rcu_torture_current, NULL);
	rcu_torture_current_version = 0;
	torture_stopping = false;
	torture_stutter_paused = false;
	torture_stutters = 0;
}

/*
 * Liveness: the writer and grace periods moved on since the last check.
 * Checked at stats passes at least a second apart, longer when readers may
 * hold sections for long (torture.long_delay): a grace period must wait
 * for them, and so may the writer, without being stalled. A sanitizer
 * build sends every access through its runtime, so an update can take a
 * second by itself: liveness, not speed, is checked here, and such a
 * build gets CONFIG_SANITIZER_SLOWDOWN times the window (Kconfig).
 */
static void torture_check_progress(struct torture_snapshot *last)
{
	struct torture_snapshot now;
	u64 window_ns = (1000000000ULL + 4000ULL * torture_params.long_delay_us) *
			CONFIG_SANITIZER_SLOWDOWN;

	take_snapshot(&now);
	if (now.ns - last->ns < window_ns)
		return;
	if (now.version == last->version) {
		atomic_long_inc(&torture_errors.stall);
		torture_report("writer stalled: version %lu for %lu ms", now.version,
			       (now.ns - last->ns) / 1000000);
	}
	if (now.gps == last->gps) {
		atomic_long_inc(&torture_errors.stall);
		torture_report("no grace period completed in %lu ms (rcu_gp_completed() = %lu)",
			       (now.ns - last->ns) / 1000000, now.gps);
	}
	*last = now;
}

static void torture_why(char *why, size_t len)
{
	int n = 0;

	why[0] = 0;
	for (unsigned int k = 0; k < ARRAY_SIZE(error_kinds); k++) {
		long c = error_count(k);

		if (c && n < (int)len)
			n += snprintf(why + n, len - n, "%s%s=%ld", n ? " " : "",
				      error_kinds[k].name, c);
	}
}

/* One torture run; true on SUCCESS. why gets the reasons for a FAILURE. */
static bool rcu_torture_run(char *why, size_t len)
{
	struct torture_snapshot start, last, stop, end;
	unsigned long dur_ms = torture_params.duration_s * 1000;
	unsigned long step_ms = torture_params.stat_interval_s * 1000;
	unsigned long reads, treads, pipe[RCU_TORTURE_PIPE_LEN + 1], batch[RCU_TORTURE_PIPE_LEN + 1];
	unsigned long gps, gps_per_s, ms;
	bool started, stopped;

	torture_reset();
	torture_seed = torture_params.seed ? torture_params.seed : torture_draw_seed();
	printk("rcu-torture: start: variant=%s cpus=%u preemption=%s duration=%lus seed=%lu "
	       "readers=%lu fakewriters=%lu irqreader=%lu flood=%lu bound=%lu barrier=%lu "
	       "stutter=%lums poison=%s\n", rcu_variant_name(), num_online_cpus(),
	       preempt_model_name(), torture_params.duration_s, torture_seed,
	       torture_params.nreaders ? torture_params.nreaders : num_online_cpus(),
	       torture_params.nfakewriters, torture_params.irqreader, torture_params.flood,
	       torture_params.flood_bound, torture_params.barrier_cbs, torture_params.stutter_ms,
#ifdef CONFIG_DEBUG_KMALLOC_POISON
	       "on"
#else
	       "off (freed elements are caught only by their version)"
#endif
	       );
	take_snapshot(&start);
	last = start;
	started = !torture_writer_start() && !torture_readers_start() &&
		  !torture_segments_start() && !torture_flood_start() &&
		  !torture_fwd_start() && !torture_readexit_start() &&
		  !torture_srcu_start() && !torture_onoff_start();
	if (started && torture_params.stutter_ms) {
		stutter_task = kthread_run(torture_stutter, NULL, "rcu_torture_stutter");
		started = stutter_task != NULL;
	}
	if (!started) {
		atomic_long_inc(&torture_errors.alloc);
		torture_report("could not start the torture threads");
	}
	/*
	 * Stats passes at multiples of stat_interval from the start; a late
	 * wake-up skips to the next multiple. Liveness is judged only over a
	 * pass that lasted (nearly) a whole interval.
	 */
	while (started) {
		unsigned long now_ms = (ktime_get_ns() - start.ns) / 1000000;

		if (now_ms >= dur_ms)
			break;
		msleep(MIN((now_ms / step_ms + 1) * step_ms, dur_ms) - now_ms);
		torture_stats_print(&start, "stats");
		if (ktime_get_ns() - last.ns >= step_ms * 900000UL)
			torture_check_progress(&last);
	}

	take_snapshot(&stop);		/* the grace-period rate is the torture phase's */
	WRITE_ONCE(torture_stopping, true);
	if (stutter_task) {
		kthread_join(stutter_task);
		stutter_task = NULL;
	}
	torture_onoff_stop();		/* every CPU back before anything drains */
	torture_readers_stop();
	torture_segments_stop();
	torture_readexit_stop();
	torture_srcu_stop();
	stopped = torture_writer_stop();
	torture_flood_stop(MAX(30UL, torture_params.duration_s));
	torture_fwd_stop();
	if (stopped)
		torture_writer_drain();
	else			/* grace periods have stopped: waiting would hang */
		printk("rcu-torture: writers stuck: elements and callbacks not drained\n");
	take_snapshot(&end);
	torture_stats_print(&start, "end");

	torture_reader_hist(pipe, batch, &reads, &treads);
	ms = (stop.ns - start.ns) / 1000000;
	gps = stop.gps - start.gps;
	gps_per_s = ms ? gps * 1000 / ms : 0;
	torture_why(why, len);
	if (torture_error_total())
		printk("rcu-torture: FAILURE: %s\n", why);
	else
		printk("rcu-torture: SUCCESS\n");
	printk("rcu-torture: summary: variant=%s cpus=%u preemption=%s duration=%lums gps=%lu "
	       "gps/s=%lu cbs-queued=%lu cbs-invoked=%lu reads=%lu timer-reads=%lu "
	       "updates=%lu flood=%ld/%lu errors=%ld\n",
	       rcu_variant_name(), num_online_cpus(), preempt_model_name(), ms, gps, gps_per_s,
	       end.cbq - start.cbq, end.cbi - start.cbi, reads, treads, end.version,
	       atomic_long_read(&torture_fstats.invoked), torture_params.flood,
	       torture_error_total());
	{
		unsigned long irq, longr, gpw, cbr;

		torture_reader_mix(&irq, &longr, &gpw, &cbr);
		printk("rcu-torture: reads: %lu thread, %lu timer (softirq), %lu IPI (hard IRQ); "
		       "%lu long, %lu waited for a grace period to begin, %lu queued a callback "
		       "inside; %lu stutters\n", reads, treads, irq, longr, gpw, cbr, torture_stutters);
	}
	if (rcu_read_side_preemptible()) {
		unsigned long np, nm;

		torture_reader_preemptions(&np, &nm);
		printk("rcu-torture: preemptible readers: %lu preempted inside a section, "
		       "%lu of them migrated\n", np, nm);
	}
	if (torture_params.flood && torture_fstats.end_ns > torture_fstats.start_ns) {
		u64 fns = torture_fstats.end_ns - torture_fstats.start_ns;

		printk("rcu-torture: flood: %lu callbacks in %lu ms (%lu/s), "
		       "pending max %ld (bound %lu), kmalloc objects max +%ld (bound %lu), "
		       "rcu_pending_callbacks() max %ld (bound %lu), %lu throttles\n",
		       torture_params.flood, fns / 1000000,
		       torture_params.flood * 1000000000UL / fns,
		       torture_fstats.max_pending, torture_params.flood_bound,
		       torture_fstats.max_objects,
		       torture_params.flood_bound + TORTURE_FLOOD_SLACK,
		       torture_fstats.max_rcu_pending,
		       2 * torture_params.flood_bound + TORTURE_FLOOD_SLACK,
		       torture_fstats.throttles);
	}
	return !torture_error_total();
}

/* ---------------------------------------------------------------- KTESTs */

KTEST(torture_rcu)
{
	char why[200];

	KT_EXPECT(t, rcu_torture_run(why, sizeof(why)), "rcu-torture: FAILURE: %s", why);
}

/*
 * For the busted variant (configs/rcu_busted_defconfig): this test passes
 * when torture fails, and only if its readers caught the failure (an
 * element aged or freed under a reader), not by a time-out or stall.
 */
KTEST_MANUAL(torture_rcu_expect_failure)
{
	char why[200];
	bool ok = rcu_torture_run(why, sizeof(why));

	KT_EXPECT(t, !ok, "rcu-torture reported SUCCESS; this variant should fail");
	KT_EXPECT(t, ok || torture_reader_errors() > 0,
		  "rcu-torture failed, but its readers caught nothing: %s", why);
}
