/*
 * IPv4 input: every check a header must pass before anything in it is
 * believed, then local delivery to ICMP, UDP and raw sockets.
 *
 * In order (each failure is counted under its own name and the packet
 * freed; ip_in_hdr_errors counts them all):
 *   1. at least 20 bytes (ip_in_truncated);
 *   2. version 4 (ip_in_bad_version);
 *   3. IHL >= 5 words (ip_in_bad_ihl) and the header within the frame
 *      (ip_in_truncated);
 *   4. the header checksum (ip_in_csum_errors);
 *   5. total length >= the header and <= what arrived (ip_in_truncated:
 *      "a length that lies"); the Ethernet padding beyond it is trimmed;
 *   6. TTL > 0 (ip_in_ttl_zero). RFC 1122 3.2.1.7 forbids a host to send
 *      TTL 0, so such a packet is malformed; we do not forward, so TTL 1
 *      is fine;
 *   7. options, if IHL > 5: each option's length inside the header
 *      (ip_in_bad_options). Valid options are skipped, not acted on
 *      (ip_in_options): no source routing, no record route;
 *   8. a fragment (MF set or an offset) is dropped: there is no
 *      reassembly (ip_in_frags_dropped);
 *   9. the routing decision (ip_route_input(), through the route cache):
 *      a martian source is dropped (ip_in_bad_src); a destination that is
 *      not ours is forwarded on a router (ip_forward.c, net.ip_forward=1),
 *      else dropped (ip_in_addr_errors); one to forward with no route is
 *      answered with ICMP net unreachable (ip_in_no_routes).
 * The route stays with the packet (skb->dst, a reference) and says where
 * it goes: ip_local_deliver() or ip_forward().
 */
#include <net/ip.h>
#include <net/icmp.h>
#include <net/udp.h>
#include <net/raw.h>
#include <net/netstat.h>
#include <errno.h>

/* RFC 791 option list: type, length, data; 0 ends it, 1 is a one-byte pad. */
static bool ip_options_valid(const u8 *opt, unsigned int len)
{
	unsigned int i = 0;

	while (i < len) {
		u8 type = opt[i];

		if (type == 0)			/* end of list */
			return true;
		if (type == 1) {		/* no operation */
			i++;
			continue;
		}
		if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
			return false;
		i += opt[i + 1];
	}
	return true;
}

static bool ip_header_ok(struct sk_buff *skb)
{
	struct iphdr *iph = (struct iphdr *)skb->data;
	unsigned int hlen, tot_len;

	if (skb->len < sizeof(struct iphdr)) {
		NET_INC(ip_in_truncated);
		return false;
	}
	if (iph->version != 4) {
		NET_INC(ip_in_bad_version);
		return false;
	}
	hlen = iph->ihl * 4;
	if (iph->ihl < 5) {
		NET_INC(ip_in_bad_ihl);
		return false;
	}
	if (hlen > skb->len) {
		NET_INC(ip_in_truncated);
		return false;
	}
	if (ip_fast_csum(iph, iph->ihl) != 0) {
		NET_INC(ip_in_csum_errors);
		return false;
	}
	tot_len = ntohs(iph->tot_len);
	if (tot_len < hlen || tot_len > skb->len) {
		NET_INC(ip_in_truncated);
		return false;
	}
	if (iph->ttl == 0) {
		NET_INC(ip_in_ttl_zero);
		return false;
	}
	if (hlen > sizeof(struct iphdr)) {
		if (!ip_options_valid(skb->data + sizeof(struct iphdr), hlen - sizeof(struct iphdr))) {
			NET_INC(ip_in_bad_options);
			return false;
		}
		NET_INC(ip_in_options);
	}
	skb_trim(skb, tot_len);
	return true;
}

int ip_local_deliver(struct sk_buff *skb)
{
	struct iphdr *iph = (struct iphdr *)skb->data;
	const struct rtable *rt = skb_rtable(skb);

	skb->saddr = iph->saddr;
	skb->daddr = iph->daddr;
	skb->ttl = iph->ttl;
	/* Raw sockets see a copy of the whole IP packet first, as on Linux. */
	raw_deliver(skb, iph->protocol);
	skb_pull(skb, iph->ihl * 4);
	skb_set_transport_header(skb);
	switch (iph->protocol) {
	case IPPROTO_ICMP:
		NET_INC(ip_in_delivers);
		icmp_rcv(skb, rt);
		break;
	case IPPROTO_UDP:
		NET_INC(ip_in_delivers);
		udp_rcv(skb, rt);
		break;
	default:
		NET_INC(ip_in_unknown_protos);
		kfree_skb(skb);
	}
	return 0;
}

void ip_rcv(struct sk_buff *skb)
{
	struct iphdr *iph;
	int err;

	NET_INC(ip_in_receives);
	skb_set_network_header(skb);
	if (!ip_header_ok(skb)) {
		NET_INC(ip_in_hdr_errors);
		goto drop;
	}
	iph = (struct iphdr *)skb->data;
	if (ntohs(iph->frag_off) & (IP_MF | IP_OFFSET)) {
		NET_INC(ip_in_frags_dropped);
		goto drop;
	}
	err = ip_route_input(skb, iph->daddr, iph->saddr, iph->tos, skb->dev);
	switch (err) {
	case 0:
		skb_rtable(skb)->u.dst.input(skb);	/* dst_input(): deliver or forward */
		return;
	case -EINVAL:
		NET_INC(ip_in_bad_src);
		break;
	case -ENETUNREACH:
		NET_INC(ip_in_no_routes);
		icmp_send_noroute(skb, ICMP_DEST_UNREACH, ICMP_NET_UNREACH);
		break;
	case -ENOBUFS:
		NET_INC(ip_in_discards);
		break;
	default:
		NET_INC(ip_in_addr_errors);
	}
drop:
	kfree_skb(skb);
}
