/*
 * net_init(): the stack bottom-up (docs/net.md walks one packet through
 * it). The device layer and its softirqs first, so that a driver's first
 * interrupt finds NET_RX open; the routing table and route cache, before
 * any interface comes up and adds its subnet; the protocols' tables;
 * loopback, the dummy device if asked for (net.dummy), then the
 * PCI NICs, each brought up as it is found; last, the addresses and
 * gateway from the command line, now that the interfaces exist.
 */
#include <net.h>
#include <net/netdevice.h>
#include <net/arp.h>
#include <net/udp.h>
#include <net/ip.h>
#include <printk.h>

void net_init(void)
{
	net_dev_init();
	ip_rt_init();
	udp_init();
	neigh_init();
	loopback_init();
	dummy_init();
	e1000_init();
	net_config_apply();
	printk("net: %d interfaces\n", dev_count());
}
