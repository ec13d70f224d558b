/*
 * Scheduler benchmarks (BENCH JSON lines, never asserted: docs/design.md):
 *
 *   bench_sched_ctxsw       two threads ping-pong through semaphores, on one
 *                           CPU and on two CPUs: cost of a switch, and of a
 *                           cross-CPU round trip next to a tick (a remote
 *                           wake-up should cost one IPI, not a tick);
 *   bench_sched_rt_latency  a SCHED_FIFO task woken by the timer interrupt
 *                           while a CPU-bound normal task runs kernel code
 *                           that reaches a preemption point every
 *                           HOG_CHUNK_US: wake-up latency mean/p99/max,
 *                           without and (CONFIG_KPREEMPT) with preemption,
 *                           in the same boot, and their ratio.
 */
#include <ktest.h>
#include <sort.h>
#include <sched.h>
#include <semaphore.h>
#include <smp.h>
#include <time.h>
#include <printk.h>
#include <arch/cpu.h>
#include <arch/irq.h>

#define JOIN_TIMEOUT	(20 * HZ)

#define PP_MAX	2000

struct pp_bench {
	struct semaphore a, b;
	int iters;
	u64 cycles;
	u64 rtt[PP_MAX];		/* per round trip, cycles */
};

static int bench_ping(void *arg)
{
	struct pp_bench *pb = arg;
	u64 t0;

	for (int i = 0; i < 50; i++) {		/* warm up */
		up(&pb->b);
		down(&pb->a);
	}
	t0 = rdtsc();
	for (int i = 0; i < pb->iters; i++) {
		u64 s = rdtsc();
		up(&pb->b);
		down(&pb->a);
		pb->rtt[i] = rdtsc() - s;
	}
	pb->cycles = rdtsc() - t0;
	return 0;
}

static int bench_pong(void *arg)
{
	struct pp_bench *pb = arg;

	for (int i = 0; i < pb->iters + 50; i++) {
		down(&pb->b);
		up(&pb->a);
	}
	return 0;
}


/* Round-trip time in ns between threads on cpu_a and cpu_b (mean; *median
 * too); 0 on failure. */
static u64 pingpong_rtt(struct ktest_ctx *t, unsigned int cpu_a, unsigned int cpu_b, int iters,
			u64 *median)
{
	static struct pp_bench pb;
	struct task *a, *b;
	bool ok;

	sema_init(&pb.a, 0);
	sema_init(&pb.b, 0);
	pb.iters = iters;
	pb.cycles = 0;
	a = kthread_create_on_cpu(bench_ping, &pb, cpu_a, "bping");
	b = kthread_create_on_cpu(bench_pong, &pb, cpu_b, "bpong");
	if (!a || !b)
		return 0;
	wake_up_process(b);
	wake_up_process(a);
	ok = kthread_join_timeout(a, JOIN_TIMEOUT, NULL) & kthread_join_timeout(b, JOIN_TIMEOUT, NULL);
	KT_EXPECT(t, ok, "ping-pong threads did not finish");
	if (!ok)
		return 0;
	sort_u64(pb.rtt, iters);
	*median = cycles_to_ns(pb.rtt[iters / 2]);
	return cycles_to_ns(pb.cycles) / iters;
}

KTEST(bench_sched_ctxsw)
{
	unsigned int n = num_online_cpus();
	unsigned int c0 = n > 2 ? 1 : 0, c1 = n > 2 ? 2 : 1;
	u64 med = 0, same = pingpong_rtt(t, c0, c0, 2000, &med);

	bench_json("{\"bench\":\"sched_ctxsw_same_cpu\",\"cpus\":%u,\"preempt\":%d,"
		   "\"round_trip_ns\":%lu,\"round_trip_median_ns\":%lu,\"switch_ns\":%lu}",
		   n, (int)sched_preempt_active, (unsigned long)same, (unsigned long)med,
		   (unsigned long)same / 2);
	if (n < 2) {
		kt_info("one CPU: no cross-CPU figure");
		return;
	}
	u64 cross = pingpong_rtt(t, c0, c1, 500, &med);
	bench_json("{\"bench\":\"sched_ctxsw_cross_cpu\",\"cpus\":%u,\"preempt\":%d,"
		   "\"round_trip_ns\":%lu,\"round_trip_median_ns\":%lu,\"tick_ns\":%lu,"
		   "\"round_trip_per_tick\":%lu.%03lu}",
		   n, (int)sched_preempt_active, (unsigned long)cross, (unsigned long)med,
		   (unsigned long)TICK_NSEC,
		   (unsigned long)(cross / TICK_NSEC),
		   (unsigned long)(cross * 1000 / TICK_NSEC % 1000));
}

/* ---------------------------------------------------------------- RT wake-up latency */

#define LAT_SAMPLES	150
#define HOG_CHUNK_US	2000

struct lat_run {
	u64 ns[LAT_SAMPLES];
	int n;
	volatile bool stop;
};

static int lat_rt(void *arg)
{
	struct lat_run *r = arg;
	struct task *me = current;

	schedule_timeout_uninterruptible(2);
	for (r->n = 0; r->n < LAT_SAMPLES; r->n++) {
		schedule_timeout_uninterruptible(1);	/* woken by the tick */
		u64 now = rdtsc();
		r->ns[r->n] = cycles_to_ns(now - me->wake_tsc);
	}
	r->stop = true;
	return 0;
}

/* Kernel code that runs for HOG_CHUNK_US between preemption points. */
static int lat_hog(void *arg)
{
	struct lat_run *r = arg;

	while (!READ_ONCE(r->stop)) {
		udelay(HOG_CHUNK_US);
		cond_resched();
	}
	return 0;
}


struct lat_result {
	u64 mean, p99, max;
};

static bool measure_latency(struct ktest_ctx *t, unsigned int cpu, struct lat_result *res)
{
	static struct lat_run r;
	struct task *rt, *hog;
	u64 sum = 0;
	bool ok;

	r.n = 0;
	r.stop = false;
	hog = kthread_create_on_cpu(lat_hog, &r, cpu, "lathog");
	rt = kthread_create_on_cpu(lat_rt, &r, cpu, "latrt");
	if (!hog || !rt)
		return false;
	sched_setscheduler(rt, SCHED_FIFO, 50);
	wake_up_process(hog);
	wake_up_process(rt);
	ok = kthread_join_timeout(rt, JOIN_TIMEOUT, NULL);
	r.stop = true;
	ok &= kthread_join_timeout(hog, JOIN_TIMEOUT, NULL);
	KT_EXPECT(t, ok, "latency threads did not finish");
	if (!ok || r.n < 2)
		return false;
	sort_u64(r.ns, r.n);
	for (int i = 0; i < r.n; i++)
		sum += r.ns[i];
	res->mean = sum / r.n;
	res->p99 = r.ns[(r.n * 99) / 100 >= r.n ? r.n - 1 : (r.n * 99) / 100];
	res->max = r.ns[r.n - 1];
	return true;
}

static void report_latency(const char *model, const struct lat_result *r)
{
	bench_json("{\"bench\":\"sched_rt_wakeup_latency\",\"model\":\"%s\",\"cpus\":%u,"
		   "\"samples\":%d,\"hog_chunk_us\":%d,\"mean_ns\":%lu,\"p99_ns\":%lu,\"max_ns\":%lu}",
		   model, num_online_cpus(), LAT_SAMPLES, HOG_CHUNK_US,
		   (unsigned long)r->mean, (unsigned long)r->p99, (unsigned long)r->max);
}

KTEST(bench_sched_rt_latency)
{
	unsigned int cpu = num_online_cpus() > 1 ? 1 : 0;
	struct lat_result none, full;
	bool was = sched_preempt_active;

	sched_set_preempt(false);
	if (measure_latency(t, cpu, &none))
		report_latency("none", &none);
#ifdef CONFIG_KPREEMPT
	sched_set_preempt(true);
	if (measure_latency(t, cpu, &full)) {
		report_latency("preempt", &full);
		bench_json("{\"bench\":\"sched_rt_wakeup_latency_ratio\",\"cpus\":%u,"
			   "\"p99_none_over_preempt\":%lu.%02lu,\"mean_none_over_preempt\":%lu.%02lu}",
			   num_online_cpus(),
			   (unsigned long)(none.p99 / (full.p99 ? full.p99 : 1)),
			   (unsigned long)(none.p99 * 100 / (full.p99 ? full.p99 : 1) % 100),
			   (unsigned long)(none.mean / (full.mean ? full.mean : 1)),
			   (unsigned long)(none.mean * 100 / (full.mean ? full.mean : 1) % 100));
	}
#else
	(void)full;
	kt_info("non-preemptive kernel: the preemptive figure comes from kpreempt_defconfig");
#endif
	sched_set_preempt(was);
}
