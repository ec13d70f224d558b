/*
 * netstat: the network's counters, layer by layer (qs_netstat), the
 * interfaces' packet counts, and the neighbour (ARP) table.
 *
 *   netstat              counters that are not zero, interfaces, neighbours
 *   netstat -a           every counter
 *   netstat -n           the neighbour table only
 *   netstat -g NAME      one counter: "NAME VALUE"
 *   netstat -w NAME N S  wait until counter NAME reaches N, at most S seconds
 *                        (exit 1 if it did not): a test's rendezvous
 *   netstat -f           flush the neighbour table (root)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>
#include <arpa/inet.h>
#include <qs_net.h>

static void neighbours(void)
{
	static const char *const state[] = { "?", "INCOMPLETE", "REACHABLE", "FAILED" };
	struct qs_neighinfo n;

	printf("neighbours:\n");
	for (int i = 0; qs_neigh(QS_NEIGH_GET, i, &n) == 0; i++) {
		struct in_addr a = { n.addr };

		printf("  %-15s %02x:%02x:%02x:%02x:%02x:%02x %-10s %-5s age %u ms, %u waiting\n",
		       inet_ntoa(a), n.mac[0], n.mac[1], n.mac[2], n.mac[3], n.mac[4], n.mac[5],
		       state[n.state < 4 ? n.state : 0], n.dev, n.age_ms, n.queued);
	}
}

static void interfaces(void)
{
	struct qs_ifreq r;

	printf("interfaces:\n");
	for (int i = 0;; i++) {
		memset(&r, 0, sizeof(r));
		r.index = i;
		if (qs_netif(QS_NETIF_GET, &r) < 0)
			break;
		printf("  %-5s rx %lu packets %lu bytes, %lu errors %lu dropped %lu length %lu missed;"
		       " tx %lu packets %lu bytes, %lu dropped\n", r.name,
		       (unsigned long)r.rx_packets, (unsigned long)r.rx_bytes,
		       (unsigned long)r.rx_errors, (unsigned long)r.rx_dropped,
		       (unsigned long)r.rx_length_errors, (unsigned long)r.rx_missed,
		       (unsigned long)r.tx_packets, (unsigned long)r.tx_bytes,
		       (unsigned long)r.tx_dropped);
	}
}

static void counters(const struct qs_netstat *st, int all)
{
	printf("packet buffers %lu alive (%lu allocated, %lu freed); sockets %lu; neighbours %lu\n",
	       (unsigned long)st->skbs_alive, (unsigned long)st->skb_allocs,
	       (unsigned long)st->skb_frees, (unsigned long)st->sockets_alive,
	       (unsigned long)st->neigh_entries);
	for (int i = 0; i < QS_NET_MIB_MAX; i++)
		if (all || st->mib[i])
			printf("  %-24s %10lu  %s\n", qs_net_mib_names[i], (unsigned long)st->mib[i],
			       qs_net_mib_descs[i]);
}

static int wait_for(const char *name, unsigned long want, long secs)
{
	int idx = qs_net_mib_find(name);
	struct qs_netstat st;

	if (idx < 0) {
		fprintf(stderr, "netstat: no counter '%s'\n", name);
		return 2;
	}
	for (long t = 0; t <= secs * 10; t++) {
		qs_netstat(&st);
		if (st.mib[idx] >= want) {
			printf("netstat: %s reached %lu\n", name, (unsigned long)st.mib[idx]);
			return 0;
		}
		usleep(100000);
	}
	printf("netstat: %s is %lu, not %lu, after %ld s\n", name, (unsigned long)st.mib[idx], want,
	       secs);
	return 1;
}

int main(int argc, char **argv)
{
	struct qs_netstat st;

	if (qs_netstat(&st) < 0) {
		perror("netstat");
		return 1;
	}
	if (argc == 5 && !strcmp(argv[1], "-w"))
		return wait_for(argv[2], strtoul(argv[3], NULL, 0), atol(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "-g")) {
		int idx = qs_net_mib_find(argv[2]);

		if (idx < 0) {
			fprintf(stderr, "netstat: no counter '%s'\n", argv[2]);
			return 2;
		}
		printf("%s %lu\n", argv[2], (unsigned long)st.mib[idx]);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "-f")) {
		if (qs_neigh(QS_NEIGH_FLUSH, 0, NULL) < 0) {
			perror("netstat: flush");
			return 1;
		}
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "-n")) {
		neighbours();
		return 0;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-a"))) {
		fprintf(stderr, "usage: netstat [-a | -n | -f | -g NAME | -w NAME N SECONDS]\n");
		return 2;
	}
	counters(&st, argc == 2);
	interfaces();
	neighbours();
	return 0;
}
