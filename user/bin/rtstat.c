/*
 * rtstat: the route cache's counters, as Linux's rtstat printed
 * /proc/net/stat/rt_cache, and its entries (docs/net-route-cache.md).
 *
 *   rtstat          the counters (sums over CPUs) and the cache's state
 *   rtstat -c       every entry, bucket by bucket, as route -C did
 *   rtstat -g NAME  one counter's value alone (for scripts and tests)
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

#define FIELD(name, desc)	{ #name, offsetof(struct qs_rtstat, name), desc }
static const struct {
	const char *name;
	size_t off;
	const char *desc;
} fields[] = {
	FIELD(entries, "entries in the cache now"),
	FIELD(entries_alive, "entries allocated: cached, held by packets, or awaiting a grace period"),
	FIELD(longest_chain, "the longest hash chain now"),
	FIELD(in_hit, "input lookups answered by the cache"),
	FIELD(in_slow_tot, "input lookups that took the slow path"),
	FIELD(in_no_route, "input packets to forward with no route"),
	FIELD(in_brd, "input broadcasts"),
	FIELD(in_martian_dst, "input packets to an address we do not route"),
	FIELD(in_martian_src, "input packets from an impossible source"),
	FIELD(out_hit, "output lookups answered by the cache"),
	FIELD(out_slow_tot, "output lookups that took the slow path"),
	FIELD(gc_total, "garbage collections run"),
	FIELD(gc_ignored, "garbage collections skipped (another running, or too soon)"),
	FIELD(gc_goal_miss, "garbage collections that could not reach their goal"),
	FIELD(gc_dst_overflow, "answers not cached: the cache was full"),
	FIELD(in_hlist_search, "input chain entries passed over"),
	FIELD(out_hlist_search, "output chain entries passed over"),
	FIELD(chain_evictions, "unused entries evicted to make room (chain or cache full)"),
	FIELD(uncached, "answers not cached (full, chain in use, or rtcache=off)"),
	FIELD(mode_switches, "rtcache mode switches"),
	FIELD(genid, "flushes (generations) since boot"),
};

static uint64_t value(const struct qs_rtstat *st, size_t off)
{
	return *(const uint64_t *)((const char *)st + off);
}

static int entries(void)
{
	struct qs_rtcache_entry e[64];
	int total = 0;

	printf("%-4s %-15s %-15s %-5s %-3s %-15s %-6s %-4s %-7s %s\n", "hash", "destination",
	       "source", "iif", "tos", "gateway", "dev", "ref", "use", "age");
	for (int b = 0;; b++) {
		long n = qs_rtcache(QS_RTCACHE_DUMP, b, e, 64);

		if (n < 0) {
			if (errno == ENOENT)
				break;
			fprintf(stderr, "rtstat: %s\n", strerror(errno));
			return 1;
		}
		for (int i = 0; i < n; i++, total++)
			printf("%-4d %-15s %-15s %-5u %-3u %-15s %-6s %-4u %-7u %ums%s%s\n", b,
			       ip(e[i].dst), ip(e[i].src), e[i].iif, e[i].tos, ip(e[i].gateway),
			       e[i].dev, e[i].refcnt, e[i].use, e[i].age_ms,
			       e[i].flags & QS_RTLOOKUP_LOCAL ? " local" : "",
			       e[i].stale ? " stale" : "");
	}
	printf("%d entries\n", total);
	return 0;
}

int main(int argc, char **argv)
{
	struct qs_rtstat st;

	if (argc > 1 && !strcmp(argv[1], "-c"))
		return entries();
	if (qs_rtstat(&st) < 0) {
		fprintf(stderr, "rtstat: %s\n", strerror(errno));
		return 1;
	}
	if (argc > 2 && !strcmp(argv[1], "-g")) {
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(argv[2], fields[i].name)) {
				printf("%lu\n", (unsigned long)value(&st, fields[i].off));
				return 0;
			}
		fprintf(stderr, "rtstat: no counter %s\n", argv[2]);
		return 2;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: rtstat [-c | -g name]\n");
		return 2;
	}
	printf("rtcache=%s forwarding=%s buckets=%u max_size=%u gc_thresh=%u chain_max=%u\n",
	       qs_rtcache_mode_name(st.mode), st.forwarding ? "on" : "off", st.buckets,
	       st.max_size, st.gc_thresh, st.chain_max);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		printf("  %-17s %12lu  %s\n", fields[i].name, (unsigned long)value(&st, fields[i].off),
		       fields[i].desc);
	return 0;
}
