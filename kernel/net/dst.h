/*
 * Destination cache entries, after Linux 2.4's include/net/dst.h: the
 * part of a route that packets hold while they are in flight
 * (kernel/net/dst.c). struct rtable (ip.h) begins with one, as 2.4's
 * `union { struct dst_entry dst; } u` did, so that seed 000 Figure 5's
 * `&rt->u.dst` reads as printed.
 *
 * Who holds an entry, and for how long:
 *   - the route cache, one reference for as long as the entry is hashed
 *     in rt_hash_table (route_cache.c);
 *   - a caller of ip_route_output_key(), until its ip_rt_put();
 *   - each packet (skb->dst), from ip_route_input() or ip_queue_xmit()
 *     until kfree_skb(): on a transmit queue, an ARP queue or a NIC's
 *     ring it may live long after the lookup.
 * A lookup takes its reference inside the read-side section that found
 * the entry, so the entry cannot be freed in between: under RCU because
 * the cache drops its own reference only after a grace period (dst_free
 * through call_rcu, Figure 5); under the 2.4 rwlock because the cache
 * drops it only with the bucket write-locked. The last dst_release()
 * frees the entry; after the cache's reference is gone nobody can find it
 * again, so the count only falls.
 */
#ifndef _NET_DST_H
#define _NET_DST_H

#include <types.h>
#include <atomic.h>
#include <rcupdate.h>

struct net_device;
struct sk_buff;

struct dst_entry {
	atomic_t		__refcnt;	/* the cache's (while hashed) and holders' */
	int			__use;		/* lookups that returned it (a statistic) */
	unsigned long		lastuse;	/* jiffies of its last lookup: GC's age */
	struct net_device	*dev;		/* where packets along it leave */
	unsigned int		pmtu;		/* the path MTU: the device's */
	unsigned short		flags;		/* DST_NOCACHE */
	unsigned short		obsolete;	/* DST_OBSOLETE_*: unhashed, or not yet */
	int			(*input)(struct sk_buff *skb);	/* input routes: deliver or forward */
	struct rcu_head		rcu_head;	/* call_rcu(dst_free), Figure 5 */
};

#define DST_NOCACHE		0x1	/* never hashed: the last release frees it */

#define DST_OBSOLETE_NONE	0	/* hashed, or not yet */
#define DST_OBSOLETE_KILL	2	/* removed from the cache (2.4's value) */

/* A zeroed entry of size bytes with one reference (the caller's), or NULL. */
void *dst_alloc(size_t size);

static inline void dst_hold(struct dst_entry *dst)
{
	atomic_inc(&dst->__refcnt);
}

static inline struct dst_entry *dst_clone(struct dst_entry *dst)
{
	if (dst)
		dst_hold(dst);
	return dst;
}

/* A lookup's hit: a reference, and the age GC reads. */
static inline void dst_use(struct dst_entry *dst, unsigned long now)
{
	dst_hold(dst);
	WRITE_ONCE(dst->__use, READ_ONCE(dst->__use) + 1);	/* a statistic: races lose counts */
	if (READ_ONCE(dst->lastuse) != now)		/* one store a jiffy, not one a lookup */
		WRITE_ONCE(dst->lastuse, now);
}

/* Drop a reference; the last one frees the entry. Any context but NMI. */
void dst_release(struct dst_entry *dst);

/*
 * The cache's reference, dropped when the entry is unhashed: Figure 5's
 * dst_free(), which the RCU cache calls through call_rcu() after a grace
 * period and the rwlock cache (2.4) calls at once.
 */
void dst_free(void *dst);

/* Entries allocated and not yet freed (hashed, held, or awaiting a grace period). */
long dst_entries_alive(void);

#endif
