/*
 * Floods against the route cache: what made Linux 3.6 remove it, which
 * this one must survive (route_cache.c, departures 3 and 4).
 *
 *   ktest=route_cache_flood [rtcache.secret=<32 hex digits>]
 *
 * 1. Random destinations from every CPU, four times the cache's size in
 *    all: every lookup answers, and the cache never holds more than
 *    ip_rt_max_size entries (checked after every lookup).
 * 2. A collision flood by an attacker who knows the hash key: with
 *    rtcache.secret= on the command line the test reads the key there and
 *    computes, with its own SipHash, destinations that all land in one
 *    bucket; without it, it asks rt_hash_code() (the key is the kernel's
 *    secret). Every CPU looks them up round and round: the chain never
 *    grows past ip_rt_chain_max (it is full, and evicting: the attack
 *    lands), a lookup passes over at most that many entries, and every
 *    lookup still answers.
 * 3. The same flood by an attacker who guessed the key wrong: the
 *    destinations spread over the table, nothing is evicted, and after
 *    the first round they are all cache hits.
 * After each, every entry is freed (dst_entries_alive() at its baseline).
 */
#include <ktest.h>
#include <sched.h>
#include <smp.h>
#include <siphash.h>
#include <cmdline.h>
#include <string.h>
#include <rculist.h>
#include "route_test.h"

#define COLLIDERS	64
#define ROUNDS		20

struct flooder {
	struct task *task;
	u64 seed;
	const u32 *dsts;		/* NULL: random destinations */
	unsigned long n;		/* lookups to make */
	unsigned long failed, over_bound, max_entries;
} __cacheline_aligned;

static struct flooder flooders[CONFIG_NR_CPUS];
static u32 colliders[COLLIDERS];

static inline u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int flood_fn(void *arg)
{
	struct flooder *f = arg;

	for (unsigned long i = 0; i < f->n; i++) {
		u32 d = f->dsts ? f->dsts[i % COLLIDERS] : htonl(RT_TEST_NET | (u32)(rnd(&f->seed) & 0xfffff));
		struct rtable *rt;
		unsigned long entries;

		if (ip_route_output_key(&rt, d, 0, 0))
			f->failed++;
		else
			ip_rt_put(rt);
		entries = atomic_read(&rt_entries);
		f->over_bound += entries > ip_rt_max_size;
		if (entries > f->max_entries)
			f->max_entries = entries;
		if (i % 32 == 0)
			cond_resched();
	}
	return 0;
}

/* n lookups on every CPU (random, or over dsts); false if any failed or the bound broke. */
static void flood(struct ktest_ctx *t, const u32 *dsts, unsigned long n, const char *what)
{
	unsigned long failed = 0, over = 0, maxe = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct flooder *f = &flooders[cpu];

		memset(f, 0, sizeof(*f));
		f->seed = (cpu + 7) * 0x9e3779b97f4a7c15ULL ^ rdtsc();
		f->dsts = dsts;
		f->n = n;
		f->task = kthread_create_on_cpu(flood_fn, f, cpu, "rtflood/%u", cpu);
		KT_ASSERT(t, f->task, "no flood thread");
		wake_up_process(f->task);
	}
	for_each_online_cpu(cpu) {
		kthread_join(flooders[cpu].task);
		failed += flooders[cpu].failed;
		over += flooders[cpu].over_bound;
		maxe = MAX(maxe, flooders[cpu].max_entries);
	}
	KT_EXPECT(t, failed == 0, "%s: %lu lookups failed", what, failed);
	KT_EXPECT(t, over == 0 && maxe <= ip_rt_max_size, "%s: %lu times over the bound (most %lu, bound %lu)",
		  what, over, maxe, ip_rt_max_size);
	kt_info("%s: %lu lookups on %u CPUs, at most %lu entries (bound %lu), %ld allocated now",
		what, n * num_online_cpus(), num_online_cpus(), maxe, ip_rt_max_size,
		dst_entries_alive());
}

/* The length of bucket b's chain, read as a lookup would. */
static unsigned int chain_len(unsigned int b)
{
	struct qs_rtcache_entry e[64];

	return rt_cache_dump_bucket(b, e, 64);
}

/* The key on the command line (rtcache.secret=), as route_cache.c reads it: true if given. */
static bool known_secret(siphash_key_t *k)
{
	const char *p = strstr(cmdline_get(), "rtcache.secret=");

	if (!p)
		return false;
	p += strlen("rtcache.secret=");
	k->key[0] = k->key[1] = 0;
	for (int i = 0; i < 32; i++) {
		char c = p[i];

		k->key[i / 16] = k->key[i / 16] << 4 | (c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return true;
}

/* COLLIDERS destinations whose output key hashes, under key (or the kernel's), to bucket b. */
static void find_colliders(const siphash_key_t *key, unsigned int b)
{
	int n = 0;

	for (u32 i = 1; n < COLLIDERS; i++) {
		u32 d = htonl(RT_TEST_NET | (i & 0xfffff));
		unsigned int h = key ? siphash_2u64((u64)d << 32, 0, key) & rt_hash_mask
				     : rt_hash_code(d, 0, 0, 0);

		if (h == b)
			colliders[n++] = d;
	}
}

static void settle(struct ktest_ctx *t, long alive, const char *what)
{
	rt_run_flush();
	rcu_barrier();
	KT_EXPECT(t, dst_entries_alive() == alive, "%s: every entry freed (%ld alive, %ld before)",
		  what, dst_entries_alive(), alive);
}

KTEST(route_cache_flood)
{
	enum rt_cache_mode saved = rt_cache_mode();
	unsigned int b = 123, ncpu = num_online_cpus();
	struct qs_rtstat s0, s1;
	struct rt_test_net net;
	siphash_key_t key, guess = { { 0x0123456789abcdefULL, 0xfedcba9876543210ULL } };
	bool known;
	long alive;
	u64 hits, lookups;

	KT_ASSERT(t, !rt_test_net_get(&net), "an interface with an address (ip=)");
	rt_cache_set_mode(RT_CACHE_RCU);
	rt_run_flush();
	rcu_barrier();
	alive = dst_entries_alive();
	KT_ASSERT(t, !rt_test_route(true, RT_TEST_NET, RT_TEST_LEN, net.gw0, 100), "the base route");

	/* 1. Random destinations. */
	flood(t, NULL, 4 * ip_rt_max_size / ncpu + 1, "random flood");
	settle(t, alive, "random flood");

	/* 2. An attacker who knows the key aims at bucket b. */
	known = known_secret(&key);
	find_colliders(known ? &key : NULL, b);
	rt_cache_get_stats(&s0);
	flood(t, colliders, COLLIDERS * ROUNDS, known ? "collision flood (the key from rtcache.secret=)"
						      : "collision flood (the kernel's key)");
	rt_cache_get_stats(&s1);
	lookups = (u64)COLLIDERS * ROUNDS * ncpu;
	hits = s1.out_hit - s0.out_hit;
	KT_EXPECT(t, chain_len(b) == ip_rt_chain_max, "the aimed-at chain is full: %u", chain_len(b));
	KT_EXPECT(t, s1.longest_chain <= ip_rt_chain_max, "no chain past %lu: %lu", ip_rt_chain_max,
		  (unsigned long)s1.longest_chain);
	KT_EXPECT(t, s1.chain_evictions - s0.chain_evictions >= COLLIDERS,
		  "the attack lands: %lu evictions", (unsigned long)(s1.chain_evictions - s0.chain_evictions));
	KT_EXPECT(t, s1.out_hlist_search - s0.out_hlist_search <= lookups * ip_rt_chain_max,
		  "a lookup passes over at most %lu entries", ip_rt_chain_max);
	kt_info("collision flood: %lu of %lu lookups hit, %lu evictions, %lu entries passed over",
		(unsigned long)hits, (unsigned long)lookups,
		(unsigned long)(s1.chain_evictions - s0.chain_evictions),
		(unsigned long)(s1.out_hlist_search - s0.out_hlist_search));
	settle(t, alive, "collision flood");

	/* 3. The same attack with a wrong guess at the key. */
	find_colliders(&guess, b);
	rt_cache_get_stats(&s0);
	flood(t, colliders, COLLIDERS * ROUNDS, "collision flood (a wrong key)");
	rt_cache_get_stats(&s1);
	hits = s1.out_hit - s0.out_hit;
	KT_EXPECT(t, s1.chain_evictions == s0.chain_evictions, "nothing evicted: %lu",
		  (unsigned long)(s1.chain_evictions - s0.chain_evictions));
	KT_EXPECT(t, hits * 10 >= lookups * 9, "mostly hits: %lu of %lu", (unsigned long)hits,
		  (unsigned long)lookups);
	kt_info("wrong key: %lu of %lu lookups hit, longest chain %lu", (unsigned long)hits,
		(unsigned long)lookups, (unsigned long)s1.longest_chain);

	rt_test_route(false, RT_TEST_NET, RT_TEST_LEN, 0, 0);
	rt_cache_set_mode(saved);
	settle(t, alive, "the end");
}
