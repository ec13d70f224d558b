/*
 * The IPv4 routing decision (after Linux 2.4's net/ipv4/route.c): which
 * interface and next hop a packet takes out (ip_route_output_key), and
 * what becomes of a packet that came in (ip_route_input): delivered here,
 * forwarded, or refused.
 *
 * Every packet sent or received asks one of the two, and each first asks
 * the route cache (route_cache.c, seed 000 section 2.4: a hash of
 * destination, source, TOS and input interface). Only a miss comes here
 * to the slow path: martian checks, our own addresses, then the routing
 * table (fib.c, longest-prefix match); its answer is a new struct rtable
 * that rt_intern_hash() puts in the cache for the next packet of the same
 * flow. With rtcache=off every packet takes the slow path, as in Linux
 * 3.6 and later (which removed the cache).
 *
 * The whole operation runs with softirqs off: that keeps the cache's mode
 * steady for it (rt_cache_set_mode() waits for such sections), and makes
 * the per-CPU rtstat counters safe to increment.
 *
 * A change to the table or to an interface (ip_route_config_changed) makes
 * every cached answer stale at once, by generation number: an entry made
 * before the change no longer matches. The slow path reads the generation
 * before it reads the table, so an answer computed from a table that was
 * changing is stale as soon as the change's flush is done.
 */
#include <net/route.h>
#include <net/netstat.h>
#include <cmdline.h>
#include <string.h>
#include <errno.h>
#include <printk.h>

struct net_device *loopback_dev;
static bool ip_forward_enabled;

static int set_ip_forward(const char *v)
{
	if (!v || (strcmp(v, "0") && strcmp(v, "1")))
		return -EINVAL;
	ip_forward_enabled = v[0] == '1';
	return 0;
}
CMDLINE_PARAM("net.ip_forward", set_ip_forward,
	      "net.ip_forward=0|1: forward packets between interfaces (default 0: a host)");

bool ip_forwarding(void)
{
	return READ_ONCE(ip_forward_enabled);
}

void ip_set_forwarding(bool on)
{
	WRITE_ONCE(ip_forward_enabled, on);
	rt_cache_flush();		/* cached input routes said "not ours, refused" */
}

u32 ip_default_gateway(void)
{
	return fib_default_gateway();
}

int ip_set_default_gateway(u32 gw)
{
	return fib_set_default_gateway(gw);
}

void ip_route_config_changed(void)
{
	fib_sync_connected();		/* flushes the cache */
}

struct net_device *ip_dev_find(u32 addr)
{
	for (int i = 0; i < dev_count(); i++) {
		struct net_device *dev = dev_get_nth(i);
		u32 a, m;

		dev_ifaddr(dev, &a, &m);
		if (a && a == addr)
			return dev;
	}
	return NULL;
}

/* ---- The slow path: a fresh entry, not yet in the cache. */

static struct rtable *rt_new(const struct rt_key *key, unsigned int genid,
			     struct net_device *dev, unsigned int flags)
{
	struct rtable *rt = dst_alloc(sizeof(*rt));

	if (!rt)
		return NULL;
	INIT_HLIST_NODE(&rt->rt_next);
	rt->key = *key;
	rt->rt_genid = genid;
	rt->rt_flags = flags;
	rt->rt_dst = key->dst;
	rt->rt_iif = key->iif;
	rt->u.dst.dev = dev;
	rt->u.dst.pmtu = dev->mtu;
	return rt;
}

/* The generation first, then the table (see the top of this file). */
static unsigned int rt_genid_snapshot(void)
{
	unsigned int genid = atomic_read(&rt_genid);

	smp_rmb();			/* the generation before the table it describes */
	return genid;
}

static struct net_device *output_broadcast_dev(u32 saddr)
{
	struct net_device *dev = saddr ? ip_dev_find(saddr) : NULL;
	u32 a, m;

	/* The interface of the bound source, else the first with an address. */
	for (int i = 0; !dev && i < dev_count(); i++) {
		struct net_device *d = dev_get_nth(i);

		dev_ifaddr(d, &a, &m);
		if (netif_running(d) && !(d->flags & IFF_LOOPBACK) && a)
			dev = d;
	}
	if (!dev || !netif_running(dev) || (dev->flags & IFF_LOOPBACK))
		return NULL;
	return dev;
}

int ip_route_output_slow(const struct rt_key *key, struct rtable **rp)
{
	unsigned int genid = rt_genid_snapshot(), flags = 0;
	u32 daddr = key->dst, saddr = key->src, gw = daddr, src, a, m;
	struct net_device *dev;
	struct fib_result res;
	struct rtable *rt;

	if (ipv4_is_zeronet(daddr) || ipv4_is_multicast(daddr))
		return -ENETUNREACH;		/* no multicast; 0/8 is not a destination */
	if (ipv4_is_loopback(daddr) || ip_dev_find(daddr)) {
		dev = loopback_dev;
		if (!dev || !netif_running(dev))
			return -ENETUNREACH;
		src = saddr ? saddr : ipv4_is_loopback(daddr) ? INADDR_LOOPBACK : daddr;
		flags = RTCF_LOCAL;
	} else if (ipv4_is_lbcast(daddr)) {
		dev = output_broadcast_dev(saddr);
		if (!dev)
			return -ENETUNREACH;
		dev_ifaddr(dev, &a, &m);
		src = saddr ? saddr : a;
		flags = RTCF_BROADCAST;
	} else {
		if (fib_lookup(daddr, &res))
			return -ENETUNREACH;
		dev = res.dev;
		if (res.gateway)
			gw = res.gateway;
		else if (res.prefixlen < 31 && (daddr | res.mask) == 0xffffffffu)
			flags = RTCF_BROADCAST;		/* the subnet's broadcast address */
		dev_ifaddr(dev, &a, &m);
		src = saddr ? saddr : a;
	}
	rt = rt_new(key, genid, dev, flags);
	if (!rt)
		return -ENOBUFS;
	rt->rt_src = src;
	rt->rt_gateway = gw;
	*rp = rt;
	return 0;
}

/* A packet for someone else, on a router: where it goes next. */
static int input_forward_route(const struct rt_key *key, unsigned int genid, struct rtable **rp)
{
	u32 daddr = key->dst, a, m;
	struct fib_result res;
	struct rtable *rt;

	if (ipv4_is_zeronet(daddr) || ipv4_is_multicast(daddr) || ipv4_is_loopback(daddr)) {
		RT_CACHE_STAT_INC(in_martian_dst);
		return -EHOSTUNREACH;
	}
	if (fib_lookup(daddr, &res)) {
		RT_CACHE_STAT_INC(in_no_route);
		return -ENETUNREACH;
	}
	if (!res.gateway && res.prefixlen < 31 && (daddr | res.mask) == 0xffffffffu)
		return -EHOSTUNREACH;		/* another subnet's broadcast: not forwarded */
	rt = rt_new(key, genid, res.dev, RTCF_FORWARD);
	if (!rt)
		return -ENOBUFS;
	dev_ifaddr(res.dev, &a, &m);
	rt->rt_src = a;			/* ours on the way out: ICMP errors about it use ours in */
	rt->rt_gateway = res.gateway ? res.gateway : daddr;
	rt->u.dst.input = ip_forward;
	*rp = rt;
	return 0;
}

int ip_route_input_slow(const struct rt_key *key, struct net_device *dev, struct rtable **rp)
{
	unsigned int genid = rt_genid_snapshot(), flags = RTCF_LOCAL;
	u32 daddr = key->dst, saddr = key->src, a, m;
	struct rtable *rt;

	/* Martian sources: nobody sends from a broadcast or multicast address,
	 * nor from 127/8 over a wire. */
	if (ipv4_is_lbcast(saddr) || ipv4_is_multicast(saddr) ||
	    (ipv4_is_loopback(saddr) && !(dev->flags & IFF_LOOPBACK))) {
		RT_CACHE_STAT_INC(in_martian_src);
		return -EINVAL;
	}
	dev_ifaddr(dev, &a, &m);
	if (dev->flags & IFF_LOOPBACK) {
		/* ours: looped back */
	} else if (ipv4_is_lbcast(daddr) || (a && m != 0xffffffffu && daddr == (a | ~m))) {
		flags |= RTCF_BROADCAST;
		RT_CACHE_STAT_INC(in_brd);
	} else if (ipv4_is_loopback(daddr) || !ip_dev_find(daddr)) {
		/* Not one of our addresses (the weak host model: any interface's). */
		if (!ip_forwarding() || ipv4_is_loopback(daddr)) {
			RT_CACHE_STAT_INC(in_martian_dst);
			return -EHOSTUNREACH;
		}
		return input_forward_route(key, genid, rp);
	}
	rt = rt_new(key, genid, dev, flags);
	if (!rt)
		return -ENOBUFS;
	rt->rt_src = saddr;
	rt->rt_gateway = daddr;
	rt->u.dst.input = ip_local_deliver;
	*rp = rt;
	return 0;
}

/* ---- The entry points: the cache first (route_cache.c), then the slow path. */

int ip_route_output_key(struct rtable **rp, u32 daddr, u32 saddr, u8 tos)
{
	struct rt_key key = { .dst = daddr, .src = saddr, .iif = 0, .tos = tos & IPTOS_RT_MASK };
	struct rtable *rt;
	int err = 0;

	local_bh_disable();		/* the cache's mode holds still until we are done */
	rt = rt_cache_lookup(&key, false);
	if (!rt) {
		RT_CACHE_STAT_INC(out_slow_tot);
		err = ip_route_output_slow(&key, &rt);
		if (!err)
			rt = rt_intern_hash(rt);
	}
	local_bh_enable();
	*rp = err ? NULL : rt;
	return err;
}

int ip_route_input(struct sk_buff *skb, u32 daddr, u32 saddr, u8 tos, struct net_device *dev)
{
	struct rt_key key = { .dst = daddr, .src = saddr, .iif = dev->ifindex,
			      .tos = tos & IPTOS_RT_MASK };
	struct rtable *rt;
	int err = 0;

	local_bh_disable();
	rt = rt_cache_lookup(&key, true);
	if (!rt) {
		RT_CACHE_STAT_INC(in_slow_tot);
		err = ip_route_input_slow(&key, dev, &rt);
		if (!err)
			rt = rt_intern_hash(rt);
	}
	local_bh_enable();
	if (!err) {
		skb_dst_drop(skb);
		skb->dst = &rt->u.dst;		/* the packet's reference */
	}
	return err;
}

void ip_rt_init(void)
{
	fib_init();
	rt_cache_init();
	rt_gc_init();
}
