/*
 * route: the IPv4 routing table, the route a packet takes, forwarding and
 * the route cache's mode (include/uapi/route.h, docs/net-route-cache.md).
 *
 *   route [show]                         the table, longest prefixes first
 *   route add PREFIX [gw ADDR] [dev IF] [metric N]
 *   route del PREFIX [gw ADDR] [dev IF] [metric N]
 *                                        PREFIX: a.b.c.d/len, a.b.c.d (/32) or default
 *   route get ADDR [from SRC] [tos N]    the route a packet to ADDR takes now
 *   route forward [on|off]               forwarding between interfaces
 *   route cache [rcu|rwlock|off]         the route cache's design (rtcache=)
 *   route flush                          make every cached route stale
 *
 * Changes need uid 0. rtstat prints the cache's counters and entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <arpa/inet.h>
#include <qs_route.h>

static const char *ip(uint32_t a)
{
	static char buf[4][16];
	static int n;
	struct in_addr in = { a };

	n = (n + 1) % 4;
	strcpy(buf[n], inet_ntoa(in));
	return buf[n];
}

static int usage(void)
{
	fprintf(stderr, "usage: route [show]\n"
		"       route add|del PREFIX [gw ADDR] [dev IF] [metric N]\n"
		"       route get ADDR [from SRC] [tos N]\n"
		"       route forward [on|off]\n"
		"       route cache [rcu|rwlock|off]\n"
		"       route flush\n");
	return 2;
}

static int fail(const char *what)
{
	fprintf(stderr, "route: %s: %s\n", what, strerror(errno));
	return 1;
}

static const char *proto_name(int p)
{
	return p == QS_RTPROT_KERNEL ? "kernel" : p == QS_RTPROT_BOOT ? "boot" : "static";
}

static int show(void)
{
	static struct qs_rtentry r[QS_ROUTE_MAX];
	int n = qs_route(QS_ROUTE_DUMP, r, QS_ROUTE_MAX);

	if (n < 0)
		return fail("show");
	printf("%-18s %-15s %-6s %-6s %-6s %s\n", "destination", "gateway", "dev", "metric",
	       "proto", "flags");
	for (int i = 0; i < n; i++) {
		char dst[24];

		snprintf(dst, sizeof(dst), "%s/%u", r[i].prefixlen ? ip(r[i].dst) : "default",
			 r[i].prefixlen);
		if (!r[i].prefixlen)
			strcpy(dst, "default");
		printf("%-18s %-15s %-6s %-6u %-6s %s%s\n", dst,
		       r[i].gateway ? ip(r[i].gateway) : "*", r[i].dev[0] ? r[i].dev : "-",
		       r[i].metric, proto_name(r[i].protocol), r[i].flags & QS_RTF_UP ? "U" : "",
		       r[i].flags & QS_RTF_GATEWAY ? "G" : "");
	}
	return 0;
}

/* PREFIX [gw ADDR] [dev IF] [metric N] into e; 0, or usage. */
static int parse_route(int argc, char **argv, struct qs_rtentry *e)
{
	struct in_addr a;
	char *end;

	memset(e, 0, sizeof(*e));
	if (argc < 1 || qs_parse_prefix(argv[0], &e->dst, &e->prefixlen)) {
		fprintf(stderr, "route: %s: not a prefix (a.b.c.d/len or default)\n",
			argc ? argv[0] : "");
		return -1;
	}
	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return -1;
		if (!strcmp(argv[i], "gw") && inet_aton(argv[i + 1], &a))
			e->gateway = a.s_addr;
		else if (!strcmp(argv[i], "dev") && strlen(argv[i + 1]) < sizeof(e->dev))
			strcpy(e->dev, argv[i + 1]);
		else if (!strcmp(argv[i], "metric") &&
			 (e->metric = strtoul(argv[i + 1], &end, 10), !*end))
			;
		else
			return -1;
	}
	return 0;
}

static int get(int argc, char **argv)
{
	struct qs_rtlookup lk;
	struct in_addr a;

	memset(&lk, 0, sizeof(lk));
	if (argc < 1 || !inet_aton(argv[0], &a))
		return usage();
	lk.dst = a.s_addr;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "from") && inet_aton(argv[i + 1], &a))
			lk.src = a.s_addr;
		else if (!strcmp(argv[i], "tos"))
			lk.tos = strtoul(argv[i + 1], NULL, 0);
		else
			return usage();
	}
	if (qs_route_get(&lk) < 0)
		return fail(argv[0]);
	printf("%s via %s dev %s src %s mtu %u%s%s%s\n", ip(lk.dst), ip(lk.gateway), lk.dev,
	       ip(lk.prefsrc), lk.mtu, lk.flags & QS_RTLOOKUP_LOCAL ? " local" : "",
	       lk.flags & QS_RTLOOKUP_BROADCAST ? " broadcast" : "",
	       lk.flags & QS_RTLOOKUP_CACHED ? " cached" : " uncached");
	return 0;
}

static int forward(int argc, char **argv)
{
	long v;

	if (argc == 0) {
		v = qs_rtcache(QS_RTCACHE_GET_FORWARD, 0, NULL, 0);
		if (v < 0)
			return fail("forward");
		printf("forwarding %s\n", v ? "on" : "off");
		return 0;
	}
	if (strcmp(argv[0], "on") && strcmp(argv[0], "off"))
		return usage();
	if (qs_rtcache(QS_RTCACHE_SET_FORWARD, !strcmp(argv[0], "on"), NULL, 0) < 0)
		return fail("forward");
	return 0;
}

static int cache(int argc, char **argv)
{
	long m;

	if (argc == 0) {
		m = qs_rtcache(QS_RTCACHE_GET_MODE, 0, NULL, 0);
		if (m < 0)
			return fail("cache");
		printf("rtcache=%s\n", qs_rtcache_mode_name(m));
		return 0;
	}
	m = qs_rtcache_mode_parse(argv[0]);
	if (m < 0) {
		fprintf(stderr, "route: cache %s: the choices are rcu, rwlock and off\n", argv[0]);
		return 2;
	}
	if (qs_rtcache(QS_RTCACHE_SET_MODE, m, NULL, 0) < 0)
		return fail("cache");
	printf("rtcache=%s\n", argv[0]);
	return 0;
}

int main(int argc, char **argv)
{
	struct qs_rtentry e;
	const char *cmd = argc > 1 ? argv[1] : "show";

	if (!strcmp(cmd, "show"))
		return show();
	if (!strcmp(cmd, "add") || !strcmp(cmd, "del")) {
		if (parse_route(argc - 2, argv + 2, &e))
			return usage();
		if (qs_route(!strcmp(cmd, "add") ? QS_ROUTE_ADD : QS_ROUTE_DEL, &e, 0) < 0)
			return fail(argv[2]);
		return 0;
	}
	if (!strcmp(cmd, "get"))
		return get(argc - 2, argv + 2);
	if (!strcmp(cmd, "forward"))
		return forward(argc - 2, argv + 2);
	if (!strcmp(cmd, "cache"))
		return cache(argc - 2, argv + 2);
	if (!strcmp(cmd, "flush")) {
		if (qs_rtcache(QS_RTCACHE_FLUSH, 0, NULL, 0) < 0)
			return fail("flush");
		return 0;
	}
	return usage();
}
