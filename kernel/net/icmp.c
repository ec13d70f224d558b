/*
 * ICMP: answer echo requests (ping), count what else arrives, and send
 * port unreachable for UDP datagrams nobody listens for. Raw ICMP
 * sockets (raw.c) have already seen a copy of every ICMP packet, which
 * is how ping receives its replies.
 *
 * Checks: the message is at least the 8-byte header and its checksum
 * (over the whole message) is right, else icmp_in_errors. Echo requests
 * to a broadcast address are ignored (as Linux does by default:
 * icmp_echo_ignore_broadcasts), so one ping cannot make a whole subnet
 * answer.
 *
 * Errors are rate limited to ICMP_ERRORS_PER_SEC, a token bucket refilled
 * from jiffies (RFC 1812 4.3.2.8 asks for a limit), so a flood to a
 * closed port does not become a flood back.
 */
#include <net/icmp.h>
#include <net/netstat.h>
#include <spinlock.h>
#include <string.h>
#include <time.h>

#define ICMP_ERRORS_PER_SEC	100

static void icmp_echo_reply(struct sk_buff *skb, const struct rtable *rt_in)
{
	struct sk_buff *reply;
	struct icmphdr *icmp;
	struct rtable *rt;

	/* The reply goes back from the address that was asked. */
	if (ip_route_output_key(&rt, skb->saddr, skb->daddr, 0)) {
		NET_INC(ip_out_no_routes);
		return;
	}
	if (skb->len + sizeof(struct iphdr) > rt->u.dst.pmtu ||
	    !(reply = alloc_skb(MAX_HEADER + skb->len))) {
		ip_rt_put(rt);
		return;
	}
	skb_reserve(reply, MAX_HEADER);
	icmp = skb_put(reply, skb->len);
	memcpy(icmp, skb->data, skb->len);	/* id, sequence and data as they came */
	icmp->type = ICMP_ECHOREPLY;
	icmp->code = 0;
	icmp->checksum = 0;
	icmp->checksum = csum_fold(csum_partial(icmp, reply->len, 0));
	NET_INC(icmp_out_msgs);
	NET_INC(icmp_out_echo_reps);
	ip_queue_xmit(reply, rt, IPPROTO_ICMP, IPDEFTTL);
	ip_rt_put(rt);
}

void icmp_rcv(struct sk_buff *skb, const struct rtable *rt)
{
	struct icmphdr *icmp = (struct icmphdr *)skb->data;

	NET_INC(icmp_in_msgs);
	if (skb->len < sizeof(*icmp) || csum_fold(csum_partial(skb->data, skb->len, 0)) != 0) {
		NET_INC(icmp_in_errors);
		goto out;
	}
	switch (icmp->type) {
	case ICMP_ECHO:
		NET_INC(icmp_in_echos);
		if (!(rt->rt_flags & RTCF_BROADCAST))
			icmp_echo_reply(skb, rt);
		break;
	case ICMP_ECHOREPLY:
		NET_INC(icmp_in_echo_reps);
		break;
	case ICMP_DEST_UNREACH:
		NET_INC(icmp_in_dest_unreachs);
		break;
	}
out:
	kfree_skb(skb);
}

static DEFINE_SPINLOCK(icmp_rate_lock);
/* Credit in 1/HZ of an error: each jiffy earns ICMP_ERRORS_PER_SEC, an error costs HZ. */
static unsigned long icmp_credit = ICMP_ERRORS_PER_SEC * HZ, icmp_last;

static bool icmp_rate_ok(void)
{
	unsigned long flags = spin_lock_irqsave(&icmp_rate_lock);
	unsigned long now = jiffies;
	bool ok;

	icmp_credit += (now - icmp_last) * ICMP_ERRORS_PER_SEC;
	icmp_last = now;
	if (icmp_credit > ICMP_ERRORS_PER_SEC * HZ)
		icmp_credit = ICMP_ERRORS_PER_SEC * HZ;
	ok = icmp_credit >= HZ;
	if (ok)
		icmp_credit -= HZ;
	spin_unlock_irqrestore(&icmp_rate_lock, flags);
	return ok;
}

/* Is the packet at iph an ICMP error (which no error may answer, RFC 1122 3.2.2)? */
static bool icmp_is_error(const struct iphdr *iph, const struct sk_buff *skb)
{
	const u8 *icmp = (const u8 *)iph + iph->ihl * 4;

	if (iph->protocol != IPPROTO_ICMP)
		return false;
	if (icmp + 1 > skb->tail)
		return true;			/* too short to tell: say nothing */
	return *icmp != ICMP_ECHO && *icmp != ICMP_ECHOREPLY;
}

void icmp_send(struct sk_buff *skb_in, const struct rtable *rt_in, u8 type, u8 code)
{
	struct iphdr *iph = (struct iphdr *)skb_network_header(skb_in);
	unsigned int hlen = iph->ihl * 4, quote;
	struct icmphdr *icmp;
	struct sk_buff *skb;
	struct rtable *rt;
	u32 src;

	if ((rt_in && rt_in->rt_flags & RTCF_BROADCAST) || skb_in->pkt_type != PACKET_HOST ||
	    icmp_is_error(iph, skb_in))
		return;
	if (!icmp_rate_ok()) {
		NET_INC(icmp_out_rate_limited);
		return;
	}
	/* From the address the packet was sent to if it is ours; a packet we
	 * were forwarding gets its answer from the route back's own source. */
	src = rt_in && (rt_in->rt_flags & RTCF_LOCAL) ? iph->daddr : 0;
	if (ip_route_output_key(&rt, iph->saddr, src, 0)) {
		NET_INC(ip_out_no_routes);
		return;
	}
	/* The offending header and the first 8 bytes after it (RFC 792). */
	quote = MIN(hlen + 8, (unsigned int)(skb_in->tail - (unsigned char *)iph));
	skb = alloc_skb(MAX_HEADER + sizeof(*icmp) + quote);
	if (!skb) {
		ip_rt_put(rt);
		return;
	}
	skb_reserve(skb, MAX_HEADER);
	icmp = skb_put(skb, sizeof(*icmp));
	icmp->type = type;
	icmp->code = code;
	icmp->id = icmp->sequence = 0;
	memcpy(skb_put(skb, quote), iph, quote);
	icmp->checksum = 0;
	icmp->checksum = csum_fold(csum_partial(icmp, skb->len, 0));
	NET_INC(icmp_out_msgs);
	if (type == ICMP_TIME_EXCEEDED)
		NET_INC(icmp_out_time_excds);
	else
		NET_INC(icmp_out_dest_unreachs);
	ip_queue_xmit(skb, rt, IPPROTO_ICMP, IPDEFTTL);
	ip_rt_put(rt);
}
