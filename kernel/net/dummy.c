/*
 * The dummy device, dummy0 (the idea of Linux's drivers/net/dummy.c): an
 * Ethernet interface with an address and no wire. What is sent on it is
 * counted and freed; nothing is ever received.
 *
 *   net.dummy                          register dummy0 at boot
 *   ip=dummy0:10.0.3.15/24             and give it an address (netif.c)
 *
 * It is for the tests that route by an interface (route_test.h: the route
 * stress, the cache's tests) on a machine with no network card: nothing
 * outside the guest answers on it, so a boot that uses it can run in the
 * deterministic mode (docs/replay.md), which refuses network cards
 * because their peers answer on host time. Off unless asked, so that a
 * boot's interfaces are what its QEMU command line gave it.
 */
#include <net/netdevice.h>
#include <cmdline.h>
#include <printk.h>
#include <errno.h>

static bool dummy_wanted;

static int set_dummy(const char *val)
{
	if (val)
		return -EINVAL;		/* a bare option: no value to misread */
	dummy_wanted = true;
	return 0;
}
CMDLINE_PARAM("net.dummy", set_dummy,
	      "net.dummy: register dummy0, an interface with no wire (give it ip=dummy0:<addr>/<prefix>)");

static enum netdev_tx dummy_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops dummy_ops = {
	.start_xmit	= dummy_xmit,
};

static struct net_device dummy = {
	.name		= "dummy0",
	.driver		= "dummy",
	.flags		= IFF_BROADCAST,
	.mtu		= ETH_DATA_LEN,
	/* Locally administered (bit 1 of the first byte), unicast. */
	.dev_addr	= { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
	.ops		= &dummy_ops,
	.carrier	= true,
};

void dummy_init(void)
{
	int err;

	if (!dummy_wanted)
		return;
	err = register_netdev(&dummy);
	if (err) {
		printk("net: dummy0 not registered (%d)\n", err);
		return;
	}
	dev_open(&dummy);
}
