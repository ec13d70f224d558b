/*
 * The route cache under fire (seed 000 2.4's claim, as a stress test):
 *
 *   ktest=route_cache_stress [route_stress.duration=3]
 *
 * A reader thread on every CPU looks up routes without pause: output
 * routes and forwarded input routes, to destinations in 172.16.0.0/12
 * (a drifting working set, so most lookups hit and some miss and
 * insert), four TOS values. Each answer is checked against what the
 * table can have said: its key, our interface, a gateway of a route that
 * existed (the base /12 route's or the /18 route's: each /18 has its own
 * gateway), a sane reference count and state. One answer in eight is
 * held across cond_resched() (a quiescent state: only the reference
 * keeps it now) and checked again; one lookup in 64 also walks its whole
 * chain slowly, as the mode reads it, checking every entry: a reader
 * standing on entries while others remove them.
 *
 * Meanwhile a writer thread on another CPU adds and deletes the /18
 * routes (each change flushes the cache by generation): it looks a
 * destination up (cached), changes its route, and checks at once that a
 * lookup answers the table as it is now (no stale answer, no lost route); it also flushes, runs the garbage collector, and
 * switches the cache between rcu, rwlock and off, so that readers of
 * one mode are in flight when the next begins. The GC timer runs as
 * well, and small bounds (the scenarios' rtcache.max_size) keep
 * insertions evicting.
 *
 * With kmalloc poisoning (every defconfig), an entry freed while a
 * reader could still reach it reads as 0x6b...: a wrong destination or
 * gateway, an absurd reference count, or a wild pointer on the walk.
 * A reader that finds one panics with "route-cache-stress:"; the busted
 * RCU variant (grace periods that end at once) must end that way
 * (tests/scenarios/route-busted-smp4.scn). At the end every entry is
 * freed: dst_entries_alive() is back at its baseline.
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <time.h>
#include <panic.h>
#include <cmdline.h>
#include <string.h>
#include <rculist.h>
#include "route_test.h"

unsigned long route_stress_duration_s = 3;
CMDLINE_ULONG_TAGGED("route_stress.duration", rsdur, route_stress_duration_s, 1, 600,
		     "route_stress.duration=S: seconds of route_cache_stress (default 3, 1..600)");

#define NR_SPECIFIC	64		/* /18 routes: 172.16.0.0/12 in 64 pieces */
#define WORKSET		64

struct stress_reader {
	struct task *task;
	u64 seed;
	unsigned long lookups, inputs, held, walks, walked;
} __cacheline_aligned;

struct stress_writer {
	struct task *task;
	u64 seed;
	unsigned long changes, checks, flushes, gcs, switches;
	u64 switch_ns;			/* time spent switching (the cache off meanwhile) */
};

static struct stress_reader readers[CONFIG_NR_CPUS];
static struct stress_writer writer;
static struct rt_test_net net;
static u32 gws[NR_SPECIFIC];		/* route k's gateway, always the same */
static volatile bool stress_stop;

static inline u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline u32 stress_dst(u64 x)
{
	return htonl(RT_TEST_NET | (u32)(x & 0xfffff));
}

static inline int dst_k(u32 d)
{
	return (ntohl(d) - RT_TEST_NET) >> 14;
}

/* An entry a reader got from a lookup (and holds): exactly what was asked. */
static void check_answer(const struct rtable *rt, u32 d, u8 tos, bool input, const char *when)
{
	int ref = atomic_read(&rt->u.dst.__refcnt);
	const char *bad = NULL;

	if (rt->rt_dst != d || rt->key.dst != d)
		bad = "destination";
	else if (rt->key.tos != tos || rt->key.iif != (input ? net.dev->ifindex : 0) ||
		 rt->key.src != (input ? net.gw0 : 0))
		bad = "key";
	else if (rt->u.dst.dev != net.dev)
		bad = "device";
	else if (rt->rt_gateway != net.gw0 && rt->rt_gateway != gws[dst_k(d)])
		bad = "gateway";
	else if (ref < 1 || ref > (1 << 20))
		bad = "reference count";
	else if (READ_ONCE(rt->u.dst.obsolete) > DST_OBSOLETE_KILL)
		bad = "state";
	else if (!!(rt->rt_flags & RTCF_FORWARD) != input)
		bad = "flags";
	if (bad)
		panic("route-cache-stress: a reader %s found a freed or wrong entry (%s): asked %08x, "
		      "entry %p has dst %08x gateway %08x refcnt %d", when, bad, ntohl(d), rt,
		      ntohl(rt->rt_dst), ntohl(rt->rt_gateway), ref);
}

/* Any entry on a chain: alive (the read side keeps it so), whoever made it. */
static void check_hashed(const struct rtable *rt)
{
	int ref = atomic_read(&rt->u.dst.__refcnt);
	bool dev_ok = false;

	for (int i = 0; i < dev_count(); i++)
		dev_ok |= rt->u.dst.dev == dev_get_nth(i);
	if (!dev_ok || ref < 1 || ref > (1 << 20) || READ_ONCE(rt->u.dst.obsolete) > DST_OBSOLETE_KILL ||
	    rt->key.dst != rt->rt_dst)
		panic("route-cache-stress: a reader walking a chain stood on a freed entry %p: "
		      "dst %08x refcnt %d dev %p", rt, ntohl(rt->rt_dst), ref, rt->u.dst.dev);
}

/* The chain of (d, src, iif, tos), walked slowly under the mode's read side. */
static unsigned long slow_walk(u32 d, u32 src, int iif, u8 tos)
{
	struct rt_hash_bucket *b = &rt_hash_table[rt_hash_code(d, src, iif, tos)];
	unsigned long n = 0;
	enum rt_cache_mode mode;
	struct rtable *rth;

	local_bh_disable();
	mode = rt_cache_mode();
	if (mode == RT_CACHE_RCU) {
		rcu_read_lock_bh();
		hlist_for_each_entry_rcu(rth, &b->chain, rt_next) {
			check_hashed(rth);
			udelay(2);		/* linger: writers remove meanwhile */
			check_hashed(rth);
			n++;
		}
		rcu_read_unlock_bh();
	} else if (mode == RT_CACHE_RWLOCK) {
		read_lock(&b->lock);
		hlist_for_each_entry(rth, &b->chain, rt_next) {
			check_hashed(rth);
			n++;
		}
		read_unlock(&b->lock);
	}
	local_bh_enable();
	return n;
}

static void one_lookup(struct stress_reader *r, struct sk_buff *skb, u32 *work)
{
	u64 x = rnd(&r->seed);
	u32 d = (x >> 40) % 8 ? work[(x >> 16) % WORKSET] : stress_dst(rnd(&r->seed));
	u8 tos = ((x >> 24) & 1) << 3;
	bool input = (x >> 26) & 1;
	struct rtable *rt;
	int err;

	if (x % 256 == 0)
		work[(x >> 8) % WORKSET] = stress_dst(rnd(&r->seed));	/* the working set drifts */
	if (input)
		err = ip_route_input(skb, d, net.gw0, tos, net.dev);
	else
		err = ip_route_output_key(&rt, d, 0, tos);
	if (err)
		panic("route-cache-stress: a lookup of %08x failed (%d): the base route is always there",
		      ntohl(d), err);
	if (input)
		rt = skb_rtable(skb);
	check_answer(rt, d, tos, input, "on lookup");
	if ((x >> 28) % 8 == 0) {
		cond_resched();		/* a quiescent state: only the reference protects rt now */
		udelay((x >> 32) % 16);
		check_answer(rt, d, tos, input, "holding a reference");
		r->held++;
	}
	if (input)
		skb_dst_drop(skb);
	else
		ip_rt_put(rt);
	if ((x >> 36) % 64 == 0) {
		r->walked += slow_walk(d, input ? net.gw0 : 0, input ? net.dev->ifindex : 0, tos);
		r->walks++;
	}
	r->lookups++;
	r->inputs += input;
}

static int reader_fn(void *arg)
{
	struct stress_reader *r = arg;
	struct sk_buff *skb = alloc_skb(64);
	u32 work[WORKSET];

	if (!skb)
		panic("route-cache-stress: no buffer");
	for (int i = 0; i < WORKSET; i++)
		work[i] = stress_dst(rnd(&r->seed));
	while (!READ_ONCE(stress_stop)) {
		one_lookup(r, skb, work);
		if (r->lookups % 32 == 0)
			cond_resched();
	}
	kfree_skb(skb);
	return 0;
}

static void writer_check(u32 d, u32 want, int k, const char *what)
{
	u32 got = rt_test_out_gw(d);

	if (got != want)
		panic("route-cache-stress: %s /18 route %d, a lookup of %08x answers gateway %08x, "
		      "not %08x: a stale or lost route", what, k, ntohl(d), ntohl(got), ntohl(want));
	writer.checks++;
}

/* Let the readers find the table's new state cached for a while (each change flushes). */
static void writer_pause(unsigned long us)
{
	u64 until = ktime_get_ns() + us * 1000;

	while (ktime_get_ns() < until && !READ_ONCE(stress_stop))
		cond_resched();
}

static const enum rt_cache_mode mode_cycle[] = { RT_CACHE_RWLOCK, RT_CACHE_RCU, RT_CACHE_OFF,
						  RT_CACHE_RCU };

static int writer_fn(void *arg)
{
	bool present[NR_SPECIFIC] = { 0 };
	u64 next_switch = ktime_get_ns() + 150000000;
	unsigned int cycle = 0;

	while (!READ_ONCE(stress_stop)) {
		u64 x = rnd(&writer.seed);
		int k = x % NR_SPECIFIC, err;
		u32 d = htonl(RT_TEST_NET | k << 14 | (u32)((x >> 8) & 0x3fff));

		rt_test_out_gw(d);		/* cached now: the change must make it stale */
		err = rt_test_route(!present[k], RT_TEST_NET | k << 14, 18, present[k] ? 0 : gws[k], 0);
		if (err)
			panic("route-cache-stress: %s /18 route %d: %d", present[k] ? "delete" : "add", k, err);
		present[k] = !present[k];
		writer_check(d, present[k] ? gws[k] : net.gw0, k, present[k] ? "just after adding" :
			     "just after deleting");
		writer.changes++;
		if (writer.changes % 16 == 0) {
			rt_cache_flush();
			writer.flushes++;
		}
		if (writer.changes % 64 == 0) {
			local_bh_disable();
			rt_garbage_collect(rt_cache_mode(), false);
			local_bh_enable();
			writer.gcs++;
		}
		if (ktime_get_ns() > next_switch) {
			u64 t0 = ktime_get_ns();

			rt_cache_set_mode(mode_cycle[cycle++ % 4]);
			writer.switches++;
			next_switch = ktime_get_ns() + 200000000;
			writer.switch_ns += next_switch - 200000000 - t0;
		}
		writer_pause(500);
	}
	for (int k = 0; k < NR_SPECIFIC; k++)
		if (present[k])
			rt_test_route(false, RT_TEST_NET | k << 14, 18, 0, 0);
	return 0;
}

/* Whether every kind of operation the checks ask for has run. */
static bool route_stress_moved(void)
{
	unsigned long held = 0, walks = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		if (!READ_ONCE(readers[cpu].lookups))
			return false;
		held += READ_ONCE(readers[cpu].held);
		walks += READ_ONCE(readers[cpu].walks);
	}
	return held && walks && READ_ONCE(writer.changes) && READ_ONCE(writer.switches);
}

KTEST(route_cache_stress)
{
	unsigned int cpu, wcpu = num_online_cpus() - 1;
	enum rt_cache_mode saved = rt_cache_mode();
	unsigned long lookups = 0, inputs = 0, held = 0, walks = 0, walked = 0;
	struct qs_rtstat st0, st1;
	bool fwd = ip_forwarding();
	int routes;
	long alive;

	KT_ASSERT(t, !rt_test_net_get(&net), "an interface with an address (ip=)");
	for (int k = 0; k < NR_SPECIFIC; k++)
		gws[k] = rt_test_gw(&net, 1 + k);
	routes = fib_count();
	rt_cache_set_mode(RT_CACHE_RCU);
	rt_run_flush();
	rcu_barrier();
	alive = dst_entries_alive();
	rt_cache_get_stats(&st0);
	KT_ASSERT(t, !rt_test_route(true, RT_TEST_NET, RT_TEST_LEN, net.gw0, 100), "the base route");
	ip_set_forwarding(true);

	stress_stop = false;
	memset(&writer, 0, sizeof(writer));
	writer.seed = 0x9e3779b97f4a7c15ULL ^ rdtsc();
	for_each_online_cpu(cpu) {
		struct stress_reader *r = &readers[cpu];

		memset(r, 0, sizeof(*r));
		r->seed = (cpu + 1) * 0x2545f4914f6cdd1dULL ^ rdtsc();
		r->task = kthread_create_on_cpu(reader_fn, r, cpu, "rtread/%u", cpu);
		KT_ASSERT(t, r->task, "no reader thread");
		wake_up_process(r->task);
	}
	writer.task = kthread_create_on_cpu(writer_fn, NULL, wcpu, "rtwrite");
	KT_ASSERT(t, writer.task, "no writer thread");
	wake_up_process(writer.task);

	/*
	 * The duration, then on (a minute at most) until every kind of
	 * operation checked below has run: a host that starves a reader's or
	 * the writer's vCPU, or a variant whose grace periods make each mode
	 * switch slow, can hold one off for the whole duration.
	 */
	msleep(route_stress_duration_s * 1000);
	for (u64 t0 = ktime_get_ns(); !route_stress_moved() && ktime_get_ns() - t0 < 60000000000ULL; )
		msleep(50);
	stress_stop = true;
	kthread_join(writer.task);
	for_each_online_cpu(cpu) {
		struct stress_reader *r = &readers[cpu];

		kthread_join(r->task);
		KT_EXPECT(t, r->lookups > 0, "CPU %u's reader made progress", cpu);
		lookups += r->lookups;
		inputs += r->inputs;
		held += r->held;
		walks += r->walks;
		walked += r->walked;
	}
	rt_cache_get_stats(&st1);
	kt_info("%s: %lu lookups (%lu input) on %u CPUs, %lu held across a quiescent state, "
		"%lu slow walks over %lu entries; %lu route changes each checked, %lu flushes, "
		"%lu GC calls, %lu mode switches (%lu ms each)",
		rcu_variant_name(), lookups, inputs, num_online_cpus(), held, walks, walked,
		writer.changes, writer.flushes, writer.gcs, writer.switches,
		(unsigned long)(writer.switch_ns / 1000000 / (writer.switches ? writer.switches : 1)));
	kt_info("rtstat: %lu hits, %lu misses, %lu GC runs (%lu skipped, %lu short), %lu evictions, "
		"%lu uncached (%lu for a full cache), longest chain %lu",
		(unsigned long)(st1.in_hit + st1.out_hit - st0.in_hit - st0.out_hit),
		(unsigned long)(st1.in_slow_tot + st1.out_slow_tot - st0.in_slow_tot - st0.out_slow_tot),
		(unsigned long)(st1.gc_total - st0.gc_total),
		(unsigned long)(st1.gc_ignored - st0.gc_ignored),
		(unsigned long)(st1.gc_goal_miss - st0.gc_goal_miss),
		(unsigned long)(st1.chain_evictions - st0.chain_evictions),
		(unsigned long)(st1.uncached - st0.uncached),
		(unsigned long)(st1.gc_dst_overflow - st0.gc_dst_overflow), (unsigned long)st1.longest_chain);
	KT_EXPECT(t, writer.changes > 0 && held > 0 && walks > 0, "every kind of operation ran");
	KT_EXPECT(t, writer.switches > 0, "modes switched under the readers");

	rt_test_route(false, RT_TEST_NET, RT_TEST_LEN, 0, 0);
	ip_set_forwarding(fwd);
	rt_cache_set_mode(saved);
	rt_run_flush();
	rcu_barrier();
	KT_EXPECT(t, fib_count() == routes, "the table as before: %d routes, %d before", fib_count(), routes);
	KT_EXPECT(t, dst_entries_alive() == alive, "every entry freed: %ld alive, %ld before",
		  dst_entries_alive(), alive);
}
