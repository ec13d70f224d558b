/*
 * In-kernel tests of the routing table and the route cache (kernel/net
 * fib.c, route*.c), one behaviour each: SipHash against its paper's
 * vectors, longest-prefix match and metrics, every refusal of a bad
 * route, the cache's hits, keys and generations in each mode, references
 * that outlive a flush, input routes (local, broadcast, forwarded, none),
 * and mode switches emptying the table. They need an interface with an
 * address (the route-* scenarios give eth0 10.0.2.15/24); the concurrent
 * stress is route_stress.c, the floods route_flood_test.c.
 */
#include <ktest.h>
#include <siphash.h>
#include <rcupdate.h>
#include <string.h>
#include <errno.h>
#include "route_test.h"

int rt_test_net_get(struct rt_test_net *n)
{
	for (int i = 0; i < dev_count(); i++) {
		struct net_device *dev = dev_get_nth(i);

		dev_ifaddr(dev, &n->addr, &n->mask);
		if (!n->addr || !netif_running(dev) || (dev->flags & IFF_LOOPBACK))
			continue;
		n->dev = dev;
		n->gw0 = rt_test_gw(n, 0);
		return 0;
	}
	return -ENODEV;
}

u32 rt_test_gw(const struct rt_test_net *n, int k)
{
	u32 host = 2 + k;

	if (htonl(host) == (n->addr & ~n->mask))
		host = 200;			/* not our own address */
	return (n->addr & n->mask) | htonl(host);
}

int rt_test_route(bool add, u32 prefix_h, int len, u32 gw, u32 metric)
{
	struct qs_rtentry e;

	memset(&e, 0, sizeof(e));
	e.dst = htonl(prefix_h);
	e.prefixlen = len;
	e.gateway = gw;
	e.metric = metric;
	return add ? fib_add(&e, QS_RTPROT_STATIC) : fib_del(&e);
}

u32 rt_test_out_gw(u32 daddr)
{
	struct rtable *rt;
	u32 gw;

	if (ip_route_output_key(&rt, daddr, 0, 0))
		return 0;
	gw = rt->rt_gateway;
	ip_rt_put(rt);
	return gw;
}

KTEST(route_siphash_vectors)
{
	siphash_key_t key;
	u8 msg[16];
	u64 w[2];

	for (int i = 0; i < 16; i++)
		msg[i] = i;
	memcpy(key.key, msg, 16);		/* key 00 01 .. 0f */
	memcpy(w, msg, 16);
	/* The SipHash paper's example (Appendix A): 15 bytes 00..0e. */
	KT_EXPECT(t, siphash(msg, 15, &key) == 0xa129ca6149be45e5ULL, "%#lx",
		  (unsigned long)siphash(msg, 15, &key));
	/* Its test vector for 16 bytes, and the two-word form agrees. */
	KT_EXPECT(t, siphash(msg, 16, &key) == 0x3f2acc7f57c29bdbULL, "%#lx",
		  (unsigned long)siphash(msg, 16, &key));
	KT_EXPECT(t, siphash_2u64(w[0], w[1], &key) == siphash(msg, 16, &key), "siphash_2u64");
	key.key[1] ^= 1;
	KT_EXPECT(t, siphash(msg, 16, &key) != 0x3f2acc7f57c29bdbULL, "another key, another hash");
}

KTEST(route_fib_longest_prefix)
{
	struct rt_test_net n;
	struct fib_result res;
	u32 a = 0, b = 0, c = 0, d = 0;
	int before = fib_count();

	KT_ASSERT(t, !rt_test_net_get(&n), "an interface with an address");
	a = rt_test_gw(&n, 1), b = rt_test_gw(&n, 2), c = rt_test_gw(&n, 3), d = rt_test_gw(&n, 4);
	KT_ASSERT(t, !rt_test_route(true, RT_TEST_NET, 12, a, 10), "172.16/12");
	KT_EXPECT(t, !rt_test_route(true, 0xac100500, 24, b, 0), "172.16.5/24");
	KT_EXPECT(t, !rt_test_route(true, 0xac100580, 25, c, 5), "172.16.5.128/25 metric 5");
	KT_EXPECT(t, !rt_test_route(true, 0xac100580, 25, d, 1), "and metric 1");
	KT_EXPECT(t, !fib_lookup(htonl(0xac100582), &res) && res.gateway == d && res.prefixlen == 25 &&
		  res.dev == n.dev, "the longest prefix, then the lowest metric");
	KT_EXPECT(t, rt_test_out_gw(htonl(0xac100582)) == d, "through the cache too");
	KT_EXPECT(t, !rt_test_route(false, 0xac100580, 25, d, 0), "delete the metric-1 /25");
	KT_EXPECT(t, rt_test_out_gw(htonl(0xac100582)) == c, "the metric-5 one now (a flush)");
	KT_EXPECT(t, rt_test_out_gw(htonl(0xac100501)) == b, "/24");
	KT_EXPECT(t, rt_test_out_gw(htonl(0xac170001)) == a, "/12");
	KT_EXPECT(t, rt_test_out_gw(n.gw0) == n.gw0, "the subnet itself: on link");
	KT_EXPECT(t, !rt_test_route(false, 0xac100580, 25, 0, 0), "delete the /25");
	KT_EXPECT(t, !rt_test_route(false, 0xac100500, 24, 0, 0), "delete the /24");
	KT_EXPECT(t, !rt_test_route(false, RT_TEST_NET, 12, 0, 0), "delete the /12");
	KT_EXPECT(t, fib_count() == before, "%d routes, %d before", fib_count(), before);
}

KTEST(route_fib_refusals)
{
	struct rt_test_net n;
	struct qs_rtentry e;
	int before = fib_count(), err = 0, added = 0;

	KT_ASSERT(t, !rt_test_net_get(&n), "an interface with an address");
	KT_EXPECT(t, rt_test_route(true, 0xac100501, 24, n.gw0, 0) == -EINVAL, "bits past the length");
	KT_EXPECT(t, rt_test_route(true, 0xac100500, 33, n.gw0, 0) == -EINVAL, "length 33");
	KT_EXPECT(t, rt_test_route(true, 0xe0000000, 4, n.gw0, 0) == -EINVAL, "multicast");
	KT_EXPECT(t, rt_test_route(true, 0x7f000000, 8, n.gw0, 0) == -EINVAL, "127/8 is lo's");
	KT_EXPECT(t, rt_test_route(true, 0xac100000, 16, htonl(0xc0a8fe01), 0) == -ENETUNREACH,
		  "a gateway on no subnet");
	KT_EXPECT(t, rt_test_route(true, 0xac100000, 16, n.addr, 0) == -EINVAL, "our own address as gateway");
	KT_EXPECT(t, rt_test_route(true, 0xac100000, 16, 0xffffffffu, 0) == -EINVAL, "broadcast gateway");
	KT_EXPECT(t, rt_test_route(true, 0xac100000, 16, 0, 0) == -EINVAL, "neither gateway nor device");
	memset(&e, 0, sizeof(e));
	e.dst = htonl(0xac100000);
	e.prefixlen = 16;
	strlcpy(e.dev, "nosuch0", sizeof(e.dev));
	KT_EXPECT(t, fib_add(&e, QS_RTPROT_STATIC) == -ENODEV, "no such device");
	strlcpy(e.dev, "lo", sizeof(e.dev));
	KT_EXPECT(t, fib_add(&e, QS_RTPROT_STATIC) == -EINVAL, "not by lo");
	memset(e.dev, 'x', sizeof(e.dev));	/* no terminating zero */
	KT_EXPECT(t, fib_add(&e, QS_RTPROT_STATIC) == -ENODEV, "an unterminated name");
	KT_EXPECT(t, rt_test_route(false, 0xac100000, 16, 0, 0) == -ESRCH, "nothing to delete");
	KT_ASSERT(t, !rt_test_route(true, 0xac100000, 16, n.gw0, 7), "a route");
	KT_EXPECT(t, rt_test_route(true, 0xac100000, 16, rt_test_gw(&n, 5), 7) == -EEXIST,
		  "the same prefix and metric twice");
	KT_EXPECT(t, rt_test_route(false, 0xac100000, 16, rt_test_gw(&n, 5), 0) == -ESRCH,
		  "delete names the wrong gateway");
	KT_EXPECT(t, !rt_test_route(false, 0xac100000, 16, n.gw0, 7), "delete it");
	/* The table's bound. */
	for (u32 i = 0; i < QS_ROUTE_MAX + 1 && !err; i++) {
		err = rt_test_route(true, RT_TEST_NET + i, 32, n.gw0, 0);
		added += !err;
	}
	KT_EXPECT(t, err == -ENOSPC && fib_count() == QS_ROUTE_MAX, "full at %d (err %d)", fib_count(), err);
	for (u32 i = 0; i < (u32)added; i++)
		rt_test_route(false, RT_TEST_NET + i, 32, 0, 0);
	KT_EXPECT(t, fib_count() == before, "%d routes, %d before", fib_count(), before);
}

static struct rtable *out_route(u32 daddr, u8 tos)
{
	struct rtable *rt;

	return ip_route_output_key(&rt, daddr, 0, tos) ? NULL : rt;
}

/* One mode's hits, keys, generations and references. */
static void cache_behaviour(struct ktest_ctx *t, enum rt_cache_mode mode, const struct rt_test_net *n)
{
	u32 d = htonl(0xac100a0a), gw1 = rt_test_gw(n, 1), gw2 = rt_test_gw(n, 2);
	struct rtable *r1, *r2, *r3, *r4;
	long alive;

	KT_ASSERT(t, !rt_cache_set_mode(mode), "set %s", rt_cache_mode_name(mode));
	KT_ASSERT(t, !rt_test_route(true, 0xac100000, 16, gw1, 0), "a route");
	r1 = out_route(d, 0);
	r2 = out_route(d, 0);
	r3 = out_route(d, 0x10);
	KT_ASSERT(t, r1 && r2 && r3, "lookups");
	if (mode == RT_CACHE_OFF) {
		KT_EXPECT(t, r1 != r2 && (r1->u.dst.flags & DST_NOCACHE), "off: a fresh answer each time");
	} else {
		KT_EXPECT(t, r1 == r2 && !(r1->u.dst.flags & DST_NOCACHE), "%s: the second is the first",
			  rt_cache_mode_name(mode));
		KT_EXPECT(t, r3 != r1, "another TOS is another key");
		KT_EXPECT(t, atomic_read(&r1->u.dst.__refcnt) == 3, "the cache's and ours: %d",
			  atomic_read(&r1->u.dst.__refcnt));
	}
	KT_EXPECT(t, r1->rt_gateway == gw1, "the route's gateway");
	/* A change: the held entry becomes stale, and a lookup finds the new route. */
	rt_test_route(false, 0xac100000, 16, 0, 0);
	KT_EXPECT(t, !rt_test_route(true, 0xac100000, 16, gw2, 0), "the route changes");
	r4 = out_route(d, 0);
	KT_EXPECT(t, r4 && r4 != r1 && r4->rt_gateway == gw2, "not the stale answer");
	if (mode != RT_CACHE_OFF)
		KT_EXPECT(t, rt_is_expired(r1), "the old entry is stale");
	/* Held across removal and a grace period: still intact, freed by our put. */
	rt_run_flush();
	rcu_barrier();
	KT_EXPECT(t, r1->rt_dst == d && r1->u.dst.dev == n->dev, "a held entry outlives its removal");
	alive = dst_entries_alive();
	ip_rt_put(r1);
	ip_rt_put(r2);
	KT_EXPECT(t, dst_entries_alive() == alive - (r1 == r2 ? 1 : 2), "the last put frees it");
	ip_rt_put(r3);
	ip_rt_put(r4);
	rt_test_route(false, 0xac100000, 16, 0, 0);
}

KTEST(route_cache_modes)
{
	struct rt_test_net n;
	enum rt_cache_mode saved = rt_cache_mode();
	unsigned long switches = rt_mode_switches;
	long alive;

	KT_ASSERT(t, !rt_test_net_get(&n), "an interface with an address");
	rt_run_flush();
	rcu_barrier();
	alive = dst_entries_alive();
	cache_behaviour(t, RT_CACHE_RCU, &n);
	cache_behaviour(t, RT_CACHE_RWLOCK, &n);
	cache_behaviour(t, RT_CACHE_OFF, &n);
	KT_EXPECT(t, atomic_read(&rt_entries) == 0, "off: an empty table (%d)", atomic_read(&rt_entries));
	KT_EXPECT(t, rt_cache_set_mode(3) == -EINVAL, "no mode 3");
	rt_cache_set_mode(saved);
	KT_EXPECT(t, rt_mode_switches >= switches + 3, "switches counted");
	rt_run_flush();
	rcu_barrier();
	KT_EXPECT(t, dst_entries_alive() == alive, "every entry freed: %ld, %ld before",
		  dst_entries_alive(), alive);
}

/* An input lookup for a packet from src to dst that arrived on dev. */
static int in_route(struct sk_buff *skb, u32 dst, u32 src, struct net_device *dev)
{
	skb_dst_drop(skb);
	return ip_route_input(skb, dst, src, 0, dev);
}

KTEST(route_input_routes)
{
	struct sk_buff *skb = alloc_skb(64);
	struct rt_test_net n;
	bool fwd = ip_forwarding();
	u32 gw = ip_default_gateway(), remote = htonl(0xac1f0001);

	KT_ASSERT(t, skb, "a buffer");
	KT_ASSERT(t, !rt_test_net_get(&n), "an interface with an address");
	KT_EXPECT(t, !in_route(skb, n.addr, n.gw0, n.dev) && skb_rtable(skb)->rt_flags == RTCF_LOCAL &&
		  skb_rtable(skb)->u.dst.input == ip_local_deliver, "ours: delivered");
	KT_EXPECT(t, !in_route(skb, n.addr | ~n.mask, n.gw0, n.dev) &&
		  (skb_rtable(skb)->rt_flags & RTCF_BROADCAST), "the subnet broadcast: ours too");
	KT_EXPECT(t, in_route(skb, n.addr, 0xffffffffu, n.dev) == -EINVAL, "a martian source");
	KT_EXPECT(t, in_route(skb, n.addr, htonl(0x7f000001), n.dev) == -EINVAL, "127/8 on a wire");
	ip_set_forwarding(false);
	KT_EXPECT(t, in_route(skb, remote, n.gw0, n.dev) == -EHOSTUNREACH, "a host does not forward");
	ip_set_forwarding(true);
	KT_EXPECT(t, !rt_test_route(true, 0xac1f0000, 16, rt_test_gw(&n, 7), 0), "a route");
	KT_EXPECT(t, !in_route(skb, remote, n.gw0, n.dev) && skb_rtable(skb)->rt_flags == RTCF_FORWARD &&
		  skb_rtable(skb)->u.dst.input == ip_forward &&
		  skb_rtable(skb)->rt_gateway == rt_test_gw(&n, 7), "a router forwards, by the table");
	KT_EXPECT(t, in_route(skb, htonl(0x7f000001), n.gw0, n.dev) == -EHOSTUNREACH,
		  "never 127/8");
	rt_test_route(false, 0xac1f0000, 16, 0, 0);
	fib_set_default_gateway(0);
	KT_EXPECT(t, in_route(skb, remote, n.gw0, n.dev) == -ENETUNREACH, "no route: unreachable");
	fib_set_default_gateway(gw);
	ip_set_forwarding(fwd);
	kfree_skb(skb);
}
