/*
 * amlat on Quiescent: seed 003's scheduling-latency test (section 3 and
 * Table 1; docs/rcu/realtime.md) and the callback-flood check of the
 * realtime options.
 *
 * A SCHED_FIFO task sleeps one tick at a time; the tick wakes it
 * (sched_sleep_tick(), which stamps wake_tsc) and the task records how
 * late it ran: the time from that wake-up to its first instruction, which
 * is what the interrupt exit spent in softirqs, RCU's tasklet among them,
 * before the switch. Right after each sample the task raises a load
 * tasklet, run at once as a real softirq by local_bh_enable(): it queues
 * amlat.load callbacks with call_rcu_rt() (the paper's dcache and route
 * cache, Figures 10 and 12), each of which does amlat.work units of work
 * and frees its element. So the load itself never sits between a wake-up
 * and the task: what the task waits for is the callbacks' invocation,
 * one grace period's worth at a time.
 *
 * The run repeats for each row of seed 003 Table 1 that is built in
 * (kernel/rcu/rt.h: base, krcud, direct, throttle), switching the options
 * at run time, so the rows are measured side by side in one boot.
 *
 *   ktest=bench_amlat     BENCH lines: {"bench":"amlat",...} per row with
 *                         mean/stddev/p99/max lateness and callbacks per
 *                         grace period, and {"bench":"amlat_hist",...}
 *                         (tools/amlat.py makes the table and the PNG)
 *   ktest=rcu_rt_flood    every row under a heavier load with a real-time
 *                         task on every CPU: each callback queued is
 *                         invoked exactly once, and the option did act
 *                         (krcud took callbacks, throttling plugged)
 *
 * Both are manual tests (named exactly), being long.
 */
#include <ktest.h>
#include <cmdline.h>
#include <sort.h>
#include <rcupdate.h>
#include <interrupt.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <kmalloc.h>
#include <atomic.h>
#include <string.h>
#include <printk.h>
#include <arch/cpu.h>
#include <rcu_test.h>
#include <rcu_rt.h>

#define AMLAT_MAGIC		0xa3a1a7a3a1a7a3a1UL
#define AMLAT_DEAD		0xdeadde1dUL
#define AMLAT_MAX_SAMPLES	16384
#define AMLAT_HIST_BUCKETS	64
#define AMLAT_WARMUP_MS		300
#define AMLAT_DRAIN_S		30

static unsigned long amlat_seconds = 3;
static unsigned long amlat_load = 1000;
static unsigned long amlat_burst = 1;
static unsigned long amlat_work = 100;
static unsigned long amlat_hist_us = 25;

#define AMLAT_PARAM(name, var, lo, hi, help)	CMDLINE_ULONG("amlat." name, var, lo, hi, help)

AMLAT_PARAM("seconds", amlat_seconds, 1, 60,
	    "amlat.seconds=S: bench_amlat measures each row S seconds (default 3, 1..60)");
AMLAT_PARAM("load", amlat_load, 0, 100000,
	    "amlat.load=N: callbacks the load queues per tick (default 1000, 0..100000)");
AMLAT_PARAM("burst", amlat_burst, 1, 1000,
	    "amlat.burst=K: queue load*K callbacks every K ticks instead (default 1, 1..1000)");
AMLAT_PARAM("work", amlat_work, 0, 1000000,
	    "amlat.work=N: work units per callback (default 100, 0..1000000)");
AMLAT_PARAM("hist_us", amlat_hist_us, 1, 10000,
	    "amlat.hist_us=US: histogram bucket width (default 25, 1..10000)");

struct amlat_cb {
	struct rcu_head rh;
	unsigned long magic;
};

/* One run: a real-time task and a load tasklet per CPU taking part. */
struct amlat_run {
	unsigned long load;		/* callbacks per tick per CPU */
	unsigned long burst;		/* ... queued load*burst every burst ticks */
	unsigned long bound;		/* no load while more are pending */
	volatile bool stop, recording;
	cpumask_t cpus;
	atomic_long_t queued, invoked, corrupt, skipped, ticks;
	int n;				/* samples (CPU 0's task) */
	u64 ns[AMLAT_MAX_SAMPLES];
};

static struct amlat_run amlat;
static DEFINE_PER_CPU(struct tasklet_struct, amlat_tasklet);
static DEFINE_PER_CPU(unsigned long, amlat_tick);
static volatile unsigned long amlat_sink;

static void amlat_callback(void *arg)
{
	struct amlat_cb *c = arg;

	if (c->magic != AMLAT_MAGIC) {
		atomic_long_inc(&amlat.corrupt);
		return;				/* invoked twice, or never queued */
	}
	c->magic = AMLAT_DEAD;
	for (unsigned long i = 0; i < amlat_work; i++)	/* the callback's own work */
		WRITE_ONCE(amlat_sink, amlat_sink + i);
	kfree(c);
	atomic_long_inc(&amlat.invoked);
}

/* The load: softirq context (TASKLET_SOFTIRQ), on the CPU that raised it. */
static void amlat_load_tasklet(unsigned long data)
{
	if (++this_cpu(amlat_tick) % amlat.burst)
		return;
	if (rcu_pending_callbacks() > amlat.bound) {
		atomic_long_inc(&amlat.skipped);	/* a throttled CPU is behind */
		return;
	}
	for (unsigned long i = 0; i < amlat.load * amlat.burst; i++) {
		struct amlat_cb *c = kmalloc(sizeof(*c));

		if (!c)
			return;
		c->magic = AMLAT_MAGIC;
		atomic_long_inc(&amlat.queued);
		call_rcu_rt(&c->rh, amlat_callback, c);
	}
}

static int amlat_rt_task(void *arg)
{
	unsigned int cpu = smp_processor_id();
	struct task *me = current;

	while (!READ_ONCE(amlat.stop)) {
		schedule_timeout_uninterruptible(1);	/* woken by the tick */
		u64 ns = cycles_to_ns(rdtsc() - me->wake_tsc);

		if (cpu == 0 && READ_ONCE(amlat.recording) && amlat.n < AMLAT_MAX_SAMPLES)
			amlat.ns[amlat.n++] = ns;
		if (READ_ONCE(amlat.stop))
			break;
		atomic_long_inc(&amlat.ticks);
		/* Run the load now, as a softirq, before we sleep again. */
		local_bh_disable();
		tasklet_schedule(this_cpu_ptr(&amlat_tasklet));
		local_bh_enable();
	}
	return 0;
}

struct amlat_result {
	const char *mode;
	unsigned long samples, mean_ns, stddev_ns, p99_ns, max_ns;
	unsigned long queued, invoked, corrupt, skipped, gps, ticks, cbs_invoked;
	long lost;			/* queued - invoked over the whole row */
	struct rcu_rt_stats rt;
	bool drained;
	unsigned int hist[AMLAT_HIST_BUCKETS + 1];
};

static unsigned long cbs_invoked_all(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		unsigned long queued, invoked;

		rcu_cpu_callback_counts(cpu, &queued, &invoked);
		n += invoked;
	}
	return n;
}

static u64 isqrt(u64 v)
{
	u64 r = 0, b = 1ULL << 62;

	while (b > v)
		b >>= 2;
	while (b) {
		if (v >= r + b) {
			v -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

static void amlat_stats(struct amlat_result *r)
{
	u64 sum = 0, var = 0, mean;
	int n = amlat.n;

	memset(r->hist, 0, sizeof(r->hist));
	r->samples = n;
	if (!n)
		return;
	for (int i = 0; i < n; i++) {
		u64 b = amlat.ns[i] / 1000 / amlat_hist_us;

		r->hist[b < AMLAT_HIST_BUCKETS ? b : AMLAT_HIST_BUCKETS]++;
		sum += amlat.ns[i];
	}
	mean = sum / n;
	for (int i = 0; i < n; i++) {
		s64 d = (s64)amlat.ns[i] - (s64)mean;
		var += (u64)(d * d) / n;
	}
	sort_u64(amlat.ns, n);
	r->mean_ns = mean;
	r->stddev_ns = isqrt(var);
	r->p99_ns = amlat.ns[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	r->max_ns = amlat.ns[n - 1];
}

/*
 * One row: mode on, a real-time task on each CPU of cpus, the load for
 * `seconds` (plus a warm-up that is not recorded), then wait until every
 * callback the load queued has run. Returns false if threads failed.
 */
static bool amlat_row(enum rcu_rt_mode mode, const cpumask_t *cpus, unsigned long load,
		      unsigned long burst, unsigned long ms, struct amlat_result *r)
{
	static struct task *rt[CONFIG_NR_CPUS];
	unsigned long gps0, cbi0, q0, i0, t0;
	struct rcu_rt_stats rt0;
	unsigned int cpu;
	bool ok = true;

	memset(r, 0, sizeof(*r));
	r->mode = rcu_rt_mode_names[mode];
	rcu_rt_set_mode(mode);
	amlat.load = load;
	amlat.burst = burst;
	amlat.bound = 16 * load * burst + 1024;
	amlat.stop = false;
	amlat.recording = false;
	amlat.n = 0;
	atomic_long_set(&amlat.queued, 0);
	atomic_long_set(&amlat.invoked, 0);
	atomic_long_set(&amlat.corrupt, 0);
	atomic_long_set(&amlat.skipped, 0);
	atomic_long_set(&amlat.ticks, 0);
	for_each_online_cpu(cpu) {
		rt[cpu] = NULL;
		if (!cpumask_test(cpu, cpus))
			continue;
		tasklet_init(per_cpu_ptr(&amlat_tasklet, cpu), amlat_load_tasklet, 0);
		rt[cpu] = kthread_create_on_cpu(amlat_rt_task, NULL, cpu, "amlat/%u", cpu);
		if (!rt[cpu] || sched_setscheduler(rt[cpu], SCHED_FIFO, 90)) {
			ok = false;
			break;
		}
		wake_up_process(rt[cpu]);
	}
	if (ok) {
		msleep(AMLAT_WARMUP_MS);
		gps0 = rcu_gp_completed();
		cbi0 = cbs_invoked_all();
		q0 = atomic_long_read(&amlat.queued);
		i0 = atomic_long_read(&amlat.invoked);
		t0 = atomic_long_read(&amlat.ticks);
		rcu_rt_get_stats(&rt0);
		WRITE_ONCE(amlat.recording, true);
		msleep(ms);
		WRITE_ONCE(amlat.recording, false);
		r->gps = rcu_gp_completed() - gps0;
		r->cbs_invoked = cbs_invoked_all() - cbi0;
		r->ticks = atomic_long_read(&amlat.ticks) - t0;
		r->queued = atomic_long_read(&amlat.queued) - q0;	/* in the window */
		r->invoked = atomic_long_read(&amlat.invoked) - i0;
		rcu_rt_get_stats(&r->rt);
		r->rt.offloaded -= rt0.offloaded;
		r->rt.offloads -= rt0.offloads;
		r->rt.krcud_invoked -= rt0.krcud_invoked;
		r->rt.plugs -= rt0.plugs;
		r->rt.direct -= rt0.direct;
	}
	WRITE_ONCE(amlat.stop, true);
	for_each_online_cpu(cpu)
		if (rt[cpu])
			kthread_join(rt[cpu]);
	for_each_online_cpu(cpu)
		if (cpumask_test(cpu, cpus))
			tasklet_kill(per_cpu_ptr(&amlat_tasklet, cpu));
	/* Every callback of the load must run, whatever the option did. */
	for (unsigned long w = 0; w < AMLAT_DRAIN_S * 100; w++) {
		if (atomic_long_read(&amlat.invoked) + atomic_long_read(&amlat.corrupt) >=
		    atomic_long_read(&amlat.queued))
			break;
		msleep(10);
	}
	rcu_barrier();
	r->lost = atomic_long_read(&amlat.queued) - atomic_long_read(&amlat.invoked);
	r->drained = r->lost == 0;
	r->corrupt = atomic_long_read(&amlat.corrupt);
	r->skipped = atomic_long_read(&amlat.skipped);
	amlat_stats(r);
	return ok;
}

static void amlat_report(const struct amlat_result *r, unsigned long load)
{
	char h[AMLAT_HIST_BUCKETS * 7 + 16];
	int n = 0;
	/* Callbacks per grace period: invoked in the window per grace period
	 * that ended in it (direct invocation needs none: per tick instead). */
	unsigned long per_gp_x10 = r->gps ? r->cbs_invoked * 10 / r->gps : 0;

	bench_json("{\"bench\":\"amlat\",\"variant\":\"%s\",\"mode\":\"%s\",\"cpus\":%u,"
		   "\"hz\":%d,\"load_per_tick\":%lu,\"burst\":%lu,\"work\":%lu,\"samples\":%lu,"
		   "\"mean_ns\":%lu,\"stddev_ns\":%lu,\"p99_ns\":%lu,\"max_ns\":%lu,"
		   "\"gps\":%lu,\"cbs_per_gp\":%lu.%lu,\"cbs_invoked\":%lu,\"queued\":%lu,"
		   "\"direct\":%lu,\"offloaded\":%lu,\"krcud_invoked\":%lu,\"plugs\":%lu,"
		   "\"skipped_ticks\":%lu,\"lost\":%ld}",
		   rcu_variant_name(), r->mode, num_online_cpus(), HZ, load, amlat_burst, amlat_work,
		   r->samples, r->mean_ns, r->stddev_ns, r->p99_ns, r->max_ns, r->gps,
		   per_gp_x10 / 10, per_gp_x10 % 10, r->cbs_invoked, r->queued, r->rt.direct,
		   r->rt.offloaded, r->rt.krcud_invoked, r->rt.plugs, r->skipped,
		   r->lost);
	for (int b = 0; b <= AMLAT_HIST_BUCKETS; b++)
		n += snprintf(h + n, sizeof(h) - n, "%s%u", b ? "," : "", r->hist[b]);
	bench_json("{\"bench\":\"amlat_hist\",\"mode\":\"%s\",\"cpus\":%u,\"burst\":%lu,"
		   "\"bucket_us\":%lu,\"counts\":[%s]}", r->mode, num_online_cpus(), amlat_burst,
		   amlat_hist_us, h);
}

static const enum rcu_rt_mode amlat_rows[] = {
	RCU_RT_BASE, RCU_RT_KRCUD, RCU_RT_DIRECT, RCU_RT_THROTTLE,
};

/* Seed 003 Table 1 for Quiescent: one row per option built in. */
KTEST_MANUAL(bench_amlat)
{
	static struct amlat_result r;
	unsigned int saved = rcu_rt_save();
	cpumask_t cpu0;
	char desc[48];

	cpumask_clear(&cpu0);
	cpumask_set(0, &cpu0);
	kt_info("amlat: %s, %u CPUs, HZ=%d, load %lu callbacks/tick (%lu every %lu ticks), "
		"work %lu, %lu s per row; options on at boot: %s", rcu_variant_name(),
		num_online_cpus(), HZ, amlat_load, amlat_load * amlat_burst, amlat_burst, amlat_work, amlat_seconds, rcu_rt_mode_desc(desc, sizeof(desc)));
	for (unsigned int i = 0; i < ARRAY_SIZE(amlat_rows); i++) {
		if (!rcu_rt_mode_available(amlat_rows[i])) {
			kt_info("amlat: %s not built in (or off on the command line)",
				rcu_rt_mode_names[amlat_rows[i]]);
			continue;
		}
		bool ok = amlat_row(amlat_rows[i], &cpu0, amlat_load, amlat_burst,
				    amlat_seconds * 1000, &r);

		KT_EXPECT(t, ok, "amlat: %s: could not start the real-time task", r.mode);
		KT_EXPECT(t, r.drained && !r.corrupt, "amlat: %s: %lu queued, %lu invoked, %lu corrupt",
			  r.mode, r.queued, r.invoked, r.corrupt);
		amlat_report(&r, amlat_load);
	}
	rcu_rt_restore(saved);
}

/*
 * The flood check: every row, a real-time task and a heavy softirq load on
 * every CPU. Counts only (no timing): each callback queued runs exactly
 * once, and the option under test did act.
 */
KTEST_MANUAL(rcu_rt_flood)
{
	static struct amlat_result r;
	unsigned int saved = rcu_rt_save();
	unsigned long load = 2000;
	cpumask_t all;

	cpumask_copy(&all, &cpu_online_mask);
	for (unsigned int i = 0; i < ARRAY_SIZE(amlat_rows); i++) {
		enum rcu_rt_mode m = amlat_rows[i];

		if (!rcu_rt_mode_available(m))
			continue;
		bool ok = amlat_row(m, &all, load, 1, 1000, &r);

		KT_EXPECT(t, ok, "%s: could not start the real-time tasks", r.mode);
		KT_EXPECT(t, r.drained, "%s: %ld queued, %ld invoked: callbacks lost", r.mode,
			  atomic_long_read(&amlat.queued), atomic_long_read(&amlat.invoked));
		KT_EXPECT(t, !r.corrupt, "%s: %lu callbacks invoked twice or corrupt", r.mode,
			  r.corrupt);
		if (m == RCU_RT_KRCUD)
			KT_EXPECT(t, r.rt.offloaded > 0 && r.rt.krcud_invoked > 0,
				  "krcud: no callback offloaded (%lu) or run by krcud (%lu)",
				  r.rt.offloaded, r.rt.krcud_invoked);
		if (m == RCU_RT_THROTTLE)
			KT_EXPECT(t, r.rt.plugs > 0, "throttle: never plugged");
		if (m == RCU_RT_DIRECT)
			KT_EXPECT(t, r.rt.direct > 0, "direct: call_rcu_rt() never invoked directly");
		kt_info("rcu_rt_flood: %s: %ld callbacks queued and invoked, %lu grace periods, "
			"%lu offloaded to krcud, %lu plugs, %lu direct", r.mode,
			atomic_long_read(&amlat.queued), r.gps, r.rt.offloaded, r.rt.plugs,
			r.rt.direct);
	}
	rcu_rt_restore(saved);
}
