/*
 * Interface configuration: from the kernel command line at boot, and at
 * run time through qs_netif() (ifconfig).
 *
 * Command line:
 *   ip=10.0.2.15/24                     eth0's address and prefix
 *   ip=eth0:10.0.0.1/24,eth1:10.0.3.15/24
 *   netmask=255.255.255.0               eth0's mask, if ip= gave no prefix
 *   gw=10.0.2.2                         the default gateway
 * The options are read before any device exists; net_config_apply()
 * applies them once the drivers have registered theirs. Every interface
 * starts up; one without an address only answers nobody.
 *
 * Changing an interface or the gateway takes uid 0 (the fuzzer runs as
 * 1000 and must not pull the network out from under the tests).
 */
#include <net/netdevice.h>
#include <net/ip.h>
#include <net/arp.h>
#include <syscall.h>
#include <uaccess.h>
#include <cmdline.h>
#include <string.h>
#include <printk.h>
#include <errno.h>
#include <cred.h>

static char cmdline_ip[128], cmdline_netmask[20], cmdline_gw[20];

static int set_ip(const char *v)
{
	return v && strlcpy(cmdline_ip, v, sizeof(cmdline_ip)) < sizeof(cmdline_ip) ? 0 : -EINVAL;
}
CMDLINE_PARAM("ip", set_ip,
	      "ip=<addr>[/<prefix>] or ip=<if>:<addr>/<prefix>[,...]: interface addresses");

static int set_netmask(const char *v)
{
	u32 m;

	if (!v || ip_parse(v, &m))
		return -EINVAL;
	strlcpy(cmdline_netmask, v, sizeof(cmdline_netmask));
	return 0;
}
CMDLINE_PARAM("netmask", set_netmask, "netmask=<a.b.c.d>: eth0's netmask (with ip=<addr>)");

static int set_gw(const char *v)
{
	u32 g;

	if (!v || ip_parse(v, &g))
		return -EINVAL;
	strlcpy(cmdline_gw, v, sizeof(cmdline_gw));
	return 0;
}
CMDLINE_PARAM("gw", set_gw, "gw=<a.b.c.d>: the default gateway");

const char *ip_str(u32 addr, char *buf)
{
	u32 a = ntohl(addr);

	snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
	return buf;
}

int ip_parse(const char *s, u32 *addr)
{
	u32 a = 0;

	for (int i = 0; i < 4; i++) {
		unsigned int v = 0, digits = 0;

		while (*s >= '0' && *s <= '9' && digits < 4) {
			v = v * 10 + (*s++ - '0');
			digits++;
		}
		if (!digits || v > 255)
			return -EINVAL;
		a = a << 8 | v;
		if (i < 3 && *s++ != '.')
			return -EINVAL;
	}
	if (*s && *s != '/' && *s != ',')
		return -EINVAL;
	*addr = htonl(a);
	return 0;
}

static u32 prefix_to_mask(unsigned int prefix)
{
	return htonl(prefix ? ~0u << (32 - prefix) : 0);
}

static bool mask_valid(u32 mask)
{
	u32 m = ntohl(mask);

	return (~m & (~m + 1)) == 0;	/* ones then zeros */
}

/* A unicast address an interface may carry. */
static bool addr_valid(u32 a)
{
	return a && !ipv4_is_lbcast(a) && !ipv4_is_multicast(a) && !ipv4_is_zeronet(a);
}

static void print_ifaddr(struct net_device *dev)
{
	char a[16], m[16];
	u32 addr, mask;

	dev_ifaddr(dev, &addr, &mask);
	printk("net: %s: inet %s netmask %s\n", dev->name, ip_str(addr, a), ip_str(mask, m));
}

/* "[<if>:]<addr>[/<prefix>]" */
static void apply_one(char *item)
{
	struct net_device *dev;
	char *colon = strchr(item, ':'), *slash;
	u32 addr, mask = htonl(0xffffff00);
	unsigned long prefix;

	dev = dev_get_by_name(colon ? (*colon = 0, item) : "eth0");
	item = colon ? colon + 1 : item;
	slash = strchr(item, '/');
	if (!dev) {
		printk("net: ip=: no interface %s\n", colon ? item : "eth0");
		return;
	}
	if (ip_parse(item, &addr) || !addr_valid(addr)) {
		printk("net: ip=: '%s' is not a unicast address (ignored)\n", item);
		return;
	}
	if (slash) {
		if (kstrtoul(slash + 1, 10, &prefix) || prefix > 32) {
			printk("net: ip=: bad prefix '%s' (ignored)\n", slash + 1);
			return;
		}
		mask = prefix_to_mask(prefix);
	} else if (!colon && cmdline_netmask[0]) {
		ip_parse(cmdline_netmask, &mask);
	}
	if (!mask_valid(mask)) {
		printk("net: ip=: netmask is not contiguous (ignored)\n");
		return;
	}
	dev_set_ifaddr(dev, addr, mask);
	print_ifaddr(dev);
}

void net_config_apply(void)
{
	char buf[sizeof(cmdline_ip)], *p = buf, *item;
	u32 gw;

	strlcpy(buf, cmdline_ip, sizeof(buf));
	while (p && *p) {
		item = p;
		p = strchr(p, ',');
		if (p)
			*p++ = 0;
		apply_one(item);
	}
	if (cmdline_gw[0] && !ip_parse(cmdline_gw, &gw)) {
		ip_set_default_gateway(gw);
		printk("net: default gateway %s\n", cmdline_gw);
	}
}

/* ---- qs_netif() */

static void fill_ifreq(struct net_device *dev, struct qs_ifreq *r)
{
	const struct net_device_stats *s = &dev->stats;

	memset(r, 0, sizeof(*r));
	r->index = dev->ifindex - 1;
	strlcpy(r->name, dev->name, sizeof(r->name));
	strlcpy(r->driver, dev->driver, sizeof(r->driver));
	r->flags = (READ_ONCE(dev->flags) & (IFF_UP | IFF_BROADCAST | IFF_LOOPBACK)) |
		   (netif_carrier_ok(dev) ? QS_IFF_RUNNING : 0);
	r->mtu = dev->mtu;
	memcpy(r->mac, dev->dev_addr, ETH_ALEN);
	dev_ifaddr(dev, &r->addr, &r->netmask);
	r->rx_packets = s->rx_packets;
	r->rx_bytes = s->rx_bytes;
	r->rx_errors = s->rx_errors;
	r->rx_dropped = s->rx_dropped;
	r->rx_length_errors = s->rx_length_errors;
	r->tx_packets = s->tx_packets;
	r->tx_bytes = s->tx_bytes;
	r->tx_errors = s->tx_errors;
	r->tx_dropped = s->tx_dropped;
	r->interrupts = s->interrupts;
	r->polls = s->polls;
	r->link_changes = s->link_changes;
	if (dev->ops->get_stats)
		dev->ops->get_stats(dev, r);
}

static long netif_set(int op, struct qs_ifreq *r)
{
	struct net_device *dev;

	if (op == QS_NETIF_SET_GW) {
		if (r->addr && !addr_valid(r->addr))
			return -EINVAL;
		return ip_set_default_gateway(r->addr);
	}
	r->name[sizeof(r->name) - 1] = 0;
	dev = dev_get_by_name(r->name);
	if (!dev)
		return -ENODEV;
	switch (op) {
	case QS_NETIF_SET_ADDR:
		if ((r->addr && !addr_valid(r->addr)) || !mask_valid(r->netmask))
			return -EINVAL;
		if (r->addr && ipv4_is_loopback(r->addr) && !(dev->flags & IFF_LOOPBACK))
			return -EINVAL;		/* 127/8 belongs to lo */
		dev_set_ifaddr(dev, r->addr, r->addr ? r->netmask : 0);
		return 0;
	case QS_NETIF_UP:
		return dev_open(dev);
	case QS_NETIF_DOWN:
		dev_close(dev);
		return 0;
	}
	return -EINVAL;
}

static long sys_qs_netif(struct pt_regs *r)
{
	struct qs_ifreq __user *ureq = (struct qs_ifreq __user *)SYSCALL_ARG1(r);
	long op = SYSCALL_ARG0(r);
	struct net_device *dev;
	struct qs_ifreq req;

	if (op < QS_NETIF_GET || op > QS_NETIF_SET_GW)
		return -EINVAL;
	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	switch (op) {
	case QS_NETIF_GET:
		dev = dev_get_nth(req.index);
		if (!dev)
			return -ENODEV;
		fill_ifreq(dev, &req);
		break;
	case QS_NETIF_GET_GW:
		req.addr = ip_default_gateway();
		break;
	default:
		if (!capable(CAP_NET_ADMIN))
			return -EPERM;
		return netif_set(op, &req);
	}
	return copy_to_user(ureq, &req, sizeof(req)) ? -EFAULT : 0;
}
SYSCALL_DEFINE(SYS_qs_netif, sys_qs_netif);

static long sys_qs_neigh(struct pt_regs *r)
{
	struct qs_neighinfo info;
	long err;

	switch (SYSCALL_ARG0(r)) {
	case QS_NEIGH_GET:
		err = neigh_get_info(SYSCALL_ARG1(r), &info);
		if (err)
			return err;
		return copy_to_user((void __user *)SYSCALL_ARG2(r), &info, sizeof(info)) ? -EFAULT : 0;
	case QS_NEIGH_FLUSH:
		if (!capable(CAP_NET_ADMIN))
			return -EPERM;
		neigh_flush();
		return 0;
	}
	return -EINVAL;
}
SYSCALL_DEFINE(SYS_qs_neigh, sys_qs_neigh);
