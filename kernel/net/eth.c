/*
 * Ethernet II framing: a 14-byte header of destination, source and
 * EtherType in front of every packet. The NIC has already checked and
 * stripped the CRC (e1000: RCTL.SECRC) and padded short frames to 60
 * bytes, so the IP layer trims what follows its total length.
 */
#include <net/eth.h>
#include <net/netstat.h>
#include <string.h>
#include <arch/byteorder.h>

const u8 eth_broadcast_addr[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

bool eth_type_trans(struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	struct ethhdr *eh = (struct ethhdr *)skb->data;

	NET_INC(eth_in_frames);
	if (skb->len < ETH_HLEN) {
		NET_INC(eth_in_runts);
		goto drop;
	}
	skb->mac_off = skb->data - skb->head;
	if (is_multicast_ether_addr(eh->h_dest))
		skb->pkt_type = is_broadcast_ether_addr(eh->h_dest) ? PACKET_BROADCAST
								    : PACKET_MULTICAST;
	else if (!(dev->flags & IFF_LOOPBACK) && memcmp(eh->h_dest, dev->dev_addr, ETH_ALEN))
		skb->pkt_type = PACKET_OTHERHOST;
	else
		skb->pkt_type = PACKET_HOST;
	if (skb->pkt_type == PACKET_OTHERHOST) {
		NET_INC(eth_in_other_host);
		goto drop;
	}
	skb->protocol = ntohs(eh->h_proto);
	if (skb->protocol < 0x0600) {		/* an 802.3 length: no EtherType */
		NET_INC(eth_in_unknown_type);
		goto drop;
	}
	skb_pull(skb, ETH_HLEN);
	return true;
drop:
	__atomic_fetch_add(&dev->stats.rx_dropped, 1, __ATOMIC_RELAXED);
	kfree_skb(skb);
	return false;
}

void eth_header(struct sk_buff *skb, struct net_device *dev, u16 type, const u8 *dest)
{
	struct ethhdr *eh = skb_push(skb, ETH_HLEN);

	memcpy(eh->h_dest, dest ? dest : eth_broadcast_addr, ETH_ALEN);
	memcpy(eh->h_source, dev->dev_addr, ETH_ALEN);
	eh->h_proto = htons(type);
	skb->dev = dev;
	skb->mac_off = skb->data - skb->head;
}

const char *mac_str(const u8 *m, char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}
