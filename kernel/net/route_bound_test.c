/*
 * The route cache's memory, not only its table, is bounded
 * (docs/net-route-cache.md, "Bounds"; route_cache.c, rt_take_slot()).
 *
 *   ktest=route_cache_grace_bound, route_table_full_default_gateway
 *
 * An entry evicted to make room is unhashed at once but freed only after
 * a grace period (seed 000 Figure 5). A flood of destinations never seen
 * before evicts one entry per lookup, so with grace periods held up the
 * entries waiting for one would grow with the flood. Here a reader sits
 * in rcu_read_lock() on the last CPU for the whole flood (no grace period
 * can end), the other CPUs look up 16 times the cache's size of distinct
 * destinations, and after every lookup each reads dst_entries_alive():
 * hashed, held, and waiting for a grace period. Its peak must stay within
 * RT_ALIVE_FACTOR times the cache's size, plus two per flooding CPU (one
 * entry each holds, one each may pass the sum by while racing).
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include "route_test.h"

#define BOUND_MAX_SIZE	256

struct bound_flooder {
	struct task *task;
	u64 seed;
	unsigned long n, failed;
	long base, peak;
} __cacheline_aligned;

static struct bound_flooder bflood[CONFIG_NR_CPUS];
static volatile bool reader_in, flood_done;

static int long_reader(void *arg)
{
	u64 end = ktime_get_ns() + 10000000000ULL;	/* a stuck flood must not stall for good */

	rcu_read_lock();
	WRITE_ONCE(reader_in, true);
	while (!READ_ONCE(flood_done) && ktime_get_ns() < end)
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

static int bound_flood_fn(void *arg)
{
	struct bound_flooder *f = arg;

	for (unsigned long i = 0; i < f->n; i++) {
		u64 s = f->seed;
		u32 d;
		struct rtable *rt;
		long alive;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		f->seed = s;
		d = htonl(RT_TEST_NET | (u32)(s & 0xfffff));
		if (ip_route_output_key(&rt, d, 0, 0))
			f->failed++;
		else
			ip_rt_put(rt);
		alive = dst_entries_alive() - f->base;
		if (alive > f->peak)
			f->peak = alive;
	}
	return 0;
}

KTEST(route_cache_grace_bound)
{
	enum rt_cache_mode saved = rt_cache_mode();
	unsigned long saved_max = ip_rt_max_size, saved_thresh = ip_rt_gc_thresh, failed = 0;
	unsigned int cpu, rcpu = 0, ncpu = num_online_cpus();
	struct rt_test_net net;
	struct task *reader;
	long alive, peak = 0, bound;

	if (ncpu < 2) {
		ktest_skip(t, "needs 2 CPUs: one holds a reader while the others flood");
		return;
	}
	KT_ASSERT(t, !rt_test_net_get(&net), "an interface with an address (ip=)");
	rt_cache_set_mode(RT_CACHE_RCU);
	rt_run_flush();
	rcu_barrier();
	ip_rt_max_size = BOUND_MAX_SIZE;
	ip_rt_gc_thresh = BOUND_MAX_SIZE / 2;
	alive = dst_entries_alive();
	KT_ASSERT(t, !rt_test_route(true, RT_TEST_NET, RT_TEST_LEN, net.gw0, 100), "the base route");

	reader_in = flood_done = false;
	for_each_online_cpu(cpu)
		rcpu = cpu;		/* not the test's CPU: it must get back to say stop */
	reader = kthread_create_on_cpu(long_reader, NULL, rcpu, "rtreader");
	KT_ASSERT(t, reader, "no reader thread");
	wake_up_process(reader);
	while (!READ_ONCE(reader_in))
		msleep(1);
	for_each_online_cpu(cpu) {
		struct bound_flooder *f = &bflood[cpu];

		if (cpu == rcpu)
			continue;
		memset(f, 0, sizeof(*f));
		f->seed = (cpu + 11) * 0x9e3779b97f4a7c15ULL ^ rdtsc();
		f->n = 16 * BOUND_MAX_SIZE / (ncpu - 1) + 1;
		f->base = alive;
		f->task = kthread_create_on_cpu(bound_flood_fn, f, cpu, "rtbound/%u", cpu);
		KT_ASSERT(t, f->task, "no flood thread");
		wake_up_process(f->task);
	}
	for_each_online_cpu(cpu) {
		if (cpu == rcpu)
			continue;
		kthread_join(bflood[cpu].task);
		failed += bflood[cpu].failed;
		peak = MAX(peak, bflood[cpu].peak);
	}
	WRITE_ONCE(flood_done, true);
	kthread_join(reader);

	bound = RT_ALIVE_FACTOR * BOUND_MAX_SIZE + 2 * (ncpu - 1);
	kt_info("%lu distinct lookups on %u CPUs under one long reader: at most %ld entries "
		"alive (bound %ld: %d x max_size %d + 2 a CPU), %d waiting for a grace period "
		"at the end", 16UL * BOUND_MAX_SIZE, ncpu - 1, peak, bound, RT_ALIVE_FACTOR,
		BOUND_MAX_SIZE, atomic_read(&rt_pending_free));
	KT_EXPECT(t, failed == 0, "%lu lookups failed", failed);
	KT_EXPECT(t, peak <= bound, "entries alive peaked at %ld, over the bound %ld", peak, bound);

	rt_test_route(false, RT_TEST_NET, RT_TEST_LEN, 0, 0);
	rt_run_flush();
	rcu_barrier();
	ip_rt_max_size = saved_max;
	ip_rt_gc_thresh = saved_thresh;
	rt_cache_set_mode(saved);
	rt_run_flush();
	rcu_barrier();
	KT_EXPECT(t, dst_entries_alive() == alive, "every entry freed (%ld alive, %ld before)",
		  dst_entries_alive(), alive);
}

/*
 * The routing table's limit (QS_ROUTE_MAX) holds for the default gateway
 * too: fib_set_default_gateway() into a full table is -ENOSPC, while
 * replacing the default it already has still works; the count never
 * passes the limit, so a dump of QS_ROUTE_MAX entries shows every route.
 */
KTEST(route_table_full_default_gateway)
{
	static struct qs_rtentry dump[QS_ROUTE_MAX + 1];
	struct rt_test_net net;
	u32 gw = fib_default_gateway();
	int before = fib_count(), added = 0, err = 0, r;

	KT_ASSERT(t, !rt_test_net_get(&net), "an interface with an address (ip=)");
	fib_set_default_gateway(0);
	for (u32 i = 0; fib_count() < QS_ROUTE_MAX && !err; i++) {
		err = rt_test_route(true, RT_TEST_NET + i, 32, net.gw0, 0);
		added += !err;
	}
	KT_EXPECT(t, fib_count() == QS_ROUTE_MAX, "the table full: %d routes", fib_count());
	r = fib_set_default_gateway(rt_test_gw(&net, 3));
	KT_EXPECT(t, r == -ENOSPC && fib_count() == QS_ROUTE_MAX,
		  "a default gateway into a full table: %d, %d routes (limit %d)", r, fib_count(),
		  QS_ROUTE_MAX);
	KT_EXPECT(t, fib_dump(dump, QS_ROUTE_MAX + 1) == fib_count(),
		  "the dump shows every route: %d of %d", fib_dump(dump, QS_ROUTE_MAX + 1), fib_count());

	rt_test_route(false, RT_TEST_NET, 32, 0, 0);
	added--;
	KT_EXPECT(t, fib_set_default_gateway(rt_test_gw(&net, 3)) == 0, "a default into the last slot");
	r = fib_set_default_gateway(rt_test_gw(&net, 4));
	KT_EXPECT(t, r == 0 && fib_count() == QS_ROUTE_MAX && fib_default_gateway() == rt_test_gw(&net, 4),
		  "replacing the default in a full table: %d, %d routes", r, fib_count());

	for (u32 i = 1; i <= (u32)added; i++)
		rt_test_route(false, RT_TEST_NET + i, 32, 0, 0);
	fib_set_default_gateway(gw);
	KT_EXPECT(t, fib_count() == before, "%d routes, %d before", fib_count(), before);
}
