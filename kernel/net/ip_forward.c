/*
 * IPv4 forwarding (RFC 1812 5.2, after Linux's ip_forward()): a packet
 * whose input route (ip_route_input(), through the route cache) says
 * "to another host" leaves again by the route's interface, towards its
 * next hop, with its TTL one less. Only a router does this
 * (net.ip_forward=1, or `route forward on`); a host drops such packets.
 *
 *   - TTL 1 or less: not forwarded; ICMP time exceeded to the sender
 *     (RFC 1812 5.3.1), from our address on the way back.
 *   - The TTL is decremented and the header checksum updated in place,
 *     incrementally (RFC 1624): the TTL is the high byte of a 16-bit word
 *     of the header, so the sum drops by 0x0100 and the checksum, its
 *     complement, rises by as much, with the end-around carry.
 *   - Larger than the interface out: dropped, with ICMP fragmentation
 *     needed if DF is set (there is no fragmentation here). With two
 *     Ethernet interfaces of MTU 1500 it does not happen.
 *   - Sent by neigh_output(): ARP for the next hop on the interface out,
 *     the packet waiting meanwhile. The packet keeps its route (skb->dst)
 *     until the NIC has sent it.
 * Not done (as Linux does, but not needed here): ICMP redirects when the
 * packet leaves by the interface it came in on; source routing options.
 */
#include <net/ip.h>
#include <net/icmp.h>
#include <net/arp.h>
#include <net/netstat.h>

static inline void ip_decrease_ttl(struct iphdr *iph)
{
	u32 check = iph->check;

	check += htons(0x0100);
	iph->check = (u16)(check + (check >= 0xffff));
	iph->ttl--;
}

int ip_forward(struct sk_buff *skb)
{
	struct rtable *rt = skb_rtable(skb);
	struct iphdr *iph = (struct iphdr *)skb->data;

	if (skb->pkt_type != PACKET_HOST)
		goto drop;			/* a link-layer broadcast is not ours to pass on */
	if (iph->ttl <= 1) {
		NET_INC(ip_forw_ttl_exceeded);
		icmp_send(skb, rt, ICMP_TIME_EXCEEDED, ICMP_EXC_TTL);
		goto drop;
	}
	if (skb->len > rt->u.dst.pmtu) {
		NET_INC(ip_forw_too_big);
		if (iph->frag_off & htons(IP_DF))
			icmp_send(skb, rt, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED);
		goto drop;
	}
	ip_decrease_ttl(iph);
	NET_INC(ip_forw_datagrams);
	return neigh_output(skb, rt->u.dst.dev, rt->rt_gateway);
drop:
	kfree_skb(skb);
	return 0;
}
