/*
 * IPv4 output: put the header in front of a transport packet and hand it
 * to the link along a route from ip_route_output_key(): the loopback
 * device for local destinations, a broadcast frame for broadcasts, the
 * neighbour layer (ARP) for everything else. Packets are never larger
 * than the route's MTU (UDP refuses them with EMSGSIZE), so there is no
 * fragmentation, and DF stays clear as RFC 791 allows.
 */
#include <net/ip.h>
#include <net/eth.h>
#include <net/arp.h>
#include <net/netstat.h>
#include <atomic.h>
#include <errno.h>

static atomic_t ip_ident;

int ip_queue_xmit(struct sk_buff *skb, struct rtable *rt, u8 protocol, u8 ttl)
{
	struct net_device *dev = rt->u.dst.dev;
	struct iphdr *iph;

	if (skb->len + sizeof(*iph) > dev->mtu) {	/* a caller's bug: they check */
		NET_INC(ip_out_discards);
		kfree_skb(skb);
		return -EMSGSIZE;
	}
	iph = skb_push(skb, sizeof(*iph));
	skb_set_network_header(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = 0;
	iph->tot_len = htons(skb->len);
	iph->id = htons((u16)atomic_inc_return(&ip_ident));
	iph->frag_off = 0;
	iph->ttl = ttl;
	iph->protocol = protocol;
	iph->saddr = rt->rt_src;
	iph->daddr = rt->rt_dst;
	iph->check = 0;
	iph->check = ip_fast_csum(iph, iph->ihl);
	NET_INC(ip_out_requests);
	skb_dst_drop(skb);
	skb->dst = dst_clone(&rt->u.dst);	/* the packet's own: held until it is freed */

	if (rt->rt_flags & RTCF_LOCAL) {
		/* Loopback: a frame to nobody in particular, back to netif_rx. */
		eth_header(skb, dev, ETH_P_IP, dev->dev_addr);
		return dev_queue_xmit(skb);
	}
	if (rt->rt_flags & RTCF_BROADCAST) {
		eth_header(skb, dev, ETH_P_IP, NULL);
		return dev_queue_xmit(skb);
	}
	return neigh_output(skb, dev, rt->rt_gateway);
}
