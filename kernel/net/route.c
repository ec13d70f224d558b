/*
 * The IPv4 routing decision: which interface and next hop a packet takes
 * out (ip_route_output_key), and whether a packet that came in is ours
 * (ip_route_input).
 *
 * There is no routing table yet: each interface that is up and has an
 * address routes its own subnet directly, 127.0.0.0/8 and our own
 * addresses go through the loopback device, and everything else goes to
 * the default gateway if one is set and reachable on some subnet. A host
 * does not forward, so an input route is either local or a refusal.
 *
 * These two functions are the only places that decide, and their result
 * (struct rtable) is all a caller uses: the route cache of seed 000
 * section 2.4 (a later issue) puts its lookup in front of them, and
 * ip_route_config_changed() is where it will flush. The interface
 * addresses and the gateway are each one word, read whole (dev_ifaddr);
 * a packet routed during a change sees either the old or the new
 * configuration of each interface.
 */
#include <net/ip.h>
#include <net/netdevice.h>
#include <string.h>
#include <errno.h>

struct net_device *loopback_dev;
static u32 default_gateway;

u32 ip_default_gateway(void)
{
	return READ_ONCE(default_gateway);
}

void ip_set_default_gateway(u32 gw)
{
	WRITE_ONCE(default_gateway, gw);
	ip_route_config_changed();
}

void ip_route_config_changed(void)
{
	/* Nothing is cached yet. */
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

/* The running, non-loopback interface whose subnet holds addr. */
static struct net_device *subnet_dev(u32 addr, u32 *dev_addr, u32 *dev_mask)
{
	for (int i = 0; i < dev_count(); i++) {
		struct net_device *dev = dev_get_nth(i);
		u32 a, m;

		if (!netif_running(dev) || (dev->flags & IFF_LOOPBACK))
			continue;
		dev_ifaddr(dev, &a, &m);
		if (a && ((addr ^ a) & m) == 0) {
			*dev_addr = a;
			*dev_mask = m;
			return dev;
		}
	}
	return NULL;
}

static int route_local(struct rtable *rt, u32 daddr, u32 saddr)
{
	if (!loopback_dev || !netif_running(loopback_dev))
		return -ENETUNREACH;
	rt->dev = loopback_dev;
	rt->rt_gateway = daddr;
	rt->rt_src = saddr ? saddr : ipv4_is_loopback(daddr) ? INADDR_LOOPBACK : daddr;
	rt->rt_flags = RTCF_LOCAL;
	return 0;
}

int ip_route_output_key(struct rtable *rt, u32 daddr, u32 saddr)
{
	struct net_device *dev;
	u32 a, m, gw;

	memset(rt, 0, sizeof(*rt));
	rt->rt_dst = daddr;
	if (ipv4_is_zeronet(daddr) || ipv4_is_multicast(daddr))
		return -ENETUNREACH;		/* no multicast; 0/8 is not a destination */
	if (ipv4_is_loopback(daddr) || ip_dev_find(daddr))
		return route_local(rt, daddr, saddr);
	if (ipv4_is_lbcast(daddr)) {
		/* The interface of the bound source, else the first with an address. */
		dev = saddr ? ip_dev_find(saddr) : NULL;
		for (int i = 0; !dev && i < dev_count(); i++) {
			struct net_device *d = dev_get_nth(i);

			dev_ifaddr(d, &a, &m);
			if (netif_running(d) && !(d->flags & IFF_LOOPBACK) && a)
				dev = d;
		}
		if (!dev || !netif_running(dev) || (dev->flags & IFF_LOOPBACK))
			return -ENETUNREACH;
		dev_ifaddr(dev, &a, &m);
		rt->dev = dev;
		rt->rt_src = saddr ? saddr : a;
		rt->rt_gateway = daddr;
		rt->rt_flags = RTCF_BROADCAST;
		return 0;
	}
	dev = subnet_dev(daddr, &a, &m);
	if (dev) {
		rt->rt_gateway = daddr;
		if ((daddr | m) == 0xffffffffu)		/* subnet broadcast */
			rt->rt_flags = RTCF_BROADCAST;
	} else {
		gw = ip_default_gateway();
		if (!gw || !(dev = subnet_dev(gw, &a, &m)))
			return -ENETUNREACH;
		rt->rt_gateway = gw;
	}
	rt->dev = dev;
	rt->rt_src = saddr ? saddr : a;
	return 0;
}

int ip_route_input(struct rtable *rt, u32 daddr, u32 saddr, struct net_device *dev)
{
	u32 a, m;

	memset(rt, 0, sizeof(*rt));
	rt->dev = dev;
	rt->rt_dst = daddr;
	rt->rt_src = saddr;
	/* Martian sources: nobody sends from a broadcast or multicast address,
	 * nor from 127/8 over a wire. */
	if (ipv4_is_lbcast(saddr) || ipv4_is_multicast(saddr) ||
	    (ipv4_is_loopback(saddr) && !(dev->flags & IFF_LOOPBACK)))
		return -EINVAL;
	if (dev->flags & IFF_LOOPBACK) {
		rt->rt_flags = RTCF_LOCAL;
		return 0;
	}
	dev_ifaddr(dev, &a, &m);
	if (ipv4_is_lbcast(daddr) || (a && m != 0xffffffffu && daddr == (a | ~m))) {
		rt->rt_flags = RTCF_LOCAL | RTCF_BROADCAST;
		return 0;
	}
	/* Any of our addresses, on any interface (the weak host model). */
	if (!ipv4_is_loopback(daddr) && ip_dev_find(daddr)) {
		rt->rt_flags = RTCF_LOCAL;
		return 0;
	}
	return -EHOSTUNREACH;			/* someone else's: a host does not forward */
}
