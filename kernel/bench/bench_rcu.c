/*
 * RCU benchmarks (printed as BENCH JSON lines, never asserted):
 *
 *   bench_rcu_read: the cost of a read-side pair beside the locks it
 *     replaces (seed 001 Figure 1, Table 1): rcu_read_lock/unlock, a
 *     spinlock pair, a rwlock read pair, an atomic reference get/put and a
 *     brlock read pair, with 1..N CPUs reading at once (refscale-style).
 *     All CPUs start together in their call-function IPI handler.
 *   bench_rcu_sync: synchronize_kernel() latency, idle and with a busy
 *     thread on every CPU (min, median, p99, max in us), then the same for
 *     synchronize_rcu_expedited() (Tree RCU's IPIs, a forced switch on
 *     every CPU for the others, a normal grace period for rcu-preempt).
 *   bench_rcu_call_rcu: call_rcu() throughput until every callback ran,
 *     then the cost of one call_rcu() beside a reference queueing in the
 *     same boot (below).
 */
#include <ktest.h>
#include <sort.h>
#include <rcupdate.h>
#include <spinlock.h>
#include <rwlock.h>
#include <brlock.h>
#include <atomic.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <kmalloc.h>
#include <cmdline.h>
#include <string.h>
#include <arch/cpu.h>
#include <rcu_test.h>
#include <softirq.h>
#include "cpus_together.h"

enum { K_RCU, K_SPIN, K_RWLOCK, K_REFCNT, K_BRLOCK, NR_KINDS };
static const char *const kind_name[NR_KINDS] = { "rcu", "spinlock", "rwlock", "refcnt", "brlock" };

#define READ_PAIRS	20000

static DEFINE_SPINLOCK(bench_spin);
static DEFINE_RWLOCK(bench_rw);
static struct brlock bench_br;
static atomic_t bench_ref;

static void __noinline read_loop(int kind)
{
	int i;

	switch (kind) {
	case K_RCU:
		for (i = 0; i < READ_PAIRS; i++) {
			rcu_read_lock();
			rcu_read_unlock();
		}
		break;
	case K_SPIN:
		for (i = 0; i < READ_PAIRS; i++) {
			spin_lock(&bench_spin);
			spin_unlock(&bench_spin);
		}
		break;
	case K_RWLOCK:
		for (i = 0; i < READ_PAIRS; i++) {
			read_lock(&bench_rw);
			read_unlock(&bench_rw);
		}
		break;
	case K_REFCNT:
		for (i = 0; i < READ_PAIRS; i++) {
			atomic_inc(&bench_ref);
			atomic_dec(&bench_ref);
		}
		break;
	case K_BRLOCK:
		for (i = 0; i < READ_PAIRS; i++) {
			unsigned int c = br_read_lock(&bench_br);
			br_read_unlock(&bench_br, c);
		}
		break;
	}
}

/* On each of the CPUs (cpus_together.c). */
static void reader(void *kind)
{
	read_loop((int)(long)kind);
}

KTEST(bench_rcu_read)
{
	unsigned int ncpu = num_online_cpus();

	brlock_init(&bench_br);
	for (unsigned int k = 1; k <= ncpu; k = k < ncpu && k * 2 > ncpu ? ncpu : k * 2) {
		u64 per_pair[NR_KINDS];

		for (int kind = 0; kind < NR_KINDS; kind++)
			per_pair[kind] = cpus_together(k, reader, (void *)(long)kind) / READ_PAIRS;
		for (int kind = 0; kind < NR_KINDS; kind++)
			bench_json("{\"bench\":\"rcu_read_pair\",\"variant\":\"%s\",\"kind\":\"%s\","
				   "\"readers\":%u,\"cycles\":%lu,\"ns_x100\":%lu}",
				   rcu_variant_name(), kind_name[kind], k,
				   (unsigned long)per_pair[kind],
				   (unsigned long)(cycles_to_ns(per_pair[kind] * 100)));
		kt_info("%u readers: rcu %lu, spinlock %lu, rwlock %lu, refcnt %lu, brlock %lu cycles/pair",
			k, (unsigned long)per_pair[K_RCU], (unsigned long)per_pair[K_SPIN],
			(unsigned long)per_pair[K_RWLOCK], (unsigned long)per_pair[K_REFCNT],
			(unsigned long)per_pair[K_BRLOCK]);
		if (k == ncpu)
			break;
	}
}

/* ---- synchronize_kernel() latency */

/*
 * Samples per load. p99 is the sample at rank ceil(0.99 n): with fewer than
 * 100 samples that is the maximum, so the JSON says how many there were;
 * make compare asks for 200 (bench.sync_samples=200); make test's runs ask
 * for 5, since two 50 ms timeouts a call make even the default's 20 cost
 * rcu (krcud) and rcu-preempt 20 seconds a boot, and make test only prints.
 */
static unsigned long sync_nsamples = 20;
CMDLINE_ULONG("bench.sync_samples", sync_nsamples, 5, 2000,
	      "bench.sync_samples=N: synchronize_kernel() calls per load in bench_rcu_sync "
	      "(default 20, 5..2000)");

/*
 * synchronize_rcu_expedited() is sampled at most this often per load: on
 * the variants without one it is synchronize_kernel() again (up to 250 ms
 * a call on krcud and rcu-preempt), and make compare's 200 samples would
 * double their boots for a column that only repeats the one beside it.
 */
#define EXP_SAMPLES_MAX	50

static volatile bool hogs_stop;

static int hog(void *arg)
{
	while (!READ_ONCE(hogs_stop)) {
		udelay(50);
		cond_resched();		/* a well-behaved kernel thread */
	}
	return 0;
}


/*
 * The measuring thread runs SCHED_FIFO: woken when its grace period ends, it
 * gets the CPU at the next scheduling point even beside a busy thread, so
 * what is measured is the grace period, not the busy thread's time slice.
 * The grace periods' own durations (rcu_gp_begin to rcu_gp_end) are
 * printed beside it.
 */
static void sync_samples(struct ktest_ctx *t, const char *load, void (*sync)(void),
			 const char *name, unsigned long max_n)
{
	unsigned long n = MIN(sync_nsamples, max_n);
	u64 *lat = kmalloc(sizeof(*lat) * n);
	unsigned long gp0 = rcu_gp_completed();
	u64 gp_ns0 = rcu_gp_total_ns();

	KT_ASSERT(t, lat, "no memory for %lu samples", n);
	for (unsigned long i = 0; i < n; i++) {
		u64 t0 = ktime_get_ns();
		sync();
		lat[i] = ktime_get_ns() - t0;
		msleep(1 + i % 3);	/* start at different phases of the tick */
	}
	sort_u64(lat, n);
	unsigned long gps = rcu_gp_completed() - gp0;
	unsigned long p99 = (n * 99 + 99) / 100 - 1;	/* rank ceil(0.99 n) */
	bench_json("{\"bench\":\"%s\",\"variant\":\"%s\",\"load\":\"%s\","
		   "\"cpus\":%u,\"hz\":%d,\"samples\":%lu,\"min_us\":%lu,\"median_us\":%lu,"
		   "\"p99_us\":%lu,\"max_us\":%lu,\"tick_us\":%lu,\"grace_periods\":%lu,"
		   "\"gp_mean_us\":%lu}",
		   name, rcu_variant_name(), load, num_online_cpus(), HZ, n,
		   (unsigned long)(lat[0] / 1000), (unsigned long)(lat[n / 2] / 1000),
		   (unsigned long)(lat[p99] / 1000), (unsigned long)(lat[n - 1] / 1000),
		   (unsigned long)(TICK_NSEC / 1000),
		   gps, gps ? (unsigned long)((rcu_gp_total_ns() - gp_ns0) / gps / 1000) : 0);
	kt_info("%s %s: median %lu us, max %lu us of %lu (tick %lu us)", name, load,
		(unsigned long)(lat[n / 2] / 1000), (unsigned long)(lat[n - 1] / 1000), n,
		(unsigned long)(TICK_NSEC / 1000));
	kfree(lat);
}

KTEST(bench_rcu_sync)
{
	struct task *hogs[CONFIG_NR_CPUS] = { NULL };
	unsigned int cpu;

	KT_ASSERT(t, !sched_setscheduler(current, SCHED_FIFO, 50), "cannot go SCHED_FIFO");
	sync_samples(t, "idle", synchronize_kernel, "synchronize_kernel", ~0UL);
	sync_samples(t, "idle", synchronize_rcu_expedited, "synchronize_rcu_expedited",
		     EXP_SAMPLES_MAX);
	hogs_stop = false;
	for_each_online_cpu(cpu) {
		hogs[cpu] = kthread_create_on_cpu(hog, NULL, cpu, "hog/%u", cpu);
		KT_ASSERT(t, hogs[cpu], "no hog thread");
		wake_up_process(hogs[cpu]);
	}
	sync_samples(t, "busy", synchronize_kernel, "synchronize_kernel", ~0UL);
	sync_samples(t, "busy", synchronize_rcu_expedited, "synchronize_rcu_expedited",
		     EXP_SAMPLES_MAX);
	hogs_stop = true;
	for_each_online_cpu(cpu)
		kthread_join(hogs[cpu]);
	sched_setscheduler(current, SCHED_NORMAL, 0);
}

/* ---- call_rcu() throughput */

static atomic_long_t cb_count;

static void bench_count_cb(void *arg)
{
	atomic_long_inc(&cb_count);
}

/*
 * One call_rcu() against a reference in the same boot. Under TCG on a
 * shared host a figure moves several times between boots (docs/rcu/
 * then-and-now.md), so a variant's cost is read as a ratio to the
 * reference: the queueing every per-CPU-list variant's call_rcu() does
 * (interrupts off, a list append, the per-CPU count), measured in rounds
 * that alternate with call_rcu()'s own, so that both see the same host.
 * The ratio's median over the rounds is the figure; a round that a host
 * preemption hit lands in the tail.
 */
#define SBS_ROUNDS	15
#define SBS_CALLS	1000

static DEFINE_PER_CPU(struct list_head, sbs_list);
static DEFINE_PER_CPU(unsigned long, sbs_count);

static void __noinline sbs_reference(struct rcu_head *h)
{
	unsigned long flags = local_irq_save();

	list_add_tail(&h->list, this_cpu_ptr(&sbs_list));
	this_cpu(sbs_count)++;
	local_irq_restore(flags);
}

static void call_rcu_side_by_side(struct ktest_ctx *t)
{
	/* Fresh heads every round, one rcu_barrier() at the end: a barrier
	 * per round would cost a slow variant seconds of make test. */
	struct rcu_head *heads = kmalloc(sizeof(*heads) * SBS_CALLS * (SBS_ROUNDS + 1));
	struct rcu_head *refs = heads + SBS_CALLS * SBS_ROUNDS;
	u64 call[SBS_ROUNDS], ref[SBS_ROUNDS], ratio[SBS_ROUNDS];

	KT_ASSERT(t, heads, "no memory");
	for (int r = 0; r < SBS_ROUNDS; r++) {
		struct rcu_head *h = heads + SBS_CALLS * r;
		u64 t0, t1, t2;

		preempt_disable();	/* both halves on one CPU */
		INIT_LIST_HEAD(this_cpu_ptr(&sbs_list));
		t0 = ktime_get_ns();
		for (int i = 0; i < SBS_CALLS; i++)
			sbs_reference(&refs[i]);
		t1 = ktime_get_ns();
		preempt_enable();
		t1 = t1 - t0;
		t0 = ktime_get_ns();
		for (int i = 0; i < SBS_CALLS; i++)
			call_rcu(&h[i], bench_count_cb, NULL);
		t2 = ktime_get_ns();
		call[r] = (t2 - t0) / SBS_CALLS;
		ref[r] = t1 / SBS_CALLS;
		ratio[r] = (t2 - t0) * 100 / (t1 ? t1 : 1);
	}
	rcu_barrier();		/* the heads are ours again */
	sort_u64(call, SBS_ROUNDS);
	sort_u64(ref, SBS_ROUNDS);
	sort_u64(ratio, SBS_ROUNDS);
	bench_json("{\"bench\":\"call_rcu_vs_ref\",\"variant\":\"%s\",\"cpus\":%u,\"rounds\":%d,"
		   "\"calls\":%d,\"call_ns\":%lu,\"ref_ns\":%lu,\"ratio_x100\":%lu,"
		   "\"ratio_x100_min\":%lu,\"ratio_x100_max\":%lu}",
		   rcu_variant_name(), num_online_cpus(), SBS_ROUNDS, SBS_CALLS,
		   (unsigned long)call[SBS_ROUNDS / 2], (unsigned long)ref[SBS_ROUNDS / 2],
		   (unsigned long)ratio[SBS_ROUNDS / 2], (unsigned long)ratio[0],
		   (unsigned long)ratio[SBS_ROUNDS - 1]);
	kfree(heads);
}

KTEST(bench_rcu_call_rcu)
{
	const int n = 20000;
	struct rcu_head *heads = kmalloc(sizeof(*heads) * n);
	u64 t0, t_queued, t_done;

	KT_ASSERT(t, heads, "no memory");
	unsigned long gp0 = rcu_gp_completed();

	/* Where the queueing time goes: softirq work the calls run on their
	 * own CPU (a local_bh_enable() runs whatever is pending). */
	struct softirq_stats s0, s1;
	unsigned int cpu = smp_processor_id();

	atomic_long_set(&cb_count, 0);
	softirq_get_stats(cpu, &s0);
	t0 = ktime_get_ns();
	for (int i = 0; i < n; i++)
		call_rcu(&heads[i], bench_count_cb, NULL);
	t_queued = ktime_get_ns();
	softirq_get_stats(cpu, &s1);
	rcu_barrier();
	t_done = ktime_get_ns();
	KT_EXPECT(t, atomic_long_read(&cb_count) == n, "%ld of %d callbacks ran",
		  atomic_long_read(&cb_count), n);
	unsigned long gps = rcu_gp_completed() - gp0;
	bench_json("{\"bench\":\"call_rcu\",\"variant\":\"%s\",\"cpus\":%u,\"callbacks\":%d,"
		   "\"queue_ns_per_call\":%lu,\"until_all_invoked_ms\":%lu,\"callbacks_per_sec\":%lu,"
		   "\"grace_periods\":%lu,\"callbacks_per_gp\":%lu,"
		   "\"queue_softirq_entries\":%lu,\"queue_hi_runs\":%lu,\"queue_rcu_runs\":%lu,"
		   "\"queue_ksoftirqd_handoffs\":%lu}",
		   rcu_variant_name(), num_online_cpus(), n,
		   (unsigned long)((t_queued - t0) / n), (unsigned long)((t_done - t0) / 1000000),
		   (unsigned long)((u64)n * 1000000000ULL / (t_done - t0)), gps,
		   gps ? (unsigned long)(n / gps) : (unsigned long)n,
		   s1.do_softirq_calls - s0.do_softirq_calls,
		   s1.run[HI_SOFTIRQ] - s0.run[HI_SOFTIRQ], s1.run[RCU_SOFTIRQ] - s0.run[RCU_SOFTIRQ],
		   s1.handed_to_ksoftirqd - s0.handed_to_ksoftirqd);
	kfree(heads);
	call_rcu_side_by_side(t);
}
