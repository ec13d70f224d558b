/* ICMP (RFC 792, kernel/net/icmp.c): echo, and port unreachable for UDP. */
#ifndef _NET_ICMP_H
#define _NET_ICMP_H

#include <net/ip.h>

struct icmphdr {
	u8 type, code;
	u16 checksum;
	u16 id, sequence;		/* echo; otherwise unused (zero) */
} __packed;

#define ICMP_ECHOREPLY		0
#define ICMP_DEST_UNREACH	3
#define ICMP_ECHO		8
#define ICMP_TIME_EXCEEDED	11
#define ICMP_NET_UNREACH	0	/* codes of ICMP_DEST_UNREACH */
#define ICMP_PORT_UNREACH	3
#define ICMP_FRAG_NEEDED	4
#define ICMP_EXC_TTL		0	/* code of ICMP_TIME_EXCEEDED */

/* skb->data at the ICMP header; skb->saddr/daddr set. Consumes skb. */
void icmp_rcv(struct sk_buff *skb, const struct rtable *rt);
/*
 * An error about skb_in (its network header still in place; data may
 * point past it): type and code, rate limited; never about a broadcast,
 * a fragment or another ICMP error. rt: skb_in's input route, NULL if it
 * has none (no route to forward it by). Does not consume skb_in.
 */
void icmp_send(struct sk_buff *skb_in, const struct rtable *rt, u8 type, u8 code);
static inline void icmp_send_noroute(struct sk_buff *skb_in, u8 type, u8 code)
{
	icmp_send(skb_in, NULL, type, code);
}

#endif
