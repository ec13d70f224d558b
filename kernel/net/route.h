/*
 * Inside the IPv4 routing code (kernel/net/route*.c, fib.c): the routing
 * table, the route cache of seed 000 section 2.4, and what the system
 * calls, the tests and gdb (tools/gdb/rtcache.py) read of them. Callers
 * elsewhere use only ip.h's ip_route_output_key()/ip_route_input().
 */
#ifndef _NET_ROUTE_H
#define _NET_ROUTE_H

#include <net/ip.h>
#include <rwlock.h>
#include <spinlock.h>
#include <percpu.h>
#include <uapi/route.h>

/* ---- The routing table (fib.c) */

/* What fib_lookup() found: copied out, so the caller holds nothing. */
struct fib_result {
	struct net_device *dev;		/* the interface to send by */
	u32 gateway;			/* 0: on link, send to the destination itself */
	u32 prefix, mask;		/* the matching route's */
	u32 metric;
	u8 prefixlen;
	u8 protocol;			/* QS_RTPROT_* */
};

/* Longest-prefix match (then the lowest metric) among usable routes. */
int fib_lookup(u32 daddr, struct fib_result *res);
/* Checked input (qs_route): 0 or a negative errno. */
int fib_add(const struct qs_rtentry *r, u8 protocol);
int fib_del(const struct qs_rtentry *r);
int fib_dump(struct qs_rtentry *out, int max);
/* The interfaces' own subnets, as their addresses and states are now. */
void fib_sync_connected(void);
/* Replace the QS_RTPROT_BOOT default route (gw 0: remove it); -ENOSPC: table full. */
int fib_set_default_gateway(u32 gw);
u32 fib_default_gateway(void);
int fib_count(void);
void fib_init(void);

/* ---- The route cache (route_cache.c, route_gc.c) */

enum rt_cache_mode {
	RT_CACHE_RCU = QS_RTCACHE_RCU,
	RT_CACHE_RWLOCK = QS_RTCACHE_RWLOCK,
	RT_CACHE_OFF = QS_RTCACHE_OFF,
};

/*
 * One bucket: 2.4's struct rt_hash_bucket, a chain and the rwlock that
 * rtcache=rwlock readers take. With rtcache=rcu readers take no lock and
 * writers take rt_hash_locks[] instead (seed 000 2.4 step 2: write_lock
 * becomes spin_lock).
 */
struct rt_hash_bucket {
	struct hlist_head chain;
	rwlock_t lock;
};

/* Linux's rt_cache_stat (per CPU; incremented with softirqs off). */
struct rt_cache_stat {
	unsigned long in_hit, in_slow_tot, in_no_route, in_brd, in_martian_dst, in_martian_src;
	unsigned long out_hit, out_slow_tot;
	unsigned long gc_total, gc_ignored, gc_goal_miss, gc_dst_overflow;
	unsigned long in_hlist_search, out_hlist_search;
	unsigned long chain_evictions, uncached;
};
DECLARE_PER_CPU(struct rt_cache_stat, rt_cache_stat);
/* Only with softirqs off: then nothing else on this CPU counts at once. */
#define RT_CACHE_STAT_INC(field)	(this_cpu_ptr(&rt_cache_stat)->field++)

#define RT_HASH_BITS	10
#define RT_HASH_SIZE	(1U << RT_HASH_BITS)
#define RT_HASH_LOCK_SZ	256			/* rtcache=rcu writers' hashed spinlocks */

extern struct rt_hash_bucket rt_hash_table[RT_HASH_SIZE];
extern const unsigned int rt_hash_mask;		/* buckets - 1 */
extern atomic_t rt_entries;			/* hashed now */
extern atomic_t rt_pending_free;		/* removed, waiting for a grace period */
/* rt_entries + rt_pending_free stay under this many times ip_rt_max_size. */
#define RT_ALIVE_FACTOR	2
extern atomic_t rt_genid;			/* bumped by every flush */
extern unsigned long ip_rt_max_size, ip_rt_gc_thresh, ip_rt_chain_max;
extern unsigned long rt_mode_switches;

/*
 * The mode now. Sample it with softirqs off and keep them off while on the
 * table: rt_cache_set_mode() waits for such sections. With RT_CACHE_OFF,
 * leave the table alone (only rt_cache_set_mode() empties it then).
 */
extern int rt_mode;
static inline enum rt_cache_mode rt_cache_mode(void)
{
	return READ_ONCE(rt_mode);
}
int rt_cache_set_mode(enum rt_cache_mode mode);	/* process context; may sleep */
const char *rt_cache_mode_name(enum rt_cache_mode mode);

unsigned int rt_hash_code(u32 daddr, u32 saddr, int iif, u8 tos);
/* A lookup: a held entry, or NULL (not cached). */
struct rtable *rt_cache_lookup(const struct rt_key *key, bool input);
/*
 * Hash rt (fresh from the slow path, one reference: the caller's) into
 * the cache under rt->key. Returns the entry to use, with the caller's
 * reference: rt, or one that another CPU hashed first (rt is then freed),
 * or rt unhashed (DST_NOCACHE) when the cache is off or must not grow.
 */
struct rtable *rt_intern_hash(struct rtable *rt);
/* Everything made so far stale (a table or interface change): O(1). */
void rt_cache_flush(void);
/* Remove every entry now (stale or not): tests, and GC after a flush. */
void rt_run_flush(void);
/* The same with the table's locks and frees of lock_mode (rt_cache_set_mode()). */
void rt_flush_all(enum rt_cache_mode lock_mode);
/*
 * Remove stale and old unused entries until the cache is down to
 * ip_rt_gc_thresh (softirqs off; mode: sampled by the caller). 0 if it
 * got there, else -ENOBUFS (every entry in use) or -EBUSY (another CPU
 * is collecting, or the last run was too recent: gc_ignored).
 */
int rt_garbage_collect(enum rt_cache_mode mode, bool sync);
void rt_cache_init(void);
void rt_gc_init(void);

static inline bool rt_is_expired(const struct rtable *rt)
{
	return rt->rt_genid != (unsigned int)atomic_read(&rt_genid);
}

/* Lock the bucket for writing, as the mode says (softirqs already off). */
spinlock_t *rt_hash_lock_addr(unsigned int hash);
void rt_bucket_lock(unsigned int hash, enum rt_cache_mode mode);
void rt_bucket_unlock(unsigned int hash, enum rt_cache_mode mode);
/* Unhash rt (its bucket locked) and drop the cache's reference: Figure 5. */
void rt_remove(struct rtable *rt, enum rt_cache_mode mode);
/* Copy one bucket's entries, read as the mode reads. */
int rt_cache_dump_bucket(unsigned int hash, struct qs_rtcache_entry *out, int max);
unsigned int rt_longest_chain(void);
void rt_cache_get_stats(struct qs_rtstat *st);

/* The slow path: a new, unhashed entry with one reference (route.c). */
int ip_route_output_slow(const struct rt_key *key, struct rtable **rp);
int ip_route_input_slow(const struct rt_key *key, struct net_device *dev, struct rtable **rp);

#endif
