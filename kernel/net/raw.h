/* Raw ICMP sockets (kernel/net/raw.c): what ping uses. */
#ifndef _NET_RAW_H
#define _NET_RAW_H

#include <net/ip.h>

/* A copy of skb (data at the IP header) to every raw socket of protocol. */
void raw_deliver(struct sk_buff *skb, u8 protocol);

#endif
