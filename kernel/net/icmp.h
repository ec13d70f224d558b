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
#define ICMP_PORT_UNREACH	3	/* code of ICMP_DEST_UNREACH */

/* skb->data at the ICMP header; skb->saddr/daddr set. Consumes skb. */
void icmp_rcv(struct sk_buff *skb, const struct rtable *rt);
/*
 * An error about skb_in (its network header still in place; data may
 * point past it): type and code, rate limited; never about a broadcast,
 * a fragment or another ICMP error. Does not consume skb_in.
 */
void icmp_send(struct sk_buff *skb_in, const struct rtable *rt, u8 type, u8 code);

#endif
