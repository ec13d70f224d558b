/*
 * ARP (RFC 826, kernel/net/arp.c) and the neighbour table it fills
 * (kernel/net/neighbour.c): which Ethernet address an IPv4 next hop has.
 */
#ifndef _NET_ARP_H
#define _NET_ARP_H

#include <types.h>
#include <net/netdevice.h>
#include <uapi/net.h>

#define ARPHRD_ETHER	1
#define ARPOP_REQUEST	1
#define ARPOP_REPLY	2

struct arphdr {
	u16 ar_hrd;			/* hardware type: 1, Ethernet */
	u16 ar_pro;			/* protocol: 0x0800, IPv4 */
	u8 ar_hln, ar_pln;		/* address lengths: 6 and 4 */
	u16 ar_op;
	u8 ar_sha[ETH_ALEN];
	u32 ar_sip;
	u8 ar_tha[ETH_ALEN];
	u32 ar_tip;
} __packed;

void arp_rcv(struct sk_buff *skb);
/* Send an ARP packet; dest_hw NULL: a broadcast request. */
void arp_send(int op, struct net_device *dev, u32 dest_ip, const u8 *dest_hw, u32 src_ip);

/*
 * Send skb (an IP packet) to nexthop on dev: at once if its address is
 * known, else once an ARP reply tells it (a few packets wait meanwhile).
 * Consumes skb.
 */
int neigh_output(struct sk_buff *skb, struct net_device *dev, u32 nexthop);
/* ARP told us ip is at mac; create: also make a new entry. */
void neigh_update(struct net_device *dev, u32 ip, const u8 *mac, bool create);
bool neigh_known(struct net_device *dev, u32 ip);
int neigh_get_info(int index, struct qs_neighinfo *out);
void neigh_flush(void);
long neigh_count(void);
void neigh_init(void);

#endif
