/*
 * ARP (RFC 826): answer requests for our addresses, learn from replies,
 * and check every field before trusting one. A packet that is not
 * Ethernet/IPv4 with 6- and 4-byte addresses, whose operation is neither
 * request nor reply, or whose sender claims a multicast hardware address
 * or a broadcast or multicast IP address, is counted (arp_in_errors) and
 * dropped without touching the neighbour table.
 *
 * What we learn, as Linux does with arp_accept off: a request for one of
 * our addresses creates or refreshes an entry for its sender (we are
 * about to answer it); any other packet only refreshes an entry we
 * already have (a reply to our request, a gratuitous ARP). Unsolicited
 * news about strangers is ignored, so a flood of ARP cannot fill the
 * table.
 */
#include <net/arp.h>
#include <net/eth.h>
#include <net/ip.h>
#include <net/netstat.h>
#include <string.h>

static bool arp_valid(const struct arphdr *arp)
{
	u16 op = ntohs(arp->ar_op);

	return ntohs(arp->ar_hrd) == ARPHRD_ETHER && ntohs(arp->ar_pro) == ETH_P_IP &&
	       arp->ar_hln == ETH_ALEN && arp->ar_pln == 4 &&
	       (op == ARPOP_REQUEST || op == ARPOP_REPLY) &&
	       !is_multicast_ether_addr(arp->ar_sha) && !is_zero_ether_addr(arp->ar_sha) &&
	       !ipv4_is_lbcast(arp->ar_sip) && !ipv4_is_multicast(arp->ar_sip) &&
	       !ipv4_is_loopback(arp->ar_sip);
}

void arp_rcv(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct arphdr *arp = (struct arphdr *)skb->data;
	u32 addr, mask, sip, tip;
	u8 sha[ETH_ALEN];
	u16 op;

	NET_INC(arp_in);
	if (skb->len < sizeof(*arp) || !arp_valid(arp)) {
		NET_INC(arp_in_errors);
		goto out;
	}
	op = ntohs(arp->ar_op);
	sip = arp->ar_sip;
	tip = arp->ar_tip;
	memcpy(sha, arp->ar_sha, ETH_ALEN);
	dev_ifaddr(dev, &addr, &mask);
	if (addr && tip == addr) {
		if (op == ARPOP_REQUEST) {
			NET_INC(arp_in_requests);
			/* 0.0.0.0 asks whether the address is taken (RFC 5227):
			 * answer, but there is nobody to remember. */
			if (sip)
				neigh_update(dev, sip, sha, true);
			kfree_skb(skb);
			arp_send(ARPOP_REPLY, dev, sip, sha, addr);
			return;
		}
		NET_INC(arp_in_replies);
		neigh_update(dev, sip, sha, false);
	} else if (sip && neigh_known(dev, sip)) {
		neigh_update(dev, sip, sha, false);
	} else {
		NET_INC(arp_in_ignored);
	}
out:
	kfree_skb(skb);
}

void arp_send(int op, struct net_device *dev, u32 dest_ip, const u8 *dest_hw, u32 src_ip)
{
	struct sk_buff *skb = alloc_skb(MAX_HEADER + sizeof(struct arphdr));
	struct arphdr *arp;

	if (!skb)
		return;
	skb_reserve(skb, MAX_HEADER);
	arp = skb_put(skb, sizeof(*arp));
	arp->ar_hrd = htons(ARPHRD_ETHER);
	arp->ar_pro = htons(ETH_P_IP);
	arp->ar_hln = ETH_ALEN;
	arp->ar_pln = 4;
	arp->ar_op = htons(op);
	memcpy(arp->ar_sha, dev->dev_addr, ETH_ALEN);
	arp->ar_sip = src_ip;
	if (dest_hw)
		memcpy(arp->ar_tha, dest_hw, ETH_ALEN);
	else
		memset(arp->ar_tha, 0, ETH_ALEN);
	arp->ar_tip = dest_ip;
	eth_header(skb, dev, ETH_P_ARP, dest_hw);
	if (op == ARPOP_REQUEST)
		NET_INC(arp_out_requests);
	else
		NET_INC(arp_out_replies);
	dev_queue_xmit(skb);
}
