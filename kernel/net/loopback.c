/*
 * The loopback device, lo: what is sent on it is received on it, through
 * this CPU's backlog (netif_rx), so a packet to 127.0.0.1 or to one of
 * our own addresses takes the same NET_RX path as one from a wire. Its
 * MTU is the 16436 bytes of Linux 2.6's lo; its address 127.0.0.1/8.
 */
#include <net/netdevice.h>
#include <net/ip.h>

static enum netdev_tx loopback_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	/* Counted as received here: netif_rx() may drop it (backlog full),
	 * and counts that separately. */
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	skb_dst_drop(skb);		/* routed again on the way in */
	netif_rx(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops loopback_ops = {
	.start_xmit	= loopback_xmit,
};

static struct net_device loopback = {
	.name		= "lo",
	.driver		= "loopback",
	.flags		= IFF_LOOPBACK,
	.mtu		= 16436,
	.ops		= &loopback_ops,
	.carrier	= true,
};

void loopback_init(void)
{
	if (register_netdev(&loopback))
		return;
	loopback_dev = &loopback;
	dev_set_ifaddr(&loopback, INADDR_LOOPBACK, htonl(0xff000000));
	dev_open(&loopback);
}
