/* Ethernet framing (kernel/net/eth.c). */
#ifndef _NET_ETH_H
#define _NET_ETH_H

#include <types.h>
#include <net/netdevice.h>

struct ethhdr {
	u8 h_dest[ETH_ALEN];
	u8 h_source[ETH_ALEN];
	u16 h_proto;			/* network order */
} __packed;

extern const u8 eth_broadcast_addr[ETH_ALEN];

static inline bool is_broadcast_ether_addr(const u8 *a)
{
	return (a[0] & a[1] & a[2] & a[3] & a[4] & a[5]) == 0xff;
}

static inline bool is_multicast_ether_addr(const u8 *a)
{
	return a[0] & 1;
}

static inline bool is_zero_ether_addr(const u8 *a)
{
	return !(a[0] | a[1] | a[2] | a[3] | a[4] | a[5]);
}

/*
 * Receive: check the frame holds an Ethernet header, classify it by
 * destination (skb->pkt_type), set skb->protocol, and pull the header.
 * Returns false, having counted and freed it, for a runt, a frame for
 * another host, or an 802.3 length field instead of an EtherType.
 */
bool eth_type_trans(struct sk_buff *skb);

/* Transmit: push the header (dest NULL: broadcast) and set skb->dev. */
void eth_header(struct sk_buff *skb, struct net_device *dev, u16 type, const u8 *dest);

/* "52:54:00:12:34:56" into buf (at least 18 bytes). */
const char *mac_str(const u8 *mac, char *buf);

#endif
