/* UDP (RFC 768, kernel/net/udp.c). */
#ifndef _NET_UDP_H
#define _NET_UDP_H

#include <net/ip.h>

struct udphdr {
	u16 source, dest;		/* network order */
	u16 len;			/* header and data */
	u16 check;			/* 0: none computed */
} __packed;

/* skb->data at the UDP header; skb->saddr/daddr set. Consumes skb. */
void udp_rcv(struct sk_buff *skb, const struct rtable *rt);
void udp_init(void);

#endif
