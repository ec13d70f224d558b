/*
 * rtflap: move a route between two gateways, again and again, while
 * packets flow through it: the guest's half of the forwarding test
 * (tests/test_route.py), which checks that every packet still leaves by
 * one of the two.
 *
 *   rtflap PREFIX GW1 GW2 FLIPS MS [MODE_EVERY]
 *
 * PREFIX's route starts via GW1 (metric 0; the caller added it). Each
 * flip adds the route via the other gateway, with the other of metrics
 * 1 and 2, then deletes the old one, so the prefix always has a route.
 * A flip every MS milliseconds, FLIPS of them. Every MODE_EVERY flips
 * (0: never) the route cache switches to its next mode: rcu, rwlock,
 * off, rcu, ... Needs uid 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <arpa/inet.h>
#include <qs_route.h>

static int usage(void)
{
	fprintf(stderr, "usage: rtflap PREFIX GW1 GW2 FLIPS MS [MODE_EVERY]\n");
	return 2;
}

static int change(int op, const struct qs_rtentry *base, uint32_t gw, uint32_t metric)
{
	struct qs_rtentry e = *base;

	e.gateway = gw;
	e.metric = metric;
	if (qs_route(op, &e, 0) < 0) {
		fprintf(stderr, "rtflap: %s via %s metric %u: %s\n", op == QS_ROUTE_ADD ? "add" : "del",
			inet_ntoa((struct in_addr){ gw }), metric, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct qs_rtentry base;
	struct in_addr g1, g2;
	uint32_t gw[2], metric = 0;
	int flips, ms, every = 0, cur = 0, switches = 0, mode = QS_RTCACHE_RCU;

	if (argc < 6 || argc > 7)
		return usage();
	memset(&base, 0, sizeof(base));
	if (qs_parse_prefix(argv[1], &base.dst, &base.prefixlen) || !inet_aton(argv[2], &g1) ||
	    !inet_aton(argv[3], &g2))
		return usage();
	gw[0] = g1.s_addr;
	gw[1] = g2.s_addr;
	flips = atoi(argv[4]);
	ms = atoi(argv[5]);
	if (argc == 7)
		every = atoi(argv[6]);
	printf("rtflap: started: %d flips of %s every %d ms\n", flips, argv[1], ms);
	fflush(stdout);
	for (int i = 1; i <= flips; i++) {
		uint32_t next = metric == 1 ? 2 : 1;

		usleep(ms * 1000);
		if (change(QS_ROUTE_ADD, &base, gw[!cur], next) || change(QS_ROUTE_DEL, &base, gw[cur], metric))
			return 1;
		cur = !cur;
		metric = next;
		if (every && i % every == 0) {
			mode = (mode + 1) % 3;
			if (qs_rtcache(QS_RTCACHE_SET_MODE, mode, NULL, 0) < 0) {
				perror("rtflap: cache mode");
				return 1;
			}
			switches++;
		}
	}
	if (mode != QS_RTCACHE_RCU)
		qs_rtcache(QS_RTCACHE_SET_MODE, QS_RTCACHE_RCU, NULL, 0);
	printf("rtflap: %d flips, %d mode switches; now via %s\n", flips, switches,
	       inet_ntoa((struct in_addr){ gw[cur] }));
	return 0;
}
