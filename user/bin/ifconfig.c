/*
 * ifconfig: show and set interfaces (qs_netif, include/uapi/net.h).
 *
 *   ifconfig                           every interface, then the gateway
 *   ifconfig eth0                      one
 *   ifconfig eth0 10.0.0.1 [netmask 255.255.255.0 | /24] [up|down]
 *   ifconfig eth0 up | down
 *   ifconfig gw 10.0.0.254             the default gateway (0.0.0.0: none)
 *
 * Changes need uid 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <arpa/inet.h>
#include <qs_net.h>

static const char *ip(uint32_t a)
{
	struct in_addr in = { a };

	return inet_ntoa(in);
}

static void show(const struct qs_ifreq *r)
{
	const uint8_t *m = r->mac;

	printf("%s: flags=<%s%s%s%s> mtu %u  driver %s", r->name,
	       r->flags & QS_IFF_UP ? "UP" : "DOWN", r->flags & QS_IFF_BROADCAST ? ",BROADCAST" : "",
	       r->flags & QS_IFF_LOOPBACK ? ",LOOPBACK" : "",
	       r->flags & QS_IFF_RUNNING ? ",RUNNING" : "", r->mtu, r->driver);
	if (r->speed_mbps)
		printf(", link %u Mb/s", r->speed_mbps);
	printf("\n        inet %s", ip(r->addr));
	printf("  netmask %s\n", ip(r->netmask));
	printf("        ether %02x:%02x:%02x:%02x:%02x:%02x\n", m[0], m[1], m[2], m[3], m[4], m[5]);
	printf("        RX packets %lu  bytes %lu  errors %lu  dropped %lu  length %lu  missed %lu\n",
	       (unsigned long)r->rx_packets, (unsigned long)r->rx_bytes,
	       (unsigned long)r->rx_errors, (unsigned long)r->rx_dropped,
	       (unsigned long)r->rx_length_errors, (unsigned long)r->rx_missed);
	printf("        TX packets %lu  bytes %lu  errors %lu  dropped %lu\n",
	       (unsigned long)r->tx_packets, (unsigned long)r->tx_bytes,
	       (unsigned long)r->tx_errors, (unsigned long)r->tx_dropped);
	printf("        interrupts %lu  polls %lu  link changes %lu\n", (unsigned long)r->interrupts,
	       (unsigned long)r->polls, (unsigned long)r->link_changes);
}

static int show_all(const char *only)
{
	struct qs_ifreq r;
	int found = 0;

	for (int i = 0;; i++) {
		memset(&r, 0, sizeof(r));
		r.index = i;
		if (qs_netif(QS_NETIF_GET, &r) < 0)
			break;
		if (only && strcmp(only, r.name))
			continue;
		show(&r);
		found++;
	}
	if (only && !found) {
		fprintf(stderr, "ifconfig: %s: no such interface\n", only);
		return 1;
	}
	if (!only) {
		memset(&r, 0, sizeof(r));
		qs_netif(QS_NETIF_GET_GW, &r);
		printf("default gateway %s\n", r.addr ? ip(r.addr) : "none");
	}
	return 0;
}

static int fail(const char *what)
{
	fprintf(stderr, "ifconfig: %s: %s\n", what, strerror(errno));
	return 1;
}

static int set(int argc, char **argv)
{
	struct qs_ifreq r;
	struct in_addr a, m;
	int i = 2;

	memset(&r, 0, sizeof(r));
	strncpy(r.name, argv[1], sizeof(r.name) - 1);
	if (i < argc && inet_aton(argv[i], &a)) {
		m.s_addr = htonl(0xffffff00);
		i++;
		if (i + 1 < argc && !strcmp(argv[i], "netmask")) {
			if (!inet_aton(argv[i + 1], &m)) {
				fprintf(stderr, "ifconfig: %s: not a netmask\n", argv[i + 1]);
				return 2;
			}
			i += 2;
		} else if (i < argc && argv[i][0] == '/') {
			int p = atoi(argv[i] + 1);

			if (p < 0 || p > 32)
				return 2;
			m.s_addr = htonl(p ? ~0u << (32 - p) : 0);
			i++;
		}
		r.addr = a.s_addr;
		r.netmask = m.s_addr;
		if (qs_netif(QS_NETIF_SET_ADDR, &r) < 0)
			return fail(argv[1]);
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "up") && qs_netif(QS_NETIF_UP, &r) < 0)
			return fail(argv[1]);
		else if (!strcmp(argv[i], "down") && qs_netif(QS_NETIF_DOWN, &r) < 0)
			return fail(argv[1]);
		else if (strcmp(argv[i], "up") && strcmp(argv[i], "down")) {
			fprintf(stderr, "ifconfig: what is '%s'?\n", argv[i]);
			return 2;
		}
	}
	return show_all(argv[1]);
}

int main(int argc, char **argv)
{
	struct qs_ifreq r;
	struct in_addr a;

	if (argc == 1)
		return show_all(NULL);
	if (!strcmp(argv[1], "gw")) {
		if (argc != 3 || !inet_aton(argv[2], &a)) {
			fprintf(stderr, "usage: ifconfig gw a.b.c.d\n");
			return 2;
		}
		memset(&r, 0, sizeof(r));
		r.addr = a.s_addr;
		if (qs_netif(QS_NETIF_SET_GW, &r) < 0)
			return fail("gw");
		printf("default gateway %s\n", argv[2]);
		return 0;
	}
	if (argc == 2)
		return show_all(argv[1]);
	return set(argc, argv);
}
