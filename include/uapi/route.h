/*
 * The routing ABI (kernel/net, docs/net-route-cache.md): system calls
 * 80-89 for the routing table (route), the route cache's counters
 * (rtstat) and its mode, and forwarding. Addresses are in network byte
 * order, as in struct sockaddr_in.
 */
#ifndef _UAPI_ROUTE_H
#define _UAPI_ROUTE_H

#include <stdint.h>

#define SYS_qs_route		80	/* (op, struct qs_rtentry *, max): the table */
#define SYS_qs_route_get	81	/* (struct qs_rtlookup *): the route a packet would take */
#define SYS_qs_rtstat		82	/* (struct qs_rtstat *, size) -> size copied */
#define SYS_qs_rtcache		83	/* (op, arg, struct qs_rtcache_entry *, max): the cache */

#define QS_RTNAMSIZ		16	/* = QS_IFNAMSIZ */

/* ---- qs_route(op, entry, max) */
#define QS_ROUTE_ADD		0	/* add *entry (root); -EEXIST if the same prefix and metric is there */
#define QS_ROUTE_DEL		1	/* delete the route *entry names (root); -ESRCH if none */
#define QS_ROUTE_DUMP		2	/* copy up to max routes into entry[] -> how many */

#define QS_ROUTE_MAX		1024	/* routes in the table */

/* Where a route came from. */
#define QS_RTPROT_KERNEL	1	/* an interface's own subnet */
#define QS_RTPROT_BOOT		2	/* the default gateway: gw= or ifconfig gw */
#define QS_RTPROT_STATIC	3	/* route add */

#define QS_RTF_UP		0x1	/* out: its interface is up (the route is usable) */
#define QS_RTF_GATEWAY		0x2	/* out: via a gateway */

struct qs_rtentry {
	uint32_t dst;			/* the prefix: no bits set past prefixlen */
	uint32_t gateway;		/* 0: directly on the interface's link */
	uint32_t metric;		/* lower wins among equal prefixes */
	uint8_t prefixlen;		/* 0 .. 32 */
	uint8_t protocol;		/* out: QS_RTPROT_* */
	uint16_t flags;			/* out: QS_RTF_* */
	char dev[QS_RTNAMSIZ];		/* "": the interface whose subnet holds the gateway */
};

/* ---- qs_route_get(&lookup): what ip_route_output_key() answers */
#define QS_RTLOOKUP_LOCAL	0x1	/* to this host */
#define QS_RTLOOKUP_BROADCAST	0x2
#define QS_RTLOOKUP_CACHED	0x4	/* the answer is an entry of the route cache */

struct qs_rtlookup {
	uint32_t dst, src;		/* in: the destination, a bound source or 0 */
	uint32_t tos;			/* in */
	uint32_t gateway;		/* out: the next hop */
	uint32_t prefsrc;		/* out: the source address packets get */
	uint32_t flags;			/* out: QS_RTLOOKUP_* */
	uint32_t mtu;			/* out */
	char dev[QS_RTNAMSIZ];		/* out */
};

/* ---- qs_rtcache(op, arg, entries, max) */
#define QS_RTCACHE_GET_MODE	0	/* -> QS_RTCACHE_* */
#define QS_RTCACHE_SET_MODE	1	/* arg: QS_RTCACHE_* (root; empties the cache) */
#define QS_RTCACHE_FLUSH	2	/* every entry stale and removed now (root) */
#define QS_RTCACHE_GET_FORWARD	3	/* -> 0 or 1 */
#define QS_RTCACHE_SET_FORWARD	4	/* arg: 0 or 1 (root) */
#define QS_RTCACHE_DUMP		5	/* arg: a bucket; its entries into entries[] -> how many */

/* The modes (rtcache= on the command line). */
#define QS_RTCACHE_RCU		0	/* seed 000 section 2.4: lock-free lookups, call_rcu frees */
#define QS_RTCACHE_RWLOCK	1	/* Linux 2.4: read_lock_bh per bucket, frees at once */
#define QS_RTCACHE_OFF		2	/* Linux 3.6+: a table lookup for every packet */

struct qs_rtcache_entry {
	uint32_t dst, src;		/* the key ... */
	uint32_t iif;			/* ... (0: an output route) */
	uint32_t tos;
	uint32_t gateway, prefsrc;	/* the answer */
	uint32_t flags;			/* QS_RTLOOKUP_* */
	uint32_t refcnt;		/* holders, the cache's own reference included */
	uint32_t use;			/* lookups that returned it */
	uint32_t age_ms;		/* since its last use */
	uint32_t stale;			/* made before the last flush: GC will remove it */
	char dev[QS_RTNAMSIZ];
};

/*
 * The cache's counters, as Linux's /proc/net/stat/rt_cache printed them
 * (sums over CPUs), and its state now.
 */
struct qs_rtstat {
	uint32_t mode;			/* QS_RTCACHE_* */
	uint32_t forwarding;
	uint32_t buckets, max_size, gc_thresh, chain_max;
	uint64_t genid;			/* flushes since boot */
	uint64_t entries;		/* hashed now */
	uint64_t entries_alive;		/* allocated: hashed, held by packets or awaiting a grace period */
	uint64_t longest_chain;		/* now */
	uint64_t in_hit, in_slow_tot, in_no_route, in_brd, in_martian_dst, in_martian_src;
	uint64_t out_hit, out_slow_tot;
	uint64_t gc_total, gc_ignored, gc_goal_miss, gc_dst_overflow;
	uint64_t in_hlist_search, out_hlist_search;
	uint64_t chain_evictions;	/* unused entries evicted to make room: chain or cache full */
	uint64_t uncached;		/* answers not kept: cache full, chain held, or off */
	uint64_t mode_switches;
};

#endif
